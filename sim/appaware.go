package sim

import (
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

// Application-aware routing (seeds/004 §4.2, Algorithm 1). A rank whose
// mode is routing.ModeAppAware chooses, when the first packet of each of
// its messages starts to leave its HCA, whether the message goes with the
// default adaptive mode (ugal; ugal-imb when the rank's pattern is an
// all-to-all, Aries' default for MPI_Alltoall) or with high bias
// (ugal-high). Every packet of the message takes that mode.
//
// The choice reads the rank's NIC counters as the paper's library reads
// Aries' after each message: the mean latency L of its packets delivered
// since the last read (injection to delivery, one way, as Params.Counters
// counts it) and its stalls per flit s (the stalled time of its HCA's
// channel since the last read over the request flits sent since then, in
// flit times). A read with no packet delivered or no flit sent since the
// previous one is no sample: the next read covers both intervals. A
// sample is the last value of the mode the rank's previous message took;
// the other mode's last value ages by one sample and is dropped after
// AppAwareMaxAge samples (a different phase of the application).
//
// Eq. 2 estimates a message's transmission time in a mode from its
// counters: T = L·(1 + ⌊P/W⌋) + F·ft·(1 + s), for a message of P packets
// and F flits (headers included) on an HCA channel of flit time ft, with a
// NIC window of W packets (the latency is paid once more for every window
// the message fills; W = 0: once). Eq. 3 switches from the mode in use to
// the other when the other's estimate is lower (Eq. 4 is the same
// inequality solved for F); a mode without a value of its own is
// estimated from the one in use by the scaling factors
// (AppAwareLatencyScale and AppAwareStallScale: high bias's over the
// default's). The rank starts in the default mode. A message is sent with
// high bias, without a decision, while the rank's cumulative message size
// since its last decision is below AppAwareThreshold; at or above it the
// rule decides and the cumulative size starts again from 0.
//
// To be the same in both simulators whatever order they process the
// events of one instant in, a read at instant t counts the packets
// delivered before t, and the stalled time closed by the grant of the
// message's first packet (an HCA's stall always ends at its next grant).
//
// The decision is arithmetic on what each simulator counted by its own
// code; both call AppAware's methods, as both call routing.Dragonfly's.

// AppAwareParams are the constants of Algorithm 1 the paper leaves open
// (docs/validation.md gives the reasons for the defaults).
type AppAwareParams struct {
	Threshold    int64
	LatencyScale float64
	StallScale   float64
	MaxAge       int
	Window       int   // the NIC window (HW.NICWindow; 0: none)
	FlitPs       int64 // an HCA channel's flit time
}

// AppAwareParams returns the parameters of p's application-aware routing.
func (p *Params) AppAwareParams() AppAwareParams {
	return AppAwareParams{Threshold: p.AppAwareThreshold, LatencyScale: p.AppAwareLatencyScale,
		StallScale: p.AppAwareStallScale, MaxAge: p.AppAwareMaxAge, Window: p.HW.NICWindow, FlitPs: p.HW.FlitPs()}
}

// aaValue is a mode's last observed (or estimated) counters.
type aaValue struct {
	ok       bool
	latency  float64 // ps
	stalls   float64 // flit times per flit
	age      int     // samples taken of the other mode since
	observed bool
}

// AppAware is one rank's state of the application-aware routing.
type AppAware struct {
	// Default is the rank's default mode (ugal or ugal-imb).
	Default routing.Mode
	high    bool // the mode in use is high bias
	cum     int64
	last    [2]aaValue // [0] default, [1] high bias
	prev    int8       // the mode of the previous message: 0, 1, or -1 (none)
	// The counters: latencies of the packets delivered before `at`, and
	// of those delivered at `at`.
	latSum, latN     int64
	atSum, atN, at   int64
	readLat, readN   int64 // at the last sample
	readStall, readF int64
	// Stats of the rank's choices.
	Stats AppAwareStats
}

// AppAwareStats count a rank's (or a job's) application-aware choices.
type AppAwareStats struct {
	// DefaultBytes and HighBytes are the payload bytes of the messages
	// sent with the default mode and with high bias.
	DefaultBytes int64 `json:"default_bytes"`
	HighBytes    int64 `json:"high_bytes"`
	// Decisions counts the messages the rule decided (at the threshold);
	// Switches the decisions that changed the mode in use.
	Decisions int64 `json:"decisions"`
	Switches  int64 `json:"switches"`
}

// Add adds o's counts to a's.
func (a *AppAwareStats) Add(o AppAwareStats) {
	a.DefaultBytes += o.DefaultBytes
	a.HighBytes += o.HighBytes
	a.Decisions += o.Decisions
	a.Switches += o.Switches
}

// DefaultShare is the fraction of the payload sent with the default mode
// (the paper's "percentage of traffic App-Aware sends with Default").
func (a AppAwareStats) DefaultShare() float64 {
	if t := a.DefaultBytes + a.HighBytes; t > 0 {
		return float64(a.DefaultBytes) / float64(t)
	}
	return 0
}

// NewAppAware returns the state of a rank whose default mode is def.
func NewAppAware(def routing.Mode) *AppAware {
	return &AppAware{Default: def, prev: -1, at: -1}
}

// Delivered counts a packet of the rank delivered at instant t after
// latency ps (instants come in order).
func (a *AppAware) Delivered(t, latency int64) {
	if t != a.at {
		a.latSum += a.atSum
		a.latN += a.atN
		a.atSum, a.atN, a.at = 0, 0, t
	}
	a.atSum += latency
	a.atN++
}

// Choose returns the mode of the rank's message of the given payload
// bytes, packets and flits, whose first packet is granted the HCA's
// channel at t; stalled is the channel's stalled time closed so far (ps),
// flits the request flits it was granted before this packet.
func (a *AppAware) Choose(p AppAwareParams, t, bytes, packets, flits, stalled, sentFlits int64) routing.Mode {
	a.read(p, t, stalled, sentFlits)
	a.cum += bytes
	use := true // high bias under the threshold
	if a.cum >= p.Threshold {
		a.cum = 0
		a.Stats.Decisions++
		if a.decide(p, packets, flits) {
			a.Stats.Switches++
		}
		use = a.high
	}
	if use {
		a.prev = 1
		a.Stats.HighBytes += bytes
		return routing.ModeUGALHigh
	}
	a.prev = 0
	a.Stats.DefaultBytes += bytes
	return a.Default
}

// read takes a sample of the counters at t, if there is one, as the value
// of the previous message's mode.
func (a *AppAware) read(p AppAwareParams, t, stalled, sentFlits int64) {
	sum, n := a.latSum, a.latN
	if a.at >= 0 && a.at < t {
		sum, n = sum+a.atSum, n+a.atN
	}
	dn, df := n-a.readN, sentFlits-a.readF
	if a.prev < 0 || dn <= 0 || df <= 0 {
		return
	}
	v := &a.last[a.prev]
	*v = aaValue{ok: true, observed: true,
		latency: float64(sum-a.readLat) / float64(dn),
		stalls:  float64(stalled-a.readStall) / (float64(df) * float64(p.FlitPs))}
	if o := &a.last[1-a.prev]; o.ok {
		o.age++
		if o.age > p.MaxAge {
			*o = aaValue{}
		}
	}
	a.readLat, a.readN, a.readStall, a.readF = sum, n, stalled, sentFlits
}

// decide applies Eq. 3 to a message of the given packets and flits and
// reports whether the mode in use changed.
func (a *AppAware) decide(p AppAwareParams, packets, flits int64) bool {
	in, other := 0, 1
	if a.high {
		in, other = 1, 0
	}
	cur := a.last[in]
	if !cur.ok {
		return false // nothing observed in the mode in use yet
	}
	alt := a.last[other]
	if !alt.ok {
		// Estimated from the mode in use: high = default × scale.
		if a.high {
			alt = aaValue{latency: cur.latency / p.LatencyScale, stalls: cur.stalls / p.StallScale}
		} else {
			alt = aaValue{latency: cur.latency * p.LatencyScale, stalls: cur.stalls * p.StallScale}
		}
	}
	if p.estimate(alt, packets, flits) < p.estimate(cur, packets, flits) {
		a.high = !a.high
		return true
	}
	return false
}

// estimate is Eq. 2: the transmission time (ps) of a message of the given
// packets and flits with counters v.
func (p AppAwareParams) estimate(v aaValue, packets, flits int64) float64 {
	rounds := 1.0
	if p.Window > 0 {
		rounds += float64(packets / int64(p.Window))
	}
	return v.latency*rounds + float64(flits)*float64(p.FlitPs)*(1+v.stalls)
}

// MessageFlits is the flits of a message of the given payload bytes on
// hardware hw, its headers included.
func MessageFlits(hw fabric.Hardware, bytes int) int64 {
	full := bytes / hw.MTU
	f := int64(full) * int64(hw.PacketFlits(hw.MTU))
	if r := bytes - full*hw.MTU; r > 0 {
		f += int64(hw.PacketFlits(r))
	}
	return f
}

// AppAwareDefault is the default mode of a rank of a job running pattern
// kind under application-aware routing: ugal-imb for an all-to-all (alltoall or exchange; Aries
// default for MPI_Alltoall), ugal otherwise.
func AppAwareDefault(kind traffic.Kind) routing.Mode {
	if kind == traffic.Alltoall || kind == traffic.Exchange {
		return routing.ModeUGALImb
	}
	return routing.ModeUGAL
}

// SetAppAwareResults fills in r's application-aware statistics from each
// terminal's state (nil: not application-aware): the sum over all and each
// job's over its ranks.
func SetAppAwareResults(r *Result, jobs []traffic.Job, perHCA []*AppAware) {
	for _, a := range perHCA {
		if a != nil {
			if r.AppAware == nil {
				r.AppAware = &AppAwareStats{}
			}
			r.AppAware.Add(a.Stats)
		}
	}
	for j := range jobs {
		if j >= len(r.Jobs) {
			break
		}
		for _, t := range jobs[j].Ranks {
			if a := perHCA[t]; a != nil {
				if r.Jobs[j].AppAware == nil {
					r.Jobs[j].AppAware = &AppAwareStats{}
				}
				r.Jobs[j].AppAware.Add(a.Stats)
			}
		}
	}
}
