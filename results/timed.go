package results

import (
	"fmt"
	"sort"
	"strings"

	"gonum.org/v1/plot"
)

// TimedLevel summarizes the runs through a reroute ([faults.timed]) of one
// group and failure level, means over the seeds: packets lost and resent,
// when every switch held its new tables (from the failure), how many runs
// recovered and when (mean over those that did), how many deadlocked, and
// the throughput of the run, of the intact fabric and of the failed
// fabric rerouted from the start.
type TimedLevel struct {
	Group
	Percent float64 `json:"fault_percent"`
	// Sweep is the [faults.timed] variant of an entry that sweeps keys.
	Sweep         string  `json:"sweep,omitempty"`
	N             int     `json:"n"`
	PacketsLost   float64 `json:"mean_packets_lost"`
	PacketsResent float64 `json:"mean_packets_resent"`
	TablesUs      float64 `json:"mean_tables_after_us"`
	Recovered     int     `json:"recovered"`
	RecoveredUs   float64 `json:"mean_recovered_after_us"`
	Deadlocks     int     `json:"transient_deadlocks"`
	// Loops counts the runs whose table states looped some pair (of
	// those followed).
	Loops         int     `json:"transient_loops"`
	ThroughputGBs float64 `json:"mean_throughput_gbs"`
	IntactGBs     float64 `json:"mean_intact_gbs"`
	FailedGBs     float64 `json:"mean_failed_gbs"`
}

// timedLevel is a failure level and [faults.timed] variant.
type timedLevel struct {
	pct   float64
	sweep string
}

// TimedLevels summarizes the timed records per group, failure level and
// [faults.timed] variant (in the order first seen within a level).
func TimedLevels(recs []Record) []TimedLevel {
	order, by := groups(recs)
	var out []TimedLevel
	for _, g := range order {
		var levels firstSeen[timedLevel]
		rows := map[timedLevel][]*Record{}
		for _, r := range by[g] {
			if r.Timed == nil {
				continue
			}
			k := timedLevel{r.FaultPercent, r.Timed.Sweep}
			levels.add(k)
			rows[k] = append(rows[k], r)
		}
		sort.SliceStable(levels.list, func(i, j int) bool { return levels.list[i].pct < levels.list[j].pct })
		for _, k := range levels.list {
			l := TimedLevel{Group: g, Percent: k.pct, Sweep: k.sweep, N: len(rows[k])}
			var lost, resent, tables, rec, gbs, intact, failed []float64
			for _, r := range rows[k] {
				t := r.Timed
				lost, resent = append(lost, float64(t.PacketsLost)), append(resent, float64(t.PacketsResent))
				tables = append(tables, (t.TablesNs-t.FailNs)/1000)
				if t.RecoveredNs >= 0 {
					l.Recovered++
					rec = append(rec, (t.RecoveredNs-t.FailNs)/1000)
				}
				if t.TransientDeadlock {
					l.Deadlocks++
				}
				if t.MaxLooping > 0 {
					l.Loops++
				}
				gbs, intact, failed = append(gbs, r.ThroughputGBs), append(intact, t.IntactGBs), append(failed, t.FailedGBs)
			}
			l.PacketsLost, l.PacketsResent, l.TablesUs = mean(lost), mean(resent), mean(tables)
			if len(rec) > 0 {
				l.RecoveredUs = mean(rec)
			}
			l.ThroughputGBs, l.IntactGBs, l.FailedGBs = mean(gbs), mean(intact), mean(failed)
			out = append(out, l)
		}
	}
	return out
}

// writeTimedMarkdown adds the timed levels to a Markdown report.
func writeTimedMarkdown(b *strings.Builder, levels []TimedLevel) {
	if len(levels) == 0 {
		return
	}
	b.WriteString("\n## Failures while traffic runs\n\nThe cables fail during the run and the subnet manager reroutes ([faults.timed]); means over seeds. " +
		"Tables: when every switch held its new tables, after the failure; recovered: runs whose throughput came back (every window from then on at least " +
		"90 % of the lesser of the intact and the failed fabric's), and when, after the failure; variant: the swept [faults.timed] keys; " +
		"loops: runs whose table states sent some HCA pair round a forwarding loop.\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Failed [%] | Variant | n | Lost | Resent | Tables [µs] | Recovered | After [µs] | Loops | Deadlocks | GB/s | Intact GB/s | Failed GB/s |\n")
	b.WriteString("|---|---|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range levels {
		after, sweep := "–", l.Sweep
		if l.Recovered > 0 {
			after = fmt.Sprintf("%.1f", l.RecoveredUs)
		}
		if sweep == "" {
			sweep = "–"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %g | %s | %d | %.1f | %.1f | %.1f | %d of %d | %s | %d | %d | %.2f | %.2f | %.2f |\n", l.Topology, l.Routing, l.Traffic, l.Faults,
			l.Percent, sweep, l.N, l.PacketsLost, l.PacketsResent, l.TablesUs, l.Recovered, l.N, after, l.Loops, l.Deadlocks, l.ThroughputGBs, l.IntactGBs, l.FailedGBs)
	}
}

// timedPlot draws the throughput over time of topology topo's timed runs
// of traffic, a line per routing and failure level (the mean over the
// draws, window by window); nil when there are none.
func timedPlot(topo, traffic, title string, recs []Record) (*plot.Plot, error) {
	type key struct {
		routing string
		pct     float64
		sweep   string
	}
	var order firstSeen[key]
	sums := map[key][]float64{}
	counts := map[key][]int{}
	step := 0.0
	for i := range recs {
		r := &recs[i]
		if r.Timed == nil || r.Topology != topo || trafficLabel(r) != traffic {
			continue
		}
		k := key{r.Routing, r.FaultPercent, r.Timed.Sweep}
		order.add(k)
		step = r.Timed.WindowNs
		for len(sums[k]) < len(r.Timed.Windows) {
			sums[k], counts[k] = append(sums[k], 0), append(counts[k], 0)
		}
		for w, x := range r.Timed.Windows {
			sums[k][w] += x
			counts[k][w]++
		}
	}
	if len(order.list) == 0 {
		return nil, nil
	}
	var series []Series
	for _, k := range order.list {
		s := Series{Name: fmt.Sprintf("%s, %g %%", k.routing, k.pct)}
		if k.sweep != "" {
			s.Name += ", " + k.sweep
		}
		for w := range sums[k] {
			s.X, s.Y = append(s.X, float64(w)*step/1000), append(s.Y, sums[k][w]/float64(counts[k][w]))
		}
		series = append(series, s)
	}
	return linePlot(topo+", "+title+": through the reroute", "time [µs]", "throughput [GB/s]", series)
}
