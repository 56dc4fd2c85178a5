package sim

import (
	"fmt"
	"math"

	"flitsim/fabric"
	"flitsim/traffic"
)

// Params are everything a run depends on besides the network and tables.
type Params struct {
	HW      fabric.Hardware
	Traffic traffic.Spec
	// Seed is the master seed; per-purpose streams derive from it.
	Seed uint64
	// MaxTime stops the run (ps of simulated time); 0 = 1 s.
	MaxTime int64

	// Steady-state controller: every sink's consumption bandwidth is
	// sampled per SampleWindow after Warmup; a sink is steady when the 99 %
	// confidence interval of its mean is within CIRel of the mean (after at
	// least MinSamples samples); the run stops when SteadyFraction of the
	// sinks are steady (above 1: never, the run goes to MaxTime).
	SampleWindow   int64
	Warmup         int64
	MinSamples     int
	CIRel          float64
	SteadyFraction float64

	// TraceHash computes a hash over every processed event.
	TraceHash bool
	// Record keeps every packet's injection and delivery time.
	Record bool
}

// DefaultParams returns the thesis' hardware and controller settings with
// uniform random traffic of 1-MTU messages at full load.
func DefaultParams() Params {
	hw := fabric.DefaultHardware()
	return Params{
		HW:             hw,
		Traffic:        traffic.Spec{Kind: traffic.Uniform, MessageBytes: hw.MTU, Load: 1},
		Seed:           1,
		SampleWindow:   10 * fabric.Microsecond,
		Warmup:         20 * fabric.Microsecond,
		MinSamples:     20,
		CIRel:          0.01,
		SteadyFraction: 0.99,
	}
}

// MaxMessageBytes bounds a message (1 GiB), MaxTimePs a run (1,000 s of
// simulated time): beyond them byte and picosecond counts overflow.
const (
	MaxMessageBytes = 1 << 30
	MaxTimePs       = 1000 * 1000 * 1000 * fabric.Microsecond
)

// Normalize fills in defaults for zero values and reports parameters no
// simulator can run with. Both simulators call it first.
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
	if p.Traffic.Load == 0 {
		p.Traffic.Load = 1
	}
	if !(p.Traffic.Load > 0 && p.Traffic.Load <= 1) {
		return fmt.Errorf("load %g outside (0, 1]", p.Traffic.Load)
	}
	if p.MaxTime == 0 {
		p.MaxTime = 1000 * 1000 * fabric.Microsecond // 1 s
	}
	if p.MaxTime < 0 || p.MaxTime > MaxTimePs {
		return fmt.Errorf("time limit %d ps: want a positive time up to 1000 s", p.MaxTime)
	}
	if p.SampleWindow <= 0 {
		p.SampleWindow = 2 * fabric.Microsecond
	}
	if p.SampleWindow > MaxTimePs || p.Warmup < 0 || p.Warmup > MaxTimePs {
		return fmt.Errorf("sample window %d ps and warmup %d ps: want positive times up to 1000 s", p.SampleWindow, p.Warmup)
	}
	if p.MinSamples < 2 {
		p.MinSamples = 2
	}
	if p.CIRel <= 0 {
		p.CIRel = 0.01
	}
	if !(p.CIRel > 0 && p.CIRel <= 1) {
		return fmt.Errorf("ci_rel %g outside (0, 1]", p.CIRel)
	}
	if p.SteadyFraction == 0 {
		p.SteadyFraction = 0.99
	}
	if !(p.SteadyFraction > 0) || math.IsInf(p.SteadyFraction, 0) {
		return fmt.Errorf("steady fraction %g: want a fraction of the sinks in (0, 1], or above 1 to run to the time limit", p.SteadyFraction)
	}
	return nil
}

// Knob is a fabric.Knob of Params with its accessors.
type Knob struct {
	fabric.Knob
	Get func(*Params) float64
	Set func(*Params, float64)
}

// Knobs declares the steady-state controller's parameters a campaign's
// [sim] table may set, in a fixed order.
func Knobs() []Knob {
	d := func(key string, minOpen bool, help string, p func(*Params) *int64) Knob {
		return Knob{fabric.Knob{Key: key, Kind: fabric.KnobDuration, Min: 0, Max: float64(MaxTimePs), MinOpen: minOpen, Help: help},
			func(q *Params) float64 { return float64(*p(q)) }, func(q *Params, v float64) { *p(q) = int64(v) }}
	}
	f := func(key string, help string, p func(*Params) *float64) Knob {
		return Knob{fabric.Knob{Key: key, Kind: fabric.KnobFloat, Min: 0, Max: 1, MinOpen: true, Help: help},
			func(q *Params) float64 { return *p(q) }, func(q *Params, v float64) { *p(q) = v }}
	}
	return []Knob{
		d("sample_window", true, "sinks' consumption is sampled once per window", func(q *Params) *int64 { return &q.SampleWindow }),
		d("warmup", false, "windows ending before this are not sampled", func(q *Params) *int64 { return &q.Warmup }),
		{fabric.Knob{Key: "min_samples", Kind: fabric.KnobInt, Min: 2, Max: 1 << 30, Help: "samples a sink needs before it can be steady"},
			func(q *Params) float64 { return float64(q.MinSamples) }, func(q *Params, v float64) { q.MinSamples = int(v) }},
		f("ci_rel", "a sink is steady when its mean's 99 % confidence half-width is this fraction of the mean", func(q *Params) *float64 { return &q.CIRel }),
		f("steady_fraction", "the run is steady when this fraction of the sinks is", func(q *Params) *float64 { return &q.SteadyFraction }),
	}
}
