package results

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// MixJob names the row that pools the jobs of a fragmented mix, whose
// jobs and ids change with every placement seed.
const MixJob = "mix"

// JobLevel summarizes one job of one group at one failure percentage over
// the seeds: the per-job rows of a campaign's tables.
type JobLevel struct {
	Group
	// Job is the job's id, or MixJob for the jobs of the fragmented mix.
	Job     string  `json:"job"`
	Pattern string  `json:"pattern"`
	Percent float64 `json:"fault_percent"`
	// N counts the job results used: of runs that completed, reached
	// steady state or (infinite traffic) hit the time limit; Incomplete
	// the finite ones among them that did not finish.
	N          int     `json:"n"`
	Incomplete int     `json:"incomplete,omitempty"`
	Ranks      float64 `json:"mean_ranks"`
	// CompletionNs is the mean completion time of the finite job's
	// finished runs, ThroughputGBs the mean payload rate.
	CompletionNs  float64 `json:"mean_completion_ns,omitempty"`
	ThroughputGBs float64 `json:"mean_throughput_gbs"`
	// Slowdown is the mean slowdown against the job alone, with its 95 %
	// confidence interval over the SlowdownN results that measured one.
	Slowdown   float64 `json:"mean_slowdown,omitempty"`
	SlowdownLo float64 `json:"slowdown_ci95_low,omitempty"`
	SlowdownHi float64 `json:"slowdown_ci95_high,omitempty"`
	SlowdownN  int     `json:"slowdown_n"`
	// EFIEffective and Links are the means of the job's γᵉ(I,R,j) and of
	// the inter-switch channels its paths cross (JobRecord).
	EFIEffective float64 `json:"mean_efi_effective"`
	Links        float64 `json:"mean_links"`
}

// JobRoutingLevel is the mean of a group's job routing metrics at one
// failure level (Tables 5.1 and 5.2 per failure level).
type JobRoutingLevel struct {
	Group
	Percent             float64 `json:"fault_percent"`
	N                   int     `json:"n"`
	EFIEffectiveMax     float64 `json:"mean_efi_effective_max"`
	EFIEffectiveJobMean float64 `json:"mean_efi_effective_job_mean"`
	DarkFiberPct        float64 `json:"mean_dark_fiber_pct"`
	LinksPerJobMean     float64 `json:"mean_links_per_job"`
}

// JobRoutingLevels averages the records' job routing metrics per group
// and failure level (every record whose workload ran).
func JobRoutingLevels(recs []Record) []JobRoutingLevel {
	order, by := groups(recs)
	var out []JobRoutingLevel
	for _, g := range order {
		var pcts firstSeen[float64]
		vals := map[float64][4][]float64{}
		for _, r := range by[g] {
			if r.JobRouting == nil {
				continue
			}
			pcts.add(r.FaultPercent)
			v := vals[r.FaultPercent]
			m := r.JobRouting
			for i, x := range []float64{float64(m.EFIEffectiveMax), m.EFIEffectiveJobMean, m.DarkFiberPct, m.LinksPerJobMean} {
				v[i] = append(v[i], x)
			}
			vals[r.FaultPercent] = v
		}
		sort.Float64s(pcts.list)
		for _, p := range pcts.list {
			v := vals[p]
			out = append(out, JobRoutingLevel{Group: g, Percent: p, N: len(v[0]), EFIEffectiveMax: mean(v[0]),
				EFIEffectiveJobMean: mean(v[1]), DarkFiberPct: mean(v[2]), LinksPerJobMean: mean(v[3])})
		}
	}
	return out
}

type jobKey struct {
	Group
	job string
}

// JobLevels summarizes every job per group and failure percentage, in the
// order of the records' points and the jobs' order within a record.
func JobLevels(recs []Record) []JobLevel {
	order, by := groups(recs)
	var out []JobLevel
	for _, g := range order {
		var jobs firstSeen[string]
		var pcts firstSeen[float64]
		type acc struct {
			pattern                                   string
			n, incomplete                             int
			ranks, completion, tput, slow, efi, links []float64
		}
		cells := map[jobKey]map[float64]*acc{}
		for _, r := range by[g] {
			if len(r.Jobs) == 0 {
				continue
			}
			pcts.add(r.FaultPercent)
			if !r.RoutingOK || (r.Verdict != Completed && r.Verdict != Steady && r.Verdict != NotConverged) {
				continue // no run, or a deadlock: no job result to count
			}
			for _, j := range r.Jobs {
				id := j.ID
				if j.Mix {
					id = MixJob
				}
				jobs.add(id)
				k := jobKey{g, id}
				if cells[k] == nil {
					cells[k] = map[float64]*acc{}
				}
				a := cells[k][r.FaultPercent]
				if a == nil {
					a = &acc{pattern: j.Pattern}
					cells[k][r.FaultPercent] = a
				}
				if a.pattern != j.Pattern {
					a.pattern = "various"
				}
				a.n++
				a.ranks = append(a.ranks, float64(j.Ranks))
				a.efi, a.links = append(a.efi, float64(j.EFIEffective)), append(a.links, float64(j.Links))
				switch {
				case j.Finite && !j.Completed:
					a.incomplete++
					continue
				case j.Finite:
					a.completion = append(a.completion, j.CompletionNs)
				}
				a.tput = append(a.tput, j.ThroughputGBs)
				if j.Slowdown > 0 {
					a.slow = append(a.slow, j.Slowdown)
				}
			}
		}
		sort.Float64s(pcts.list)
		for _, id := range jobs.list {
			for _, p := range pcts.list {
				a := cells[jobKey{g, id}][p]
				if a == nil {
					continue
				}
				l := JobLevel{Group: g, Job: id, Pattern: a.pattern, Percent: p, N: a.n, Incomplete: a.incomplete,
					Ranks: mean(a.ranks), CompletionNs: mean(a.completion), ThroughputGBs: mean(a.tput), SlowdownN: len(a.slow),
					EFIEffective: mean(a.efi), Links: mean(a.links)}
				l.Slowdown, l.SlowdownLo, l.SlowdownHi = meanCI(a.slow)
				out = append(out, l)
			}
		}
	}
	return out
}

func mean(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	return stat.Mean(x, nil)
}

// meanCI is the mean of x with its 95 % confidence interval (Student's t;
// the mean itself for fewer than two values).
func meanCI(x []float64) (m, lo, hi float64) {
	if len(x) == 0 {
		return 0, 0, 0
	}
	m = stat.Mean(x, nil)
	if len(x) < 2 {
		return m, m, m
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(x) - 1)}.Quantile(0.975)
	h := t * stat.StdDev(x, nil) / math.Sqrt(float64(len(x)))
	return m, m - h, m + h
}

// writeJobsMarkdown appends the per-job rows and the job routing
// metrics, when there are any.
func writeJobsMarkdown(b *strings.Builder, jobs []JobLevel, routing []JobRoutingLevel) {
	if len(jobs) == 0 {
		return
	}
	b.WriteString("\n## Jobs\n\nPer job, group and failure level, means over seeds. Completion is a finite job's time from its start to its last\n")
	b.WriteString("delivery (runs where it did not finish are counted as incomplete); the slowdown is against the job alone on the same\n")
	b.WriteString("nodes with the same routing, with its 95 % confidence interval. The jobs of a fragmented mix are pooled as \"" + MixJob + "\".\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Job | Pattern | Failed [%] | Ranks | n | Incomplete | Completion [µs] | Throughput [GB/s] | Slowdown | 95 % CI | Eff. EFI | Links |\n")
	b.WriteString("|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|\n")
	for _, l := range jobs {
		comp, slow, ci := "–", "–", "–"
		if l.CompletionNs > 0 {
			comp = f2(l.CompletionNs / 1000)
		}
		if l.SlowdownN > 0 {
			slow = strconv.FormatFloat(l.Slowdown, 'f', 3, 64)
			ci = strconv.FormatFloat(l.SlowdownLo, 'f', 3, 64) + " – " + strconv.FormatFloat(l.SlowdownHi, 'f', 3, 64)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %g | %.1f | %d | %d | %s | %s | %s | %s | %.1f | %.1f |\n", l.Topology, l.Routing, l.Traffic, l.Faults,
			l.Job, l.Pattern, l.Percent, l.Ranks, l.N, l.Incomplete, comp, f2(l.ThroughputGBs), slow, ci, l.EFIEffective, l.Links)
	}
	if len(routing) == 0 {
		return
	}
	b.WriteString("\n## Job routing\n\nThe metrics of seeds/001 §5.1 for the jobs, means over seeds: the effective edge forwarding index (Definition 5.1)\n")
	b.WriteString("over all jobs (max over the inter-switch channels) and per multi-switch job, the dark fiber percentage θ (Definition 5.2)\n")
	b.WriteString("and the inter-switch channels a job's paths cross (Tables 5.1 and 5.2).\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Failed [%] | n | Eff. EFI max | Eff. EFI job mean | Dark fiber [%] | Links per job |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range routing {
		fmt.Fprintf(b, "| %s | %s | %s | %s | %g | %d | %.1f | %.1f | %.1f | %.1f |\n", l.Topology, l.Routing, l.Traffic, l.Faults,
			l.Percent, l.N, l.EFIEffectiveMax, l.EFIEffectiveJobMean, l.DarkFiberPct, l.LinksPerJobMean)
	}
}

// WriteJobsCSV writes the per-job rows.
func WriteJobsCSV(w io.Writer, rep Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"topology", "routing", "traffic", "faults", "job", "pattern", "fault_percent", "mean_ranks", "n", "incomplete",
		"mean_completion_ns", "mean_throughput_gbs", "mean_slowdown", "slowdown_ci95_low", "slowdown_ci95_high", "slowdown_n",
		"mean_efi_effective", "mean_links"})
	g := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	for _, l := range rep.Jobs {
		cw.Write([]string{l.Topology, l.Routing, l.Traffic, l.Faults, l.Job, l.Pattern, strconv.FormatFloat(l.Percent, 'g', -1, 64),
			g(l.Ranks), strconv.Itoa(l.N), strconv.Itoa(l.Incomplete), g(l.CompletionNs), g(l.ThroughputGBs),
			g(l.Slowdown), g(l.SlowdownLo), g(l.SlowdownHi), strconv.Itoa(l.SlowdownN), g(l.EFIEffective), g(l.Links)})
	}
	cw.Flush()
	return cw.Error()
}

// jobFigures draws, per topology, traffic and job of the levels, one line
// per routing against the failure level: the mean slowdown when one was
// measured, else the mean completion time (finite jobs) or throughput,
// named job-<slug> (suffix names the failures entry).
func jobFigures(suffix, title string, levels []JobLevel) ([]Figure, error) {
	type key struct{ topo, traffic, job string }
	var order firstSeen[key]
	for _, l := range levels {
		order.add(key{l.Topology, l.Traffic, l.Job})
	}
	var figs []Figure
	for _, k := range order.list {
		var rows []JobLevel
		slowdowns, finite := true, true
		for _, l := range levels {
			if l.Topology == k.topo && l.Traffic == k.traffic && l.Job == k.job {
				rows = append(rows, l)
				slowdowns = slowdowns && l.SlowdownN > 0
				finite = finite && l.CompletionNs > 0
			}
		}
		ylabel, y := "mean throughput [GB/s]", func(l JobLevel) float64 { return l.ThroughputGBs }
		switch {
		case slowdowns:
			ylabel, y = "mean slowdown", func(l JobLevel) float64 { return l.Slowdown }
		case finite:
			ylabel, y = "mean completion time [µs]", func(l JobLevel) float64 { return l.CompletionNs / 1000 }
		}
		var routings firstSeen[string]
		for _, l := range rows {
			routings.add(l.Routing)
		}
		var series []Series
		for _, rt := range routings.list {
			s := Series{Name: rt}
			for _, l := range rows {
				if l.Routing == rt {
					s.X, s.Y = append(s.X, l.Percent), append(s.Y, y(l))
				}
			}
			series = append(series, s)
		}
		t := fmt.Sprintf("%s: job %s (%s)", k.topo, k.job, k.traffic)
		if title != "" {
			t += ", " + title
		}
		p, err := linePlot(t, "failed components [%]", ylabel, series)
		if err != nil {
			return figs, err
		}
		figs = append(figs, Figure{Name: "job-" + Slug(k.topo+"-"+k.traffic+"-"+k.job+"-"+suffix),
			Caption: fmt.Sprintf("%s: job %s (%s): %s per routing and failure level", k.topo, k.job, k.traffic, ylabel), Plot: p})
	}
	return figs, nil
}
