package sim

import "flitsim/traffic"

// Verdict is how a run ended.
type Verdict string

// Verdicts of a run.
const (
	Completed    Verdict = "completed"     // finite traffic fully delivered
	Steady       Verdict = "steady"        // infinite traffic reached steady state
	Deadlock     Verdict = "deadlock"      // packets remain and nothing can ever move
	NotConverged Verdict = "not_converged" // the time limit came first
	Lost         Verdict = "lost"          // finite traffic whose lost packets were not resent (Timeline)
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
	// HCACompletionNs is, for finite traffic that completed, the
	// distribution over the sources of counted messages of each one's
	// completion time: from the run's first injected flit to the delivery
	// of its last counted message (an exchange's per-rank finish).
	HCACompletionNs Stats `json:"hca_completion_ns,omitzero"`
	// RuntimeNs is the exchange runtime (first injected to last consumed flit).
	RuntimeNs     float64 `json:"runtime_ns,omitempty"`
	Events        int64   `json:"events"`
	FlitHops      int64   `json:"flit_hops"`
	Packets       int64   `json:"packets_delivered"`
	Messages      int64   `json:"messages_delivered"`
	FlitsInjected int64   `json:"flits_injected"`
	FlitsConsumed int64   `json:"flits_consumed"`
	FlitsStuck    int64   `json:"flits_stuck,omitempty"`
	// PacketsLost counts the packets granted a cable that was down
	// (Params.Timeline), PacketsResent those sent again after the
	// transport's timeout (counted when they go).
	PacketsLost   int64 `json:"packets_lost,omitempty"`
	PacketsResent int64 `json:"packets_resent,omitempty"`
	SteadySinks   int   `json:"steady_sinks,omitempty"`
	// DeadlockCycle lists the VL buffers that wait on each other, each full
	// and waiting for credits from the next. With a timeline a deadlocked
	// run may name none: its stuck packets wait for no buffer (a switch
	// whose entry was written to no port while they travelled to it).
	DeadlockCycle []Buffer `json:"deadlock_cycle,omitempty"`
	// Timed: the run had a timeline (Params.Timeline not empty).
	Timed     bool   `json:"timed,omitempty"`
	TraceHash string `json:"trace_hash,omitempty"`
	// Domains is the number of domains the run was cut into (Params.Domains;
	// 0: not cut).
	Domains      int     `json:"domains,omitempty"`
	WallSeconds  float64 `json:"wall_s"`
	FlitHopsPerS float64 `json:"flit_hops_per_s"`
	// Jobs are the per-job results of a workload (Params.Jobs).
	Jobs []JobResult `json:"jobs,omitempty"`
	// Counters, when Params.Counters is set: per HCA and per link.
	Counters *Counters `json:"counters,omitempty"`
	// AppAware sums the choices of the application-aware ranks (nil: none).
	AppAware *AppAwareStats `json:"app_aware,omitempty"`
	// Deliveries, when Params.Record is set: per packet in delivery order.
	Deliveries []Delivery `json:"-"`
}

// Delivery records one packet: its source and destination HCA (node
// indices), its sequence number at the source, its payload, the time its
// first flit was injected and the time its last flit was consumed.
type Delivery struct {
	Src, Dst   int32
	Seq        int64
	Bytes      int32
	InjectedPs int64
	DonePs     int64
}

// JobResult is what one job of a workload achieved.
type JobResult struct {
	ID      string `json:"id"`
	Pattern string `json:"pattern"`
	Ranks   int    `json:"ranks"`
	// Finite: the job has a number of iterations and ends by itself.
	Finite bool `json:"finite"`
	// Completed: a finite job's messages were all delivered.
	Completed bool `json:"completed"`
	// CompletionNs is a finite job's time from its start to its last
	// delivery.
	CompletionNs float64 `json:"completion_ns,omitempty"`
	// ThroughputGBs is the payload delivered to the job's ranks per
	// second: over its completion time (finite), the sum of the ranks'
	// steady-state means (infinite traffic that reached steady state), or
	// over the time from its start to the end of the run (otherwise, e.g.
	// infinite jobs beside finite ones).
	ThroughputGBs float64 `json:"throughput_gbs"`
	// Slowdown is the completion time (finite) or the inverse throughput
	// (infinite) relative to the job running alone on the same nodes with
	// the same routing; 0 when not measured.
	Slowdown float64 `json:"slowdown,omitempty"`
	// Alone is the job's result when it ran alone (with Slowdown).
	Alone *JobResult `json:"alone,omitempty"`
	// RankBandwidthGBs is the distribution over its ranks of the payload
	// each received per second, measured as ThroughputGBs is.
	RankBandwidthGBs Stats `json:"rank_bw_gbs"`
	Messages         int64 `json:"messages_delivered"`
	// PacketsLost counts the packets its ranks sent that were lost
	// (resent ones included each time).
	PacketsLost int64 `json:"packets_lost,omitempty"`
	// Counters, when Params.Counters is set: its ranks' NIC counters.
	Counters *JobCounters `json:"counters,omitempty"`
	// AppAware sums its ranks' application-aware choices (nil: the job's
	// routing is not app-aware).
	AppAware *AppAwareStats `json:"app_aware,omitempty"`
	// IdealNs is a finite job's completion alone on an ideal network
	// (traffic.Ideal: each message one wire time of its HCA's link, no
	// latency, no contention), the lower bound CompletionNs is measured
	// against: IdealSlowdown = CompletionNs / IdealNs. 0: not measured.
	IdealNs       float64 `json:"ideal_ns,omitempty"`
	IdealSlowdown float64 `json:"ideal_slowdown,omitempty"`
	// Trace is a trace job's time per MPI call kind (nil for the other
	// patterns).
	Trace *TraceResult `json:"trace,omitempty"`
}

// TraceResult is where a trace job's ranks spent their time: computing (as
// the trace timed it, scaled) and in each kind of MPI call, on the
// simulated network and in the traced run; per rank means.
type TraceResult struct {
	ComputeNs float64      `json:"compute_ns"`
	CommNs    float64      `json:"comm_ns"` // in calls that communicate (all but "other")
	Calls     []CallResult `json:"calls"`
}

// CallResult is one kind of MPI call of a trace job.
type CallResult struct {
	Call     string  `json:"call"`
	Count    int64   `json:"count"`     // over all ranks
	MeanNs   float64 `json:"mean_ns"`   // per rank, simulated
	TracedNs float64 `json:"traced_ns"` // per rank, in the traced run
}

// traceStats collects the trace jobs' rank statistics of src (nil when it
// runs none).
func traceStats(src traffic.Source, jobs int) [][]traffic.RankStats {
	var out [][]traffic.RankStats
	for j := range jobs {
		if st := traffic.TraceStats(src, j); st != nil {
			if out == nil {
				out = make([][]traffic.RankStats, jobs)
			}
			out[j] = st
		}
	}
	return out
}

// traceResult sums a trace job's rank statistics.
func traceResult(ranks []traffic.RankStats) *TraceResult {
	if ranks == nil {
		return nil
	}
	n := float64(len(ranks))
	r := &TraceResult{}
	ops := traffic.CallOps()
	for op := range ops {
		var c CallResult
		for _, s := range ranks {
			c.Count += s.Calls[op]
			c.MeanNs += float64(s.InCalls[op]) / 1000 / n
			c.TracedNs += float64(s.Traced[op]) / 1000 / n
		}
		if c.Count == 0 {
			continue
		}
		c.Call = ops[op]
		if op != 0 {
			r.CommNs += c.MeanNs
		}
		r.Calls = append(r.Calls, c)
	}
	for _, s := range ranks {
		r.ComputeNs += float64(s.Compute) / 1000 / n
	}
	return r
}

// JobTally is what a simulator counted per terminal and per job, from
// which JobResults computes the per-job results. Each simulator counts
// for itself; only this arithmetic is shared.
type JobTally struct {
	Recv     []int64   // per terminal: payload delivered to it
	Steady   []float64 // per terminal: steady-state mean (GB/s); nil unless the run ended steady
	Last     []int64   // per job: its last delivery's instant
	Messages []int64   // per job: messages delivered
	Expected []int64   // per job: messages a finite job sends (traffic.JobMessages)
	Lost     []int64   // per job: packets its ranks sent that were lost; nil: none
	// Trace is, per job, a trace job's rank statistics
	// (traffic.TraceStats; nil for the other patterns).
	Trace [][]traffic.RankStats
	End   int64 // the run's last instant
}

// JobResults computes the per-job results of jobs from a tally.
func JobResults(jobs []traffic.Job, t JobTally) []JobResult {
	out := make([]JobResult, len(jobs))
	for j, job := range jobs {
		r := JobResult{ID: job.ID, Pattern: string(job.Traffic.Kind), Ranks: len(job.Ranks), Finite: job.Finite(), Messages: t.Messages[j]}
		if t.Lost != nil {
			r.PacketsLost = t.Lost[j]
		}
		if t.Trace != nil {
			r.Trace = traceResult(t.Trace[j])
		}
		bw := make([]float64, len(job.Ranks))
		span := t.End - job.Traffic.Start
		switch {
		case job.Finite() && t.Messages[j] == t.Expected[j]:
			r.Completed = true
			span = t.Last[j] - job.Traffic.Start
			r.CompletionNs = float64(span) / 1000
		case !job.Finite() && t.Steady != nil:
			for i, h := range job.Ranks {
				bw[i] = t.Steady[h]
				r.ThroughputGBs += bw[i]
			}
			r.RankBandwidthGBs = summarize(bw)
			out[j] = r
			continue
		}
		if span > 0 {
			for i, h := range job.Ranks {
				bw[i] = float64(t.Recv[h]) * 1e3 / float64(span) // bytes/ps → GB/s
				r.ThroughputGBs += bw[i]
			}
		}
		r.RankBandwidthGBs = summarize(bw)
		out[j] = r
	}
	return out
}

// SetSlowdowns fills in each job's slowdown from its result alone[j] (a
// run of that job by itself; nil: not measured).
func SetSlowdowns(jobs []JobResult, alone []*JobResult) {
	for j := range jobs {
		a := alone[j]
		if a == nil {
			continue
		}
		jobs[j].Alone = a
		r := &jobs[j]
		switch {
		case r.Finite && r.Completed && a.Completed && a.CompletionNs > 0:
			r.Slowdown = r.CompletionNs / a.CompletionNs
		case !r.Finite && r.ThroughputGBs > 0 && a.ThroughputGBs > 0:
			r.Slowdown = a.ThroughputGBs / r.ThroughputGBs
		}
	}
}
