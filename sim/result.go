package sim

// Verdict is how a run ended.
type Verdict string

// Verdicts of a run.
const (
	Completed    Verdict = "completed"     // finite traffic fully delivered
	Steady       Verdict = "steady"        // infinite traffic reached steady state
	Deadlock     Verdict = "deadlock"      // packets remain and nothing can ever move
	NotConverged Verdict = "not_converged" // the time limit came first
)

// Stats summarizes a distribution.
type Stats struct {
	Min    float64 `json:"min"`
	Q1     float64 `json:"q1"`
	Median float64 `json:"median"`
	Q3     float64 `json:"q3"`
	Max    float64 `json:"max"`
}

// Buffer names one VL buffer: the input buffer of Node at Port on VL.
type Buffer struct {
	Node string `json:"node"`
	Port int    `json:"port"`
	VL   int    `json:"vl"`
	// From/FromPort is the sender at the other end of the cable.
	From     string `json:"from"`
	FromPort int    `json:"from_port"`
}

// Result is what a run reports. Everything but WallSeconds is a pure
// function of the inputs.
type Result struct {
	Verdict Verdict `json:"verdict"`
	// ThroughputGBs: finite traffic: payload of all messages over the time
	// from the first injected flit to the last consumed flit (eq. 4.2);
	// infinite traffic: the sum over sinks of their mean consumption
	// bandwidth in steady state.
	ThroughputGBs float64 `json:"throughput_gbs"`
	// ThroughputCIGBs is the 99 % confidence half-width of ThroughputGBs
	// for infinite traffic (0 when fewer than two windows were sampled).
	ThroughputCIGBs float64 `json:"throughput_ci_gbs,omitempty"`
	// SampledWindows counts the steady-state controller's windows after
	// warmup (infinite traffic).
	SampledWindows int `json:"sampled_windows,omitempty"`
	// HCABandwidthGBs is the per-sink consumption bandwidth distribution.
	HCABandwidthGBs Stats   `json:"hca_bw_gbs"`
	SimTimeNs       float64 `json:"sim_time_ns"`
	// RuntimeNs is the exchange runtime (first injected to last consumed flit).
	RuntimeNs     float64 `json:"runtime_ns,omitempty"`
	Events        int64   `json:"events"`
	FlitHops      int64   `json:"flit_hops"`
	Packets       int64   `json:"packets_delivered"`
	Messages      int64   `json:"messages_delivered"`
	FlitsInjected int64   `json:"flits_injected"`
	FlitsConsumed int64   `json:"flits_consumed"`
	FlitsStuck    int64   `json:"flits_stuck,omitempty"`
	SteadySinks   int     `json:"steady_sinks,omitempty"`
	// DeadlockCycle lists the VL buffers that wait on each other, each full
	// and waiting for credits from the next.
	DeadlockCycle []Buffer `json:"deadlock_cycle,omitempty"`
	TraceHash     string   `json:"trace_hash,omitempty"`
	WallSeconds   float64  `json:"wall_s"`
	FlitHopsPerS  float64  `json:"flit_hops_per_s"`
	// Deliveries, when Params.Record is set: per packet in delivery order.
	Deliveries []Delivery `json:"-"`
}

// Delivery records one packet: its source and destination HCA (node
// indices), its sequence number at the source, the time its first flit was
// injected and the time its last flit was consumed.
type Delivery struct {
	Src, Dst   int32
	Seq        int64
	InjectedPs int64
	DonePs     int64
}
