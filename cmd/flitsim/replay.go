package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/results"
)

func jobsReplay(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("jobs replay", "jobs replay SPEC|FILE --history FILE [--routing sar,dfsssp,ftree,updn] [--poll 5m] [--sample 10m] [--map FILE] [--plot FILE.svg|.png] [--json]",
		"Replays a job history on the fabric as the thesis' filter tool and Fig. 5.8 do (seeds/001 §5.2.2.1,\n"+
			"§5.3.2): every --poll it lists the running jobs with HCAs on two switches or more and, when that\n"+
			"list differs from the last poll's (job ids aside), routes the job-aware engines (sar) for them;\n"+
			"every --sample it measures under every engine the metrics of §5.1 for the jobs running then (the\n"+
			"effective EFI, its mean over the jobs, the dark fiber, the links per job). Prints the reroutes,\n"+
			"and SAR's improvement over every other engine as Tables 5.1/5.2 do, over the samples. The\n"+
			"history is Slurm accounting output ("+configs.HistoryFormat+";\n"+
			"`flitsim jobs history` writes a synthetic one); hosts are HCA names, description words, GUIDs or\n"+
			"lid:N, or mapped by --map (lines \"HOST NODE\").", stderr)
	histFile := fs.String("history", "", "the job history (sacct -P output: JobID|Start|End|NodeList)")
	names := &setString{v: "sar,dfsssp,ftree,updn"}
	fs.Var(names, "routing", "engines, comma separated; the job-aware ones (sar) reroute at every change")
	poll := fs.Duration("poll", 5*time.Minute, "the filter tool's polling interval")
	sample := fs.Duration("sample", 10*time.Minute, "the interval of the metrics' samples (a multiple of --poll)")
	mapFile := fs.String("map", "", "host-to-node map: lines \"HOST NODE\" (# comments)")
	plotFile := fs.String("plot", "", "write Fig. 5.8's four panels over time to this .svg or .png file")
	asJSON := fs.Bool("json", false, "print JSON (every sample and reroute)")
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	switch {
	case *histFile == "":
		return badInput("--history: a history file is required")
	case *poll < time.Second || *poll%time.Second != 0:
		return badInput("--poll %v: want whole seconds, at least one", *poll)
	case *sample < *poll || *sample%*poll != 0:
		return badInput("--sample %v: want a multiple of --poll (%v)", *sample, *poll)
	}
	if err := plotFileError(*plotFile); err != nil {
		return err
	}
	net, engs, opts, err := routedNetwork(spec, names.v, &rf)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(*histFile)
	if err != nil {
		return badInput("--history: %v", err)
	}
	hist, err := configs.ParseHistory(data, *histFile)
	if err != nil {
		return asInput(err)
	}
	hostMap := map[string]string{}
	if *mapFile != "" {
		if hostMap, err = readHostMap(*mapFile); err != nil {
			return err
		}
	}
	jobs, t0, err := pipeline.ResolveHistory(net, hist, hostMap, *histFile)
	if err != nil {
		return asInput(err)
	}
	h := pipeline.History{Net: net, Jobs: jobs, Engines: engs, Options: opts, Poll: int64(*poll / time.Second), Sample: int64(*sample / time.Second)}
	if !*asJSON {
		h.Progress = func(done, total int) { fmt.Fprintf(stderr, "\r%d/%d samples", done, total) }
	}
	rep, err := h.Run()
	if !*asJSON {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return asInput(err)
	}
	rep.Start = t0.UTC().Format(time.RFC3339)
	if *plotFile != "" {
		if err := replayPlot(*plotFile, rep, engs); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	var wall float64
	for _, r := range rep.Reroutes {
		wall += r.WallS
	}
	fmt.Fprintf(stdout, "%s: %d jobs over %.1f days from %s; %d polls every %v, %d with the multi-switch jobs unchanged; %d reroutes (%.1f s of routing); %d samples every %v\n",
		net.Describe(), rep.Jobs, float64(rep.Seconds)/86400, rep.Start, rep.Polls, *poll, rep.Unchanged, len(rep.Reroutes), wall, len(rep.Samples), *sample)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "metric\tengine\tvs\tmax\tmax %\tavg\tavg %\t")
	for _, im := range rep.Improvements {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.1f\t%.1f\t%.1f\t\n", im.Metric, im.Engine, im.Baseline, im.Max, im.MaxPct, im.Avg, im.AvgPct)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if *plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return nil
}

// replayPlot draws Fig. 5.8: the four metrics over time, a line per engine.
func replayPlot(file string, rep *pipeline.HistoryReport, engs []string) error {
	var panels []results.Panel
	for _, jm := range pipeline.MixMetrics {
		p := results.Panel{YLabel: jm.Key}
		for _, e := range engs {
			s := results.Series{Name: e}
			for _, smp := range rep.Samples {
				s.X = append(s.X, float64(smp.At)/86400)
				s.Y = append(s.Y, jm.Value(smp.Metrics[e]))
			}
			p.Series = append(p.Series, s)
		}
		panels = append(panels, p)
	}
	return results.PanelPlot(file, rep.Network+": job history replayed", "days", panels)
}

func jobsHistory(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("jobs history", "jobs history SPEC|FILE [--jobs N] [--arrival D] [--nodes MIN-MAX] [--run MIN-MAX] [--seed S] [-o FILE]",
		"Writes a synthetic job history of the fabric's HCAs in Slurm accounting's format (for `flitsim jobs\n"+
			"replay`): jobs arrive as a Poisson process, take a log-uniform number of nodes and run a\n"+
			"log-uniform time, started first come, first served on the first free HCAs in node order.", stderr)
	n := fs.Int("jobs", 2000, "jobs in the history")
	arrival := fs.Duration("arrival", 10*time.Minute, "mean time between arrivals")
	nodes := fs.String("nodes", "2-128", "job sizes in nodes, MIN-MAX")
	run := fs.String("run", "10m-24h", "run times, MIN-MAX")
	seed := fs.Uint64("seed", 1, "seed of the draws")
	out := fs.String("o", "", "write the history here (default: standard output)")
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	var hs configs.HistorySynth
	hs.Jobs, hs.MeanArrival = *n, *arrival
	if _, err := fmt.Sscanf(*nodes, "%d-%d", &hs.MinNodes, &hs.MaxNodes); err != nil {
		return badInput("--nodes %q: want MIN-MAX", *nodes)
	}
	lo, hi, ok := strings.Cut(*run, "-")
	if hs.MinRun, err = time.ParseDuration(lo); !ok || err != nil {
		return badInput("--run %q: want MIN-MAX durations, e.g. 10m-24h", *run)
	}
	if hs.MaxRun, err = time.ParseDuration(hi); err != nil {
		return badInput("--run %q: want MIN-MAX durations, e.g. 10m-24h", *run)
	}
	net, err := loadNetwork(spec)
	if err != nil {
		return err
	}
	hosts := make([]string, net.NumHCAs())
	for i := range hosts {
		hosts[i] = net.Nodes[net.NumSwitches+i].Name
	}
	hs.Start = time.Date(2015, 2, 1, 0, 0, 0, 0, time.UTC)
	jobs, err := hs.Synthesize(hosts, *seed)
	if err != nil {
		return badInput("%v", err)
	}
	text := configs.FormatHistory(jobs)
	if *out == "" {
		_, err = io.WriteString(stdout, text)
		return err
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		return badInput("-o: %v", err)
	}
	fmt.Fprintf(stderr, "%d jobs written to %s\n", len(jobs), *out)
	return nil
}
