package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/routing/engines"
)

// jobAware reports whether an engine routes for the running jobs (reads
// the jobs option), so that it is routed anew for every job mix.
func jobAware(name string) bool {
	e, err := engines.Find(name)
	return err == nil && e.JobAware
}

// mixReport is one job mix of `route --jobs --mixes`.
type mixReport struct {
	Seed    int64                         `json:"seed"`
	Jobs    int                           `json:"jobs"`
	Busy    int                           `json:"busy_hcas"`
	Metrics map[string]routing.JobMetrics `json:"metrics"`
}

// improvement is one cell pair of Tables 5.1/5.2: how much better the
// job-aware engine is than a baseline, at most and on average over the
// mixes, absolute and in percent of the baseline.
type improvement struct {
	Metric   string  `json:"metric"`
	Engine   string  `json:"engine"`
	Baseline string  `json:"baseline"`
	Max      float64 `json:"max"`
	MaxPct   float64 `json:"max_pct"`
	Avg      float64 `json:"avg"`
	AvgPct   float64 `json:"avg_pct"`
}

// mixesReport is the JSON of `route --jobs --mixes`.
type mixesReport struct {
	Network      string        `json:"network"`
	Mixes        []mixReport   `json:"mixes"`
	Improvements []improvement `json:"improvements"`
}

// jobMetric is one metric of Tables 5.1/5.2 and which way is better.
type jobMetric struct {
	key    string
	lower  bool // lower is better
	value  func(routing.JobMetrics) float64
	points bool // a percentage: improvements in percentage points
}

var jobMetrics = []jobMetric{
	{"efi_effective_max", true, func(m routing.JobMetrics) float64 { return float64(m.EFIEffectiveMax) }, false},
	{"efi_effective_job_mean", true, func(m routing.JobMetrics) float64 { return m.EFIEffectiveJobMean }, false},
	{"dark_fiber_pct", true, func(m routing.JobMetrics) float64 { return m.DarkFiberPct }, true},
	{"links_per_job_mean", false, func(m routing.JobMetrics) float64 { return m.LinksPerJobMean }, false},
}

// routeMixes routes net for seeds first..first+n-1 of the workload: the
// job-aware engines per mix, the others once, and measures every mix under
// every engine.
func routeMixes(net *fabric.Network, w *configs.Workload, names []string, opts routing.Options, first int64, n int, progress io.Writer) (*mixesReport, error) {
	fixed := map[string]*routing.Tables{}
	for _, name := range names {
		if jobAware(name) {
			continue
		}
		rt, err := pipeline.Route(net, name, opts)
		if err != nil {
			return nil, err
		}
		if !rt.OK() {
			return nil, badInput("%s cannot route %s: %s", name, net.Name, rt.Problem())
		}
		fixed[name] = rt.Tables
	}
	rep := &mixesReport{Network: net.Describe()}
	for k := range n {
		seed := first + int64(k)
		jobs, _, err := w.Resolve(net, seed)
		if err != nil {
			return nil, asInput(err)
		}
		mr := mixReport{Seed: seed, Jobs: len(jobs), Metrics: map[string]routing.JobMetrics{}}
		for _, j := range jobs {
			mr.Busy += len(j)
		}
		for _, name := range names {
			tb := fixed[name]
			if tb == nil {
				o := opts
				o.Jobs = jobs
				rt, err := pipeline.Route(net, name, o)
				if err != nil {
					return nil, err
				}
				if !rt.OK() {
					return nil, fmt.Errorf("%s on mix %d: %s", name, seed, rt.Problem())
				}
				tb = rt.Tables
			}
			m, err := routing.MeasureJobs(net, tb, jobs)
			if err != nil {
				return nil, err
			}
			m.PerJob = nil
			mr.Metrics[name] = m
		}
		rep.Mixes = append(rep.Mixes, mr)
		if progress != nil {
			fmt.Fprintf(progress, "\rmix %d/%d", k+1, n)
		}
	}
	if progress != nil && n > 0 {
		fmt.Fprintln(progress)
	}
	for _, e := range names {
		if !jobAware(e) {
			continue
		}
		for _, jm := range jobMetrics {
			for _, b := range names {
				if b != e {
					rep.Improvements = append(rep.Improvements, improve(rep.Mixes, jm, e, b))
				}
			}
		}
	}
	return rep, nil
}

// improve computes the improvement of engine e over baseline b: per mix
// the gain (baseline − e where lower is better, e − baseline otherwise);
// Max is the largest gain with its percentage of the baseline at that mix,
// Avg the mean gain with its percentage of the mean baseline. For a
// percentage metric both are percentage points (MaxPct = Max).
func improve(mixes []mixReport, jm jobMetric, e, b string) improvement {
	im := improvement{Metric: jm.key, Engine: e, Baseline: b}
	var sum, base float64
	for i, m := range mixes {
		x, y := jm.value(m.Metrics[e]), jm.value(m.Metrics[b])
		gain := x - y
		if jm.lower {
			gain = y - x
		}
		if i == 0 || gain > im.Max {
			im.Max, im.MaxPct = gain, pct(gain, y)
		}
		sum += gain
		base += y
	}
	if len(mixes) > 0 {
		im.Avg = sum / float64(len(mixes))
		im.AvgPct = pct(sum, base)
	}
	if jm.points {
		im.MaxPct, im.AvgPct = im.Max, im.Avg
	}
	return im
}

func pct(gain, base float64) float64 {
	if base == 0 {
		return 0
	}
	return 100 * gain / base
}

// printJobMetrics prints the job metrics of one workload per engine.
func printJobMetrics(w io.Writer, reports []routeReport, ids []string, sizes []int) {
	busy := 0
	for _, s := range sizes {
		busy += s
	}
	fmt.Fprintf(w, "jobs: %d on %d HCAs\n", len(ids), busy)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "routing\teff. EFI max\tper job\tdark fiber %\tlinks per job\tmulti-switch jobs\t")
	for _, r := range reports {
		if r.JobMetrics == nil {
			continue
		}
		m := r.JobMetrics
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.2f\t%.1f\t%d/%d\t\n", r.Routing, m.EFIEffectiveMax, m.EFIEffectiveJobMean, m.DarkFiberPct, m.LinksPerJobMean, m.MultiSwitchJobs, m.Jobs)
	}
	tw.Flush()
}

// printMixes prints the improvements as Tables 5.1/5.2 do.
func printMixes(w io.Writer, rep *mixesReport) {
	fmt.Fprintln(w, rep.Network)
	fmt.Fprintf(w, "%d job mixes (seeds %d-%d); means over the mixes:\n", len(rep.Mixes), rep.Mixes[0].Seed, rep.Mixes[len(rep.Mixes)-1].Seed)
	var names []string
	for n := range rep.Mixes[0].Metrics {
		names = append(names, n)
	}
	slices.Sort(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "routing\teff. EFI max\tper job\tdark fiber %\tlinks per job\t")
	for _, n := range names {
		var v [4]float64
		for _, m := range rep.Mixes {
			for i, jm := range jobMetrics {
				v[i] += jm.value(m.Metrics[n]) / float64(len(rep.Mixes))
			}
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.2f\t%.1f\t\n", n, v[0], v[1], v[2], v[3])
	}
	tw.Flush()
	fmt.Fprintln(w, "improvement by the job-aware engine (as Tables 5.1/5.2: max. / in %, avg. / in %; dark fiber in percentage points):")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "metric\tengine\tvs\tmax.\tin %\tavg.\tin %\t")
	for _, im := range rep.Improvements {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t\n", im.Metric, im.Engine, im.Baseline, im.Max, im.MaxPct, im.Avg, im.AvgPct)
	}
	tw.Flush()
}
