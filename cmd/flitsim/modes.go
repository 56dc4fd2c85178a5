package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"flitsim/configs/pipeline"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// modesReport is what `flitsim jobs modes --json` prints: per jobs file
// its modes (default resolved), the summary and every run.
type modesReport struct {
	Network   string          `json:"network"`
	Modes     []string        `json:"modes"`
	Seeds     []uint64        `json:"seeds"`
	Workloads []modesWorkload `json:"workloads"`
}

type modesWorkload struct {
	JobsFile string                 `json:"jobs_file"`
	Modes    []string               `json:"modes"`
	Summary  []pipeline.ModeSummary `json:"summary"`
	Runs     []pipeline.ModeRun     `json:"runs"`
}

func jobsModes(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("jobs modes", "jobs modes SPEC|FILE --jobs FILE[,FILE...] [--modes A,B,...] [--seeds N [--first-seed F]] [--jobs-seed S] [--plot FILE.svg|.png] [--hw key=value,...] [--sim key=value,...] [--spread] [-j N] [-o DIR [--kept]] [--json]",
		"Compares adaptive routing modes on workloads as seeds/004 §5 does: one fixed placement of each\n"+
			"jobs file's jobs (several files: one benchmark each, one table and one figure), each mode (the engine: jobs without a routing of their own take it, e.g.\n"+
			"the measured job, while a noise job keeps its routing = \"ugal\") run on the same traffic seeds\n"+
			"1..N (or F..F+N-1), which pairs the modes as the paper's alternation on successive iterations does. Prints per\n"+
			"finite job and mode the completion times' median and quartiles normalized to the first mode's\n"+
			"median, the median's 95 % confidence interval, and for app-aware the share of the payload sent\n"+
			"with the default mode and the share of its decisions that switched the mode. A mode named\n"+
			"default is ugal, or ugal-imb when the file's first job is an all-to-all (Aries' MPI_Alltoall\n"+
			"default). --plot draws the paper's box plots (Figs. 8-10).", stderr)
	jobsFile := fs.String("jobs", "", "jobs files (TOML, docs/jobs/), comma-separated")
	modesFlag := fs.String("modes", "default,ugal-high,app-aware", "adaptive routing modes, comma-separated; the first is the reference (1.0)")
	nSeeds := fs.Int("seeds", 10, "traffic seeds 1..N per mode")
	firstSeed := fs.Int("first-seed", 1, "with --seeds N: run seeds F..F+N-1 instead of 1..N (splits one comparison over machines or sessions; a run depends on its seed alone)")
	jobsSeed := fs.Int64("jobs-seed", -1, "seed of the jobs file's random placements (default: the file's)")
	plotFile := fs.String("plot", "", "write the box plots to this .svg or .png file")
	hwFlag := fs.String("hw", "", "hardware overrides key=value,... (flitsim params)")
	simFlag := fs.String("sim", "", "overrides key=value,... with the keys of a campaign's [sim] table (e.g. appaware_threshold=8192)")
	maxTime := declVar(fs, "max-time", sim.ParamDecls(), "max_time", "simulated time limit per run (default: 10 s with a finite job, else 10 ms)", new(sim.Params))
	workers := fs.Int("j", 1, "simulations at once (results do not depend on it)")
	asJSON := fs.Bool("json", false, "print JSON (every run's job results too)")
	outDir := fs.String("o", "", "keep every run in this directory as it finishes (one JSON file a run); run the same command again to resume a killed comparison, or to summarize and plot a finished one without simulating")
	keptOnly := fs.Bool("kept", false, "with -o: run nothing, summarize and plot the runs kept there (each jobs file with the seeds of 1..N it holds), also while another comparison is writing there")
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	switch {
	case *jobsFile == "":
		return badInput("--jobs: a jobs file is required")
	case *nSeeds < 1:
		return badInput("--seeds %d: want 1 or more", *nSeeds)
	case *firstSeed < 1:
		return badInput("--first-seed %d: want 1 or more", *firstSeed)
	case *workers < 1:
		return badInput("-j %d: want 1 or more", *workers)
	case *jobsSeed < -1:
		return badInput("--jobs-seed %d: want a seed ≥ 0", *jobsSeed)
	case *keptOnly && *outDir == "":
		return badInput("--kept: summarizes the runs kept in -o DIR; give -o")
	}
	if err := plotFileError(*plotFile); err != nil {
		return err
	}
	p, err := simParams(*hwFlag, *simFlag)
	if err != nil {
		return err
	}
	if mt := int64(maxTime.x.(float64)); mt != 0 {
		p.MaxTime = mt
	}
	files := strings.Split(*jobsFile, ",")
	var store *pipeline.ModeDir
	switch {
	case *keptOnly: // reading alone: a comparison still running there may be summarized
		if store, err = pipeline.ReadModeDir(*outDir); err != nil {
			return badInput("-o: %v", err)
		}
	case *outDir != "":
		if store, err = pipeline.OpenModeDir(*outDir, "flitsim jobs modes"); err != nil {
			return badInput("-o: %v", err)
		}
		defer store.Close()
	}
	rep := modesReport{Modes: strings.Split(*modesFlag, ",")}
	for s := *firstSeed; s < *firstSeed+*nSeeds; s++ {
		rep.Seeds = append(rep.Seeds, uint64(s))
	}
	var mcs []pipeline.Modes
	for _, f := range files {
		net, jobs, err := placedJobs(spec, f, *jobsSeed, p)
		if err != nil {
			return err
		}
		rep.Network = net.Name
		w := modesWorkload{JobsFile: f}
		for _, m := range rep.Modes {
			if m == "default" {
				m = sim.AppAwareDefault(jobs[0].Traffic.Kind).String()
			}
			if _, err := routing.ParseMode(m); err != nil {
				return badInput("--modes: %v", err)
			}
			w.Modes = append(w.Modes, m)
		}
		opts, err := rf.options(net, w.Modes)
		if err != nil {
			return err
		}
		rep.Workloads = append(rep.Workloads, w)
		mc := pipeline.Modes{Net: net, Jobs: jobs, Modes: w.Modes, Seeds: rep.Seeds, Options: opts, Params: p, Workers: *workers, Build: version(), KeptOnly: *keptOnly}
		if store != nil {
			key, desc, err := modesWorkloadKey(spec, f, mc)
			if err != nil {
				return err
			}
			if mc.Store, err = store.Workload(key, desc); err != nil {
				return err
			}
		}
		mcs = append(mcs, mc)
	}
	total := len(files) * len(rep.Modes) * len(rep.Seeds)
	start := time.Now()
	for i := range mcs {
		before := i * len(rep.Modes) * len(rep.Seeds)
		mcs[i].Progress = func(done, _ int) {
			fmt.Fprintf(stderr, "\r%d/%d runs, %s", before+done, total, time.Since(start).Round(time.Second))
		}
		runs, err := mcs[i].Run()
		if err != nil {
			fmt.Fprintln(stderr)
			return asInput(fmt.Errorf("%s: %w", files[i], err))
		}
		if len(runs) == 0 { // --kept: nothing kept for this file yet
			fmt.Fprintf(stderr, "\n%s: no runs kept, left out\n", files[i])
			continue
		}
		w := &rep.Workloads[i]
		w.Runs, w.Summary = runs, pipeline.SummarizeModes(runs, w.Modes)
		builds := map[string]int{}
		for _, r := range runs {
			builds[r.Build]++
		}
		if len(builds) > 1 {
			fmt.Fprintf(stderr, "\nwarning: %s: the kept runs come from %d flitsim builds (%v); remove the directory's runs to run them all with this one\n", files[i], len(builds), builds)
		}
	}
	fmt.Fprintln(stderr)
	rep.Workloads = slices.DeleteFunc(rep.Workloads, func(w modesWorkload) bool { return w.Runs == nil })
	if len(rep.Workloads) == 0 {
		return badInput("-o %s: no runs kept for these jobs files and parameters", *outDir)
	}
	if *plotFile != "" {
		if err := modesPlot(*plotFile, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	net, err := loadNetwork(spec)
	if err != nil {
		return err
	}
	last := *firstSeed + *nSeeds - 1
	seeds := fmt.Sprintf("%d seeds per mode (%d..%d)", *nSeeds, *firstSeed, last)
	if *keptOnly {
		seeds = fmt.Sprintf("the runs kept in %s of seeds %d..%d", *outDir, *firstSeed, last)
	}
	fmt.Fprintf(stdout, "%s: %s, times normalized to the median of %s\n", net.Describe(), seeds, rep.Modes[0])
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "job\tmode\truns\tmedian µs\tnormalized\t95% CI\tq1-q3\tlatency µs\tstalls/flit\tdefault share\tswitches\t")
	for _, s := range rep.summary() {
		share, sw := "-", "-"
		if s.DefaultShare != nil {
			share = fmt.Sprintf("%.0f %%", 100**s.DefaultShare)
		}
		if s.SwitchRate != nil {
			sw = fmt.Sprintf("%.0f %%", 100**s.SwitchRate)
		}
		med, norm, ci, iqr, lat, stalls := "-", "-", "-", "-", "-", "-"
		if s.Runs > 0 { // a mode without a completed (or kept) run has no figures
			med = fmt.Sprintf("%.2f", s.CompletionNs.Median/1000)
			lat, stalls = fmt.Sprintf("%.3f", s.LatencyNs/1000), fmt.Sprintf("%.4f", s.StallsPerFlit)
			if s.Normalized.Median > 0 { // the first mode has runs to normalize by
				norm = fmt.Sprintf("%.3f", s.Normalized.Median)
				ci = fmt.Sprintf("%.3f-%.3f", s.MedianLo, s.MedianHi)
				iqr = fmt.Sprintf("%.3f-%.3f", s.Normalized.Q1, s.Normalized.Q3)
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", s.Job, s.Mode, s.Runs, med, norm, ci, iqr, lat, stalls, share, sw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return nil
}

// modesWorkloadDesc is what a stored workload's runs depend on besides the
// mode and the seed (workload.json of its directory under -o).
type modesWorkloadDesc struct {
	Spec string `json:"spec"`
	// SpecSHA256 is the network file's digest when the spec names a file.
	SpecSHA256 string          `json:"spec_sha256,omitempty"`
	JobsFile   string          `json:"jobs_file"`
	Jobs       []traffic.Job   `json:"jobs"`
	Params     sim.Params      `json:"params"`
	Options    routing.Options `json:"options"`
}

// modesWorkloadKey names a workload's directory under -o by a digest of
// everything its runs depend on but the mode and the seed: the network
// (its file's bytes when spec is a file), the jobs as placed, the
// parameters and the routing options, after the jobs file's base name
// for the reader (its folder is not keyed: a moved file keeps its runs).
func modesWorkloadKey(spec, jobsFile string, m pipeline.Modes) (string, modesWorkloadDesc, error) {
	d := modesWorkloadDesc{Spec: spec, JobsFile: jobsFile, Jobs: m.Jobs, Params: m.Params, Options: m.Options}
	if b, err := os.ReadFile(spec); err == nil {
		d.SpecSHA256 = fmt.Sprintf("%x", sha256.Sum256(b))
	}
	keyed := d
	keyed.JobsFile = ""
	b, err := json.Marshal(keyed)
	if err != nil {
		return "", d, fmt.Errorf("-o: describing %s: %w", jobsFile, err)
	}
	name := results.Slug(strings.TrimSuffix(filepath.Base(jobsFile), filepath.Ext(jobsFile)))
	return fmt.Sprintf("%s-%x", name, sha256.Sum256(b))[:len(name)+17], d, nil
}

// summary lists every workload's summary rows in order.
func (r modesReport) summary() []pipeline.ModeSummary {
	var out []pipeline.ModeSummary
	for _, w := range r.Workloads {
		out = append(out, w.Summary...)
	}
	return out
}

// modesPlot draws a box per job and mode, normalized to the first mode's
// median, each job labelled as the paper labels its tests: the job, the
// first mode's median and app-aware's share of default traffic.
func modesPlot(file string, rep modesReport) error {
	var groups []results.BoxGroup
	n := len(rep.Modes)
	for _, w := range rep.Workloads {
		for i := 0; i+n <= len(w.Summary); i += n {
			ss := w.Summary[i : i+n]
			label := fmt.Sprintf("%s %.0fµs", ss[0].Job, ss[0].CompletionNs.Median/1000)
			g := results.BoxGroup{}
			for _, s := range ss {
				g.Boxes = append(g.Boxes, s.Normalized)
				if s.DefaultShare != nil {
					label += fmt.Sprintf(" %.0f%%", 100**s.DefaultShare)
				}
			}
			g.Label = label
			groups = append(groups, g)
		}
	}
	title := fmt.Sprintf("%s: execution time by routing mode", rep.Network)
	return results.BoxPlot(file, title, "time / median of "+rep.Modes[0], rep.Modes, groups, 1)
}
