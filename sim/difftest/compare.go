package difftest

import (
	"fmt"
	"math"
	"reflect"
	"slices"

	"flitsim/sim"
)

// Compare lists every way two results of the same scenario differ (nil
// when they agree): the verdict, every packet's injection and delivery
// time, the counters, the throughput and its interval, and the run's end
// instant. Event counts and wall time are the simulators' own business.
//
// A deadlock is found when nothing is left to happen; one simulator may
// have idle wake-ups the other has not, so on a deadlock the instant the
// run ends is not compared.
func Compare(fast, ref *sim.Result) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	if fast.Verdict != ref.Verdict {
		add("verdict: fast %s, reference %s", fast.Verdict, ref.Verdict)
	}
	eqInt := func(name string, a, b int64) {
		if a != b {
			add("%s: fast %d, reference %d", name, a, b)
		}
	}
	eqF := func(name string, a, b float64) {
		// Rounding aside: the simulators may sum in another order.
		if a != b && math.Abs(a-b) > 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b))) {
			add("%s: fast %.12g, reference %.12g", name, a, b)
		}
	}
	eqInt("packets", fast.Packets, ref.Packets)
	eqInt("messages", fast.Messages, ref.Messages)
	eqInt("flits consumed", fast.FlitsConsumed, ref.FlitsConsumed)
	eqInt("flits injected", fast.FlitsInjected, ref.FlitsInjected)
	eqInt("flit-hops", fast.FlitHops, ref.FlitHops)
	eqInt("flits stuck", fast.FlitsStuck, ref.FlitsStuck)
	eqInt("packets lost", fast.PacketsLost, ref.PacketsLost)
	eqInt("packets resent", fast.PacketsResent, ref.PacketsResent)
	eqInt("steady sinks", int64(fast.SteadySinks), int64(ref.SteadySinks))
	eqInt("sampled windows", int64(fast.SampledWindows), int64(ref.SampledWindows))
	eqF("throughput", fast.ThroughputGBs, ref.ThroughputGBs)
	eqF("throughput CI", fast.ThroughputCIGBs, ref.ThroughputCIGBs)
	eqF("runtime", fast.RuntimeNs, ref.RuntimeNs)
	eqStats := func(name string, a, b sim.Stats) {
		eqF(name+" min", a.Min, b.Min)
		eqF(name+" q1", a.Q1, b.Q1)
		eqF(name+" median", a.Median, b.Median)
		eqF(name+" q3", a.Q3, b.Q3)
		eqF(name+" max", a.Max, b.Max)
	}
	eqStats("HCA bandwidth", fast.HCABandwidthGBs, ref.HCABandwidthGBs)
	eqStats("HCA completion", fast.HCACompletionNs, ref.HCACompletionNs)
	if fast.Verdict != sim.Deadlock || ref.Verdict != sim.Deadlock {
		eqF("end instant (ns)", fast.SimTimeNs, ref.SimTimeNs)
	} else if len(fast.DeadlockCycle) == 0 || len(ref.DeadlockCycle) == 0 {
		// A timed run's stuck packets may wait for no buffer (no route at
		// a switch written meanwhile): then neither names a cycle.
		if !(fast.Timed && ref.Timed && len(fast.DeadlockCycle) == 0 && len(ref.DeadlockCycle) == 0) {
			add("deadlock cycle: fast %d buffers, reference %d", len(fast.DeadlockCycle), len(ref.DeadlockCycle))
		}
	}
	if fast.Timed != ref.Timed {
		add("timed: fast %v, reference %v", fast.Timed, ref.Timed)
	}
	if len(fast.Jobs) != len(ref.Jobs) {
		add("jobs: fast %d, reference %d", len(fast.Jobs), len(ref.Jobs))
	} else {
		for i := range fast.Jobs {
			a, b := fast.Jobs[i], ref.Jobs[i]
			j := "job " + a.ID + " "
			if a.Completed != b.Completed {
				add("%scompleted: fast %v, reference %v", j, a.Completed, b.Completed)
			}
			eqInt(j+"messages", a.Messages, b.Messages)
			eqInt(j+"packets lost", a.PacketsLost, b.PacketsLost)
			eqF(j+"completion", a.CompletionNs, b.CompletionNs)
			eqF(j+"throughput", a.ThroughputGBs, b.ThroughputGBs)
			eqF(j+"rank bandwidth min", a.RankBandwidthGBs.Min, b.RankBandwidthGBs.Min)
			eqF(j+"rank bandwidth median", a.RankBandwidthGBs.Median, b.RankBandwidthGBs.Median)
			eqF(j+"rank bandwidth max", a.RankBandwidthGBs.Max, b.RankBandwidthGBs.Max)
		}
	}
	deadlock := fast.Verdict == sim.Deadlock && ref.Verdict == sim.Deadlock
	if !deadlock {
		eqAA := func(name string, a, b *sim.AppAwareStats) {
			if (a == nil) != (b == nil) || a != nil && *a != *b {
				add("%sapplication-aware choices: fast %+v, reference %+v", name, a, b)
			}
		}
		eqAA("", fast.AppAware, ref.AppAware)
		for j := range min(len(fast.Jobs), len(ref.Jobs)) {
			eqAA("job "+fast.Jobs[j].ID+" ", fast.Jobs[j].AppAware, ref.Jobs[j].AppAware)
		}
	}
	diffs = append(diffs, compareCounters(fast, ref, deadlock)...)
	diffs = append(diffs, compareDeliveries(fast.Deliveries, ref.Deliveries)...)
	return diffs
}

// compareCounters lists how the counters differ, at most a few per kind.
// Stalls still open when a deadlocked run ends run to its end instant,
// which is not compared then, nor are they.
func compareCounters(fast, ref *sim.Result, deadlock bool) []string {
	var diffs []string
	add := func(format string, args ...any) { diffs = append(diffs, fmt.Sprintf(format, args...)) }
	a, b := fast.Counters, ref.Counters
	if (a == nil) != (b == nil) {
		add("counters: fast %v, reference %v", a != nil, b != nil)
		return diffs
	}
	if a == nil {
		return nil
	}
	if a.Latency != b.Latency {
		add("latency: fast %+v, reference %+v", a.Latency, b.Latency)
	}
	if !deadlock && !slices.Equal(a.Series, b.Series) {
		add("counters over time: fast %+v, reference %+v", a.Series, b.Series)
	}
	if len(a.HCAs) != len(b.HCAs) || len(a.Links) != len(b.Links) {
		add("counters: fast %d HCAs %d links, reference %d HCAs %d links", len(a.HCAs), len(a.Links), len(b.HCAs), len(b.Links))
		return diffs
	}
	diffs = append(diffs, differing("HCA", a.HCAs, b.HCAs, func(x *sim.HCACounters) {
		if deadlock {
			x.StalledNs, x.StallsPerFlit = 0, 0
		}
	})...)
	diffs = append(diffs, differing("link", a.Links, b.Links, func(x *sim.LinkCounters) {
		if deadlock {
			x.StalledNs, x.Utilization = 0, 0
		}
	})...)
	for j := range min(len(fast.Jobs), len(ref.Jobs)) {
		x, y := fast.Jobs[j].Counters, ref.Jobs[j].Counters
		if (x == nil) != (y == nil) {
			add("job %s counters: fast %v, reference %v", fast.Jobs[j].ID, x != nil, y != nil)
			continue
		}
		if x == nil {
			continue
		}
		a, b := *x, *y
		if deadlock {
			a.StallsPerFlit, b.StallsPerFlit = 0, 0
		} else if !slices.Equal(a.Series, b.Series) {
			add("job %s counters over time: fast %+v, reference %+v", fast.Jobs[j].ID, a.Series, b.Series)
		}
		a.Series, b.Series = nil, nil
		if !reflect.DeepEqual(a, b) {
			add("job %s counters: fast %+v, reference %+v", fast.Jobs[j].ID, a, b)
		}
	}
	return diffs
}

// compareDeliveries matches packets by (source, sequence number) and
// reports the first few that differ.
func compareDeliveries(fast, ref []sim.Delivery) []string {
	key := func(a, b sim.Delivery) int {
		if a.Src != b.Src {
			return int(a.Src - b.Src)
		}
		return int(a.Seq - b.Seq)
	}
	f, r := slices.Clone(fast), slices.Clone(ref)
	slices.SortFunc(f, key)
	slices.SortFunc(r, key)
	var diffs []string
	i, j := 0, 0
	for (i < len(f) || j < len(r)) && len(diffs) < 5 {
		switch {
		case j >= len(r) || (i < len(f) && key(f[i], r[j]) < 0):
			diffs = append(diffs, fmt.Sprintf("packet %d/%d (to %d): delivered at %d ps by the fast simulator only", f[i].Src, f[i].Seq, f[i].Dst, f[i].DonePs))
			i++
		case i >= len(f) || key(f[i], r[j]) > 0:
			diffs = append(diffs, fmt.Sprintf("packet %d/%d (to %d): delivered at %d ps by the reference only", r[j].Src, r[j].Seq, r[j].Dst, r[j].DonePs))
			j++
		default:
			if f[i] != r[j] {
				diffs = append(diffs, fmt.Sprintf("packet %d/%d: fast to %d injected %d done %d, reference to %d injected %d done %d",
					f[i].Src, f[i].Seq, f[i].Dst, f[i].InjectedPs, f[i].DonePs, r[j].Dst, r[j].InjectedPs, r[j].DonePs))
			}
			i++
			j++
		}
	}
	return diffs
}

// differing reports the first few pairs of counters that differ once
// blank has cleared what is not compared.
func differing[T comparable](what string, a, b []T, blank func(*T)) []string {
	var diffs []string
	for i := range a {
		x, y := a[i], b[i]
		blank(&x)
		blank(&y)
		if x != y && len(diffs) < 5 {
			diffs = append(diffs, fmt.Sprintf("%s counters: fast %+v, reference %+v", what, x, y))
		}
	}
	return diffs
}
