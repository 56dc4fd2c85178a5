package main

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"flitsim/configs/pipeline"
)

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
func printMixes(w io.Writer, rep *pipeline.MixesReport) {
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
			for i, jm := range pipeline.MixMetrics {
				v[i] += jm.Value(m.Metrics[n]) / float64(len(rep.Mixes))
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
