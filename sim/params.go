package sim

import (
	"fmt"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/traffic"
)

// Params are everything a run depends on besides the network and tables.
// The fields with a param tag are the keys of a campaign's [sim] table,
// each declared once here (package param).
type Params struct {
	HW      fabric.Hardware
	Traffic traffic.Spec
	// Jobs, when set, replace Traffic: each job runs its own pattern on
	// its own HCAs (terminal ordinals), the others stay idle.
	Jobs []traffic.Job
	// Timeline, when set, changes the fabric while traffic runs: cables
	// failing and returning, tables rewritten, lost packets resent
	// (timeline.go).
	Timeline *Timeline
	// Seed is the traffic seed (a campaign's traffic_seeds, the CLI's
	// --traffic-seed); the per-HCA streams derive from it.
	Seed uint64
	// MaxTime stops the run (ps of simulated time); 0 means the default
	// for the traffic: DefaultMaxTime.
	MaxTime int64 `param:"max_time" unit:"ps" range:"[0,1000s]" default:"0" help:"simulated time limit (0: 10ms for infinite traffic, 10s for the exchange, which ends by itself)"`

	// Steady-state controller: every sink's consumption bandwidth is
	// sampled per SampleWindow after Warmup; a sink is steady when the 99 %
	// confidence interval of its mean is within CIRel of the mean (after at
	// least MinSamples samples); the run stops when SteadyFraction of the
	// sinks are steady (above 1: never, the run goes to MaxTime).
	SampleWindow   int64   `param:"sample_window" unit:"ps" range:"(0,1000s]" default:"10us" help:"sinks' consumption is sampled once per window"`
	Warmup         int64   `param:"warmup" unit:"ps" range:"[0,1000s]" default:"20us" help:"windows ending before this are not sampled"`
	MinSamples     int     `param:"min_samples" range:"[2,1073741824]" default:"20" help:"samples a sink (under steady_rule=network the network) needs before it can be steady"`
	CIRel          float64 `param:"ci_rel" range:"(0,1]" default:"0.01" help:"a sink (under steady_rule=network the network's throughput) is steady when its mean's 99 % confidence half-width is this fraction of the mean"`
	SteadyFraction float64 `param:"steady_fraction" range:"(0,2]" default:"0.99" help:"the run is steady when this fraction of the sinks is (above 1: never, under either rule: it runs to max_time)"`
	// SteadyRule chooses what must be steady: the sinks one by one (the
	// thesis' rule, above) or the network's throughput, whose mean over
	// the windows sampled is known within CIRel at 99 % by batch means
	// (the interval ThroughputCIGBs reports), after MinSamples windows.
	SteadyRule string `param:"steady_rule" values:"sinks|network" default:"sinks" help:"sinks: the run is steady when steady_fraction of the sinks are (the thesis' rule); network: when the 99 % batch-means interval of the network's throughput is within ci_rel of its mean"`

	// Biases of the adaptive routing modes (routing.Bias) on the cost of a
	// non-minimal candidate, in flit·hops: a candidate costs the flits its
	// first output holds downstream times its hops (seeds/004 leaves the
	// values unpublished; docs/validation.md says why these).
	UGALBiasLow  int64 `param:"ugal_bias_low" unit:"flit-hops" range:"[0,1073741824]" default:"64" help:"ugal-low: added to a non-minimal candidate's cost"`
	UGALBiasHigh int64 `param:"ugal_bias_high" unit:"flit-hops" range:"[0,1073741824]" default:"256" help:"ugal-high: added to a non-minimal candidate's cost"`
	UGALBiasStep int64 `param:"ugal_bias_step" unit:"flit-hops" range:"[0,1073741824]" default:"64" help:"ugal-imb: added to a non-minimal route's cost per hop taken in its source group"`

	// The constants of application-aware routing (seeds/004 Algorithm 1;
	// appaware.go) the paper leaves open but the threshold (docs/validation.md
	// says why these values).
	AppAwareThreshold    int64   `param:"appaware_threshold" unit:"bytes" range:"[0,1073741824]" default:"4096" help:"app-aware: messages go with high bias until a rank's cumulative size reaches this, then the counters decide (seeds/004: 4 KiB)"`
	AppAwareLatencyScale float64 `param:"appaware_latency_scale" range:"(0,100]" default:"0.93" help:"app-aware: high bias's packet latency estimated as the default mode's times this, until observed"`
	AppAwareStallScale   float64 `param:"appaware_stall_scale" range:"(0,1000000]" default:"2000" help:"app-aware: high bias's stalls per flit estimated as the default mode's times this, until observed"`
	AppAwareMaxAge       int     `param:"appaware_max_age" unit:"samples" range:"[1,1073741824]" default:"16" help:"app-aware: a mode's last counters are dropped after this many samples of the other mode"`

	// CounterWindow is the window of the counters over time (series.go),
	// with Counters.
	CounterWindow int64 `param:"counter_window" unit:"ps" range:"[0,1000s]" default:"10us" help:"with counters (sim --counters): each job's NIC counters over time in windows of this length (0: none)"`

	// Domains cuts the fabric into this many domains simulated in windows
	// of one cable delay, each on a goroutine of its own when Workers
	// allows (domains.go). The cut changes the run's event count and
	// trace hash, nothing else.
	Domains int `param:"domains" range:"[0,64]" default:"0" help:"cut the fabric into this many domains, simulated side by side in windows of one cable delay (0: 2 from 8192 HCAs on, else 1); changes only the event count"`
	// Workers is the number of goroutines a cut run uses: 0 as many as
	// domains, at most GOMAXPROCS, for the windows with enough events to
	// pay for the hand-over; n > 0 at most n for every window. Results do
	// not depend on it.
	Workers int

	// TraceHash computes a hash over every processed event.
	TraceHash bool
	// Record keeps every packet's injection and delivery time.
	Record bool
	// Counters fills in Result.Counters (and each job's): the NIC counters
	// of seeds/004 per HCA and flits and stalls per link.
	Counters bool
}

// ParamDecls returns the declarations of the [sim] table's keys.
func ParamDecls() []param.Decl { return param.Of(&Params{}) }

// DefaultParams returns the thesis' hardware and the declared controller
// settings with uniform random traffic of 1-MTU messages at full load.
func DefaultParams() Params {
	hw := fabric.DefaultHardware()
	p := Params{HW: hw, Traffic: traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: hw.MTU}}, Seed: 1}
	param.Defaults(&p)
	param.Defaults(&p.Traffic)
	return p
}

// Finite reports whether the run ends by itself: a finite pattern, or a
// workload with a finite job.
func (p *Params) Finite() bool {
	if len(p.Jobs) == 0 {
		return p.Traffic.Finite()
	}
	for _, j := range p.Jobs {
		if j.Finite() {
			return true
		}
	}
	return false
}

// DefaultMaxTime is the time limit of a run that sets none: 10 ms of
// infinite traffic (enough for steady state on every seed topology), 10 s
// for finite traffic, which ends by itself long before.
func DefaultMaxTime(finite bool) int64 {
	if finite {
		return 10 * 1000 * 1000 * fabric.Microsecond
	}
	return 10 * 1000 * fabric.Microsecond
}

// MaxMessageBytes bounds a message (1 GiB), MaxTimePs a run (1,000 s of
// simulated time): beyond them byte and picosecond counts overflow.
const (
	MaxMessageBytes = 1 << 30
	MaxTimePs       = 1000 * 1000 * 1000 * fabric.Microsecond
)

// Normalize fills in the declared defaults for zero values of the
// controller settings and the default time limit, and reports parameters
// no simulator can run with. Both simulators call it first.
func (p *Params) Normalize() error {
	if err := p.HW.Validate(); err != nil {
		return err
	}
	if p.Traffic.MessageBytes == 0 {
		p.Traffic.MessageBytes = p.HW.MTU
	}
	if p.Traffic.MessageBytes < 0 || p.Traffic.MessageBytes > MaxMessageBytes {
		return fmt.Errorf("message size %d bytes: want 1..%d", p.Traffic.MessageBytes, MaxMessageBytes)
	}
	def := DefaultParams()
	if p.Traffic.Load == 0 {
		p.Traffic.Load = def.Traffic.Load
	}
	if !(p.Traffic.Load > 0 && p.Traffic.Load <= 1) {
		return fmt.Errorf("load %g outside (0, 1]", p.Traffic.Load)
	}
	if len(p.Jobs) > 0 {
		// A copy: the caller's jobs keep their zero values.
		jobs := make([]traffic.Job, len(p.Jobs))
		copy(jobs, p.Jobs)
		for i := range jobs {
			t := &jobs[i].Traffic
			if t.MessageBytes == 0 {
				t.MessageBytes = p.HW.MTU
			}
			if t.MessageBytes < 0 || t.MessageBytes > MaxMessageBytes {
				return fmt.Errorf("job %s: message size %d bytes: want 1..%d", jobs[i].ID, t.MessageBytes, MaxMessageBytes)
			}
			if t.Load == 0 {
				t.Load = 1
			}
		}
		p.Jobs = jobs
	}
	if p.MaxTime == 0 {
		p.MaxTime = DefaultMaxTime(p.Finite())
	}
	orDefault(&p.SampleWindow, def.SampleWindow)
	orDefault(&p.MinSamples, def.MinSamples)
	orDefault(&p.CIRel, def.CIRel)
	orDefault(&p.SteadyFraction, def.SteadyFraction)
	orDefault(&p.SteadyRule, def.SteadyRule)
	orDefault(&p.AppAwareLatencyScale, def.AppAwareLatencyScale)
	orDefault(&p.AppAwareStallScale, def.AppAwareStallScale)
	orDefault(&p.AppAwareMaxAge, def.AppAwareMaxAge)
	for _, d := range ParamDecls() {
		if d.Kind == param.String {
			if _, err := d.ParseText(d.Take(p).(string), param.Env{}); err != nil {
				return err
			}
			continue
		}
		if err := d.Check(d.Get(p)); err != nil {
			return err
		}
	}
	return nil
}

// orDefault sets *v to d when it is the zero value (a setting left out).
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}
