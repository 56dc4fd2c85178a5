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
	Percent       float64 `json:"fault_percent"`
	N             int     `json:"n"`
	PacketsLost   float64 `json:"mean_packets_lost"`
	PacketsResent float64 `json:"mean_packets_resent"`
	TablesUs      float64 `json:"mean_tables_after_us"`
	Recovered     int     `json:"recovered"`
	RecoveredUs   float64 `json:"mean_recovered_after_us"`
	Deadlocks     int     `json:"transient_deadlocks"`
	ThroughputGBs float64 `json:"mean_throughput_gbs"`
	IntactGBs     float64 `json:"mean_intact_gbs"`
	FailedGBs     float64 `json:"mean_failed_gbs"`
}

// TimedLevels summarizes the timed records per group and failure level.
func TimedLevels(recs []Record) []TimedLevel {
	order, by := groups(recs)
	var out []TimedLevel
	for _, g := range order {
		var pcts firstSeen[float64]
		rows := map[float64][]*Record{}
		for _, r := range by[g] {
			if r.Timed == nil {
				continue
			}
			pcts.add(r.FaultPercent)
			rows[r.FaultPercent] = append(rows[r.FaultPercent], r)
		}
		sort.Float64s(pcts.list)
		for _, p := range pcts.list {
			l := TimedLevel{Group: g, Percent: p, N: len(rows[p])}
			var lost, resent, tables, rec, gbs, intact, failed []float64
			for _, r := range rows[p] {
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
		"90 % of the lesser of the intact and the failed fabric's), and when, after the failure.\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Failed [%] | n | Lost | Resent | Tables [µs] | Recovered | After [µs] | Deadlocks | GB/s | Intact GB/s | Failed GB/s |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range levels {
		after := "–"
		if l.Recovered > 0 {
			after = fmt.Sprintf("%.1f", l.RecoveredUs)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %g | %d | %.1f | %.1f | %.1f | %d of %d | %s | %d | %.2f | %.2f | %.2f |\n", l.Topology, l.Routing, l.Traffic, l.Faults,
			l.Percent, l.N, l.PacketsLost, l.PacketsResent, l.TablesUs, l.Recovered, l.N, after, l.Deadlocks, l.ThroughputGBs, l.IntactGBs, l.FailedGBs)
	}
}

// timedPlot draws the throughput over time of topology topo's timed runs
// of traffic, a line per routing and failure level (the mean over the
// draws, window by window); nil when there are none.
func timedPlot(topo, traffic, title string, recs []Record) (*plot.Plot, error) {
	type key struct {
		routing string
		pct     float64
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
		k := key{r.Routing, r.FaultPercent}
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
		for w := range sums[k] {
			s.X, s.Y = append(s.X, float64(w)*step/1000), append(s.Y, sums[k][w]/float64(counts[k][w]))
		}
		series = append(series, s)
	}
	return linePlot(topo+", "+title+": through the reroute", "time [µs]", "throughput [GB/s]", series)
}
