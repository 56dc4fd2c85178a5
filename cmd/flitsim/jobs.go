package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric/param"
	"flitsim/results"
	"flitsim/sim"
	"flitsim/traffic"
)

const jobsHelp = `
Subcommands:
  sweep SPEC --jobs FILE --set JOB.KEY=V1,V2,...   slowdown of one job as one key of another varies, per routing
  modes SPEC --jobs FILE [--modes A,B,...]         adaptive routing modes compared on one placement (seeds/004 §5)
  from-slurm [--map FILE | --fabric SPEC] [-o FILE] the running Slurm jobs as a jobs file
  replay SPEC --history FILE [--routing ...]       a job history replayed: SAR's reroutes, Fig. 5.8, Tables 5.1/5.2
  history SPEC [--jobs N] [-o FILE]                a synthetic job history of the fabric (sacct's format)

Jobs files (docs/jobs/) describe workloads; flitsim sim --jobs simulates one,
flitsim route --jobs measures the routing per job.`

func jobsCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, "Usage: flitsim jobs SUBCOMMAND [arguments]\n%s\n", jobsHelp)
		if len(args) == 0 {
			return badInput("missing subcommand (sweep, modes, from-slurm, replay, history)")
		}
		return nil
	}
	switch args[0] {
	case "sweep":
		return jobsSweep(args[1:], stdout, stderr)
	case "modes":
		return jobsModes(args[1:], stdout, stderr)
	case "from-slurm":
		return jobsFromSlurm(args[1:], stdout, stderr)
	case "replay":
		return jobsReplay(args[1:], stdout, stderr)
	case "history":
		return jobsHistory(args[1:], stdout, stderr)
	}
	return badInput("unknown subcommand %q (sweep, modes, from-slurm, replay, history)", args[0])
}

// sweepPoint is one simulation of a sweep (pipeline.Sweep).
type sweepPoint = pipeline.SweepPoint

// sweepReport is what `flitsim jobs sweep --json` prints.
type sweepReport struct {
	Network  string       `json:"network"`
	JobsFile string       `json:"jobs_file"`
	Job      string       `json:"job"`
	Key      string       `json:"key"`
	Values   []float64    `json:"values"`
	Routings []string     `json:"routings"`
	Points   []sweepPoint `json:"points"`
}

func jobsSweep(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("jobs sweep", "jobs sweep SPEC|FILE --jobs FILE --set JOB.KEY=V1,V2,... [--job ID] [--routing A,B,...] [--plot FILE.svg|.png] [--jobs-seed S] [--traffic-seed S] [--max-time D] [--hw key=value,...] [--json]",
		"Measures how one job slows down as one traffic key of another job varies, per routing: e.g. an\n"+
			"all-to-all beside a noise job whose load goes from 0 to 1 (--set noise.load=0,0.25,0.5,0.75,1).\n"+
			"Each point simulates the workload and compares the measured job (--job, default the first) with\n"+
			"its run alone on the same nodes and tables. A load of 0 removes the varied job. --plot draws the\n"+
			"slowdown against the value, one line per routing.", stderr)
	jobsFile := fs.String("jobs", "", "jobs file (TOML, docs/jobs/)")
	set := fs.String("set", "", "the swept key and its values: JOB.KEY=V1,V2,... (KEY: "+strings.Join(param.Keys(sweepDecls()), ", ")+")")
	measured := fs.String("job", "", "the job whose slowdown is measured (default: the first)")
	engines := fs.String("routing", "dfsssp", "routing engines, comma-separated")
	plotFile := fs.String("plot", "", "write the plot to this .svg or .png file")
	jobsSeed := fs.Int64("jobs-seed", -1, "seed of the jobs file's random placements (default: the file's)")
	seed := fs.Uint64("traffic-seed", 1, "seed of the traffic streams")
	maxTime := declVar(fs, "max-time", sim.ParamDecls(), "max_time", "simulated time limit per run (default: 10 s with a finite job, else 10 ms)", new(sim.Params))
	hwFlag := fs.String("hw", "", "hardware overrides key=value,... (flitsim params)")
	asJSON := fs.Bool("json", false, "print JSON")
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	if *jobsFile == "" {
		return badInput("--jobs: a jobs file is required")
	}
	jobID, key, vals, err := parseSet(*set)
	if err != nil {
		return err
	}
	if *plotFile != "" && !strings.HasSuffix(*plotFile, ".svg") && !strings.HasSuffix(*plotFile, ".png") {
		return badInput("--plot %q: want a .svg or .png file", *plotFile)
	}
	if *jobsSeed < -1 {
		return badInput("--jobs-seed %d: want a seed ≥ 0", *jobsSeed)
	}
	p, err := simParams(*hwFlag, "")
	if err != nil {
		return err
	}
	p.Seed, p.MaxTime = *seed, int64(maxTime.x.(float64))
	net, jobs, err := placedJobs(spec, *jobsFile, *jobsSeed, p)
	if err != nil {
		return err
	}
	swept, meas, err := sweepJobs(jobs, jobID, *measured, key, vals, *set, *jobsFile)
	if err != nil {
		return err
	}
	sw := pipeline.Sweep{Net: net, Jobs: jobs, Swept: swept, Measured: meas, Key: key, Values: vals,
		Engines: strings.Split(*engines, ","), Params: p}
	for _, eng := range sw.Engines {
		opts, err := rf.options(net, []string{eng})
		if err != nil {
			return err
		}
		sw.Options = append(sw.Options, opts)
	}
	if !*asJSON {
		sw.Progress = func(done, total int) { fmt.Fprintf(stderr, "\r%d/%d points", done, total) }
	}
	pts, err := sw.Run()
	if err != nil {
		return asInput(err)
	}
	if !*asJSON {
		fmt.Fprintln(stderr)
	}
	rep := sweepReport{Network: net.Name, JobsFile: *jobsFile, Job: jobs[meas].ID, Key: jobID + "." + key, Values: vals,
		Routings: sw.Engines, Points: pts}
	if *plotFile != "" {
		if err := sweepPlot(*plotFile, rep, net.Name); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s: slowdown of job %s (%d ranks) as %s varies\n", net.Describe(), rep.Job, len(jobs[meas].Ranks), rep.Key)
	if err := sweepTable(stdout, rep, key); err != nil {
		return err
	}
	if *plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return nil
}

// sweepJobs finds the swept job (--set JOB.KEY) and the measured one
// (--job, default the first) among the placed jobs and checks the swept
// values against the key's declaration.
func sweepJobs(jobs []traffic.Job, jobID, measured, key string, vals []float64, set, jobsFile string) (swept, meas int, err error) {
	swept, meas = -1, 0
	for i, j := range jobs {
		if j.ID == jobID {
			swept = i
		}
		if j.ID == measured {
			meas = i
		}
	}
	if swept < 0 {
		return 0, 0, badInput("--set %s: no job %q in %s", set, jobID, jobsFile)
	}
	if measured != "" && jobs[meas].ID != measured {
		return 0, 0, badInput("--job %q: no such job in %s", measured, jobsFile)
	}
	if meas == swept {
		return 0, 0, badInput("--set %s: the swept job is the measured one (--job)", set)
	}
	decl, _ := param.Find(sweepDecls(), key)
	for _, v := range vals {
		if v == 0 && key == "load" {
			continue // removes the job
		}
		if err := decl.Check(v); err != nil {
			return 0, 0, badInput("--set %s: %v", set, err)
		}
	}
	return swept, meas, nil
}

// sweepPlot draws a sweep's slowdown against the value, one line per
// routing.
func sweepPlot(file string, rep sweepReport, network string) error {
	series := make([]results.Series, len(rep.Routings))
	for i, eng := range rep.Routings {
		series[i].Name = eng
		for _, pt := range rep.Points {
			if pt.Routing == eng {
				series[i].X = append(series[i].X, pt.Value)
				series[i].Y = append(series[i].Y, pt.Slowdown)
			}
		}
	}
	title := fmt.Sprintf("%s on %s: slowdown as %s varies", rep.Job, network, rep.Key)
	return results.LinePlot(file, title, rep.Key, "slowdown of "+rep.Job, series)
}

// sweepTable prints a sweep's slowdowns, a row per value, a column per
// routing.
func sweepTable(w io.Writer, rep sweepReport, key string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, key+"\t")
	for _, eng := range rep.Routings {
		fmt.Fprint(tw, eng+"\t")
	}
	fmt.Fprintln(tw)
	for vi, v := range rep.Values {
		fmt.Fprintf(tw, "%g\t", v)
		for ri := range rep.Routings {
			fmt.Fprintf(tw, "%.3f\t", rep.Points[ri*len(rep.Values)+vi].Slowdown)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// parseSet reads JOB.KEY=V1,V2,... with KEY a declared job traffic key.
func parseSet(s string) (job, key string, vals []float64, err error) {
	lhs, rhs, ok := strings.Cut(s, "=")
	job, key, ok2 := strings.Cut(lhs, ".")
	if !ok || !ok2 || job == "" || rhs == "" {
		return "", "", nil, badInput("--set %q: want JOB.KEY=V1,V2,... (e.g. noise.load=0,0.5,1)", s)
	}
	d, found := param.Find(sweepDecls(), key)
	if !found {
		return "", "", nil, badInput("--set %q: unknown key %q (known: %s)", s, key, strings.Join(param.Keys(sweepDecls()), ", "))
	}
	for _, f := range strings.Split(rhs, ",") {
		v, err := d.Parse(strings.TrimSpace(f))
		if err != nil {
			if x, err2 := strconv.ParseFloat(strings.TrimSpace(f), 64); err2 == nil && x == 0 && key == "load" {
				v, err = 0, nil
			}
		}
		if err != nil {
			return "", "", nil, badInput("--set %q: %v", s, err)
		}
		vals = append(vals, v)
	}
	return job, key, vals, nil
}

// loadJobsFile reads the jobs file of --jobs: a file that cannot be read
// names the flag, a bad one its line and key; both are bad input.
func loadJobsFile(path string) (*configs.Workload, error) {
	wl, err := configs.LoadWorkload(path)
	if err != nil {
		var ce *configs.Error
		if errors.As(err, &ce) {
			return nil, asInput(err)
		}
		return nil, badInput("--jobs: %v", err)
	}
	return wl, nil
}

// sweepDecls are the job traffic keys a sweep may vary: the numeric ones
// of traffic.JobTraffic.
func sweepDecls() []param.Decl {
	var ds []param.Decl
	for _, d := range param.Of(&traffic.JobTraffic{}) {
		if d.Kind.Numeric() {
			ds = append(ds, d)
		}
	}
	return ds
}
