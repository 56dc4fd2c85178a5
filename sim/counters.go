package sim

import (
	"math/bits"
	"slices"

	"flitsim/fabric"
	"flitsim/traffic"
)

// The counters of seeds/004 §2.3 (Aries NIC counters) and per link, when
// Params.Counters is set. Each simulator counts for itself (CounterTally);
// only the arithmetic from tallies to results below is shared, as with
// JobResults.

// Counters are the NIC and link counters of a run.
type Counters struct {
	// RequestFlits and RequestPackets are what all HCAs sent, responses
	// (NIC window) aside.
	RequestFlits   int64 `json:"request_flits"`
	RequestPackets int64 `json:"request_packets"`
	// StallsPerFlit is the paper's s: flit times an HCA had a flit ready
	// to send and no credit for it, per request flit, over all HCAs.
	StallsPerFlit float64 `json:"stalls_per_flit"`
	// Latency is the paper's L over all delivered packets: from a
	// packet's first flit leaving its HCA to its last flit consumed.
	Latency Latency `json:"latency"`
	// HCAs lists every HCA in node order, Links every channel (one
	// direction of a cable) by sending node and port.
	HCAs  []HCACounters  `json:"hcas"`
	Links []LinkCounters `json:"links"`
	// Series are the counters over time of all HCAs, without jobs
	// (Params.CounterWindow; series.go).
	Series []CounterWindow `json:"series,omitempty"`
}

// Latency summarizes packet latencies. P99 is the upper bound of the
// histogram bucket holding the 99th percentile (buckets 1/16 of an octave
// wide, so at most 6.25 % above the exact value, and never above Max).
type Latency struct {
	Packets int64   `json:"packets"`
	MeanNs  float64 `json:"mean_ns"`
	P99Ns   float64 `json:"p99_ns"`
	MaxNs   float64 `json:"max_ns"`
}

// HCACounters are one HCA's NIC counters: what it sent (responses aside),
// how long its next flit waited for credits, and the latency of its packets delivered.
type HCACounters struct {
	HCA            string  `json:"hca"`
	RequestFlits   int64   `json:"request_flits"`
	RequestPackets int64   `json:"request_packets"`
	StalledNs      float64 `json:"stalled_ns"`
	StallsPerFlit  float64 `json:"stalls_per_flit"`
	Latency        Latency `json:"latency"`
}

// LinkCounters are one channel's counters: flits and packets sent on it,
// the time it was stalled (idle while a packet waited for it without the
// credits to go), and its utilization over the run.
type LinkCounters struct {
	From        string  `json:"from"`
	FromPort    int     `json:"from_port"`
	To          string  `json:"to"`
	ToPort      int     `json:"to_port"`
	Flits       int64   `json:"flits"`
	Packets     int64   `json:"packets"`
	StalledNs   float64 `json:"stalled_ns"`
	Utilization float64 `json:"utilization"`
}

// JobCounters are the counters summed over a job's ranks (as sources).
type JobCounters struct {
	RequestFlits  int64   `json:"request_flits"`
	StallsPerFlit float64 `json:"stalls_per_flit"`
	Latency       Latency `json:"latency"`
	// Series are its ranks' counters over time (Params.CounterWindow).
	Series []CounterWindow `json:"series,omitempty"`
}

// HCATally is what a simulator counted for one HCA.
type HCATally struct {
	Flits, Packets int64 // sent
	StalledPs      int64
	Hist           LatencyHist // its delivered packets' latencies (ps)
}

// LinkTally is what a simulator counted for one channel, named by its
// sending node and port.
type LinkTally struct {
	Node, Port     int
	Flits, Packets int64
	// BusyPs is how long the granted packets take on the cable: their
	// flits' times, with HW.WireBytes each last flit its bytes' share.
	BusyPs    int64
	StalledPs int64
}

// CounterTally is a simulator's count of a run, from which CounterResults
// computes the counters.
type CounterTally struct {
	HCAs  []HCATally  // per terminal
	Links []LinkTally // any order
	End   int64       // the run's last instant
	// Series, when Params.CounterWindow is set: per job (one for all
	// without jobs), counted over time.
	Series *SeriesTally
}

// CounterResults computes the counters of a run on net with hardware hw
// from a tally. Stalls per flit count in flit times of an HCA's cable;
// a channel's utilization is the time its packets take on its cable (in
// its own flit time; with HW.WireBytes their bytes' time).
func CounterResults(net *fabric.Network, hw fabric.Hardware, t CounterTally) *Counters {
	ft := hw.FlitPs()
	c := &Counters{HCAs: make([]HCACounters, len(t.HCAs))}
	var all LatencyHist
	var stalled int64
	for i := range t.HCAs {
		h := &t.HCAs[i]
		c.RequestFlits += h.Flits
		c.RequestPackets += h.Packets
		stalled += h.StalledPs
		all.Merge(&h.Hist)
		c.HCAs[i] = HCACounters{HCA: net.Nodes[net.NumSwitches+i].Name, RequestFlits: h.Flits, RequestPackets: h.Packets,
			StalledNs: float64(h.StalledPs) / 1000, StallsPerFlit: stallsPerFlit(h.StalledPs, h.Flits, ft), Latency: h.Hist.Summary()}
	}
	c.StallsPerFlit = stallsPerFlit(stalled, c.RequestFlits, ft)
	c.Latency = all.Summary()
	if t.Series != nil && !t.Series.perJob {
		c.Series = t.Series.results(0, ft)
	}
	links := slices.Clone(t.Links)
	slices.SortFunc(links, func(a, b LinkTally) int {
		if a.Node != b.Node {
			return a.Node - b.Node
		}
		return a.Port - b.Port
	})
	c.Links = make([]LinkCounters, len(links))
	for i, l := range links {
		peer, _ := net.Peer(l.Node, l.Port)
		lc := LinkCounters{From: net.Nodes[l.Node].Name, FromPort: l.Port, To: net.Nodes[peer.Node].Name, ToPort: int(peer.Port),
			Flits: l.Flits, Packets: l.Packets, StalledNs: float64(l.StalledPs) / 1000}
		if t.End > 0 {
			lc.Utilization = float64(l.BusyPs) / float64(t.End)
		}
		c.Links[i] = lc
	}
	return c
}

// JobCounterResults sums the counters of each job's ranks; ft is the flit
// time of an HCA's cable (ps), the unit of stalls per flit.
func JobCounterResults(jobs []traffic.Job, t CounterTally, ft int64) []*JobCounters {
	out := make([]*JobCounters, len(jobs))
	for j, job := range jobs {
		var h LatencyHist
		var flits, stalled int64
		for _, r := range job.Ranks {
			flits += t.HCAs[r].Flits
			stalled += t.HCAs[r].StalledPs
			h.Merge(&t.HCAs[r].Hist)
		}
		out[j] = &JobCounters{RequestFlits: flits, StallsPerFlit: stallsPerFlit(stalled, flits, ft), Latency: h.Summary(),
			Series: t.Series.results(j, ft)}
	}
	return out
}

func stallsPerFlit(stalledPs, flits, ft int64) float64 {
	if flits == 0 {
		return 0
	}
	return float64(stalledPs) / float64(ft) / float64(flits)
}

// LatencyHist counts latencies (ps) in log-linear buckets: exact below 32,
// then 16 buckets per octave. It also keeps their count, sum and maximum.
type LatencyHist struct {
	n, sum, max int64
	b           []uint32
}

const histSub = 4 // 2^histSub buckets per octave

// histBucket is the bucket of v ≥ 0.
func histBucket(v int64) int {
	if v < 2<<histSub {
		return int(v)
	}
	e := bits.Len64(uint64(v)) - histSub - 1
	return e<<histSub + int(v>>e)
}

// histUpper is the largest value of bucket b.
func histUpper(b int) int64 {
	if b < 2<<histSub {
		return int64(b)
	}
	e := b>>histSub - 1
	m := int64(b&(1<<histSub-1) | 1<<histSub)
	return (m+1)<<e - 1
}

// Add counts one latency.
func (h *LatencyHist) Add(v int64) {
	v = max(v, 0)
	i := histBucket(v)
	if i >= len(h.b) {
		h.b = append(h.b, make([]uint32, i+1-len(h.b))...)
	}
	h.b[i]++
	h.n++
	h.sum += v
	h.max = max(h.max, v)
}

// Clone returns a copy of h that shares nothing with it.
func (h *LatencyHist) Clone() LatencyHist {
	c := *h
	c.b = slices.Clone(h.b)
	return c
}

// Merge adds o's counts to h.
func (h *LatencyHist) Merge(o *LatencyHist) {
	if len(o.b) > len(h.b) {
		h.b = append(h.b, make([]uint32, len(o.b)-len(h.b))...)
	}
	for i, x := range o.b {
		h.b[i] += x
	}
	h.n += o.n
	h.sum += o.sum
	h.max = max(h.max, o.max)
}

// Quantile returns the upper bound of the bucket holding the q-quantile
// (the ⌈q·n⌉-th smallest latency), at most the maximum; 0 when empty.
func (h *LatencyHist) Quantile(q float64) int64 {
	if h.n == 0 {
		return 0
	}
	rank := int64(q*float64(h.n) + 0.999999999)
	rank = min(max(rank, 1), h.n)
	var seen int64
	for i, x := range h.b {
		seen += int64(x)
		if seen >= rank {
			return min(histUpper(i), h.max)
		}
	}
	return h.max
}

// Summary returns count, mean, 99th percentile and maximum in ns.
func (h *LatencyHist) Summary() Latency {
	if h.n == 0 {
		return Latency{}
	}
	return Latency{Packets: h.n, MeanNs: float64(h.sum) / float64(h.n) / 1000,
		P99Ns: float64(h.Quantile(0.99)) / 1000, MaxNs: float64(h.max) / 1000}
}
