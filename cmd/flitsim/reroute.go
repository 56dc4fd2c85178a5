package main

import (
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"flitsim/configs/pipeline"
	"flitsim/results"
	"flitsim/sim/reference"
)

func rerouteCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reroute", "reroute SPEC|FILE --routing NAME (--links P | --fixed FILE) [--fault-seed S] [--detect D] [--route-time D] [--mad-rate R] [(--traffic KIND [--load F] [--msg-bytes N] | --jobs FILE) --fail-at D --retry D --window D --max-time D --hw ... --sim ... [--reference]] [--plot FILE] [--json]",
		"Plays the subnet manager's answer to failed cables (seeds/001 §4.2.3.1, §5.2.3): the cables fail;\n"+
			"the subnet manager notices them --detect later and routes the fabric anew (--route-time, default\n"+
			"the engine's time measured here); then it writes the LFT blocks (64 LIDs each) that differ, switch\n"+
			"after switch in node order, --mad-rate blocks a second, and until a switch has its new blocks it\n"+
			"forwards by the old ones. Prints the HCA pairs broken or looping at each step, when every pair is\n"+
			"delivered again, and the pair-seconds lost. Cable failures only (without --traffic).\n"+
			"With --traffic (or --jobs) the reroute happens under traffic, simulated at flit level (sim/doc.go,\n"+
			"\"Timed events\"): the cables (or switches: all their cables) fail --fail-at into the run, packets\n"+
			"granted a dead cable are lost and sent again --retry after their injection, switches forward by\n"+
			"whatever blocks they hold when a packet's head arrives (--update five-phase: the sources migrate\n"+
			"to Up*/Down* on the last VL while the base tables change); the same traffic also runs on the\n"+
			"intact fabric and on the failed one routed anew from the start. Prints the packets lost and\n"+
			"resent, the verdict (a transient deadlock names its cycle), when every switch has its tables and\n"+
			"every pair is delivered again, when the throughput recovers (every window from then on at least\n"+
			"90 % of the lesser of the intact fabric's before the failure and the failed fabric's), each job's\n"+
			"slowdown against the intact fabric, and the throughput per --window of the three runs (--plot).", stderr)
	engine := fs.String("routing", "dfsssp", "the engine, before and after the failures")
	detect := fs.Duration("detect", 100*time.Millisecond, "from the failure until the subnet manager starts routing (trap and sweep)")
	routeTime := fs.Duration("route-time", -1, "the routing's time (default: the engine's time measured here, which varies from run to run)")
	madRate := fs.Float64("mad-rate", 20000, "LFT blocks the subnet manager writes a second")
	plotFile := fs.String("plot", "", "write the broken pairs over time to this .svg or .png file")
	asJSON := fs.Bool("json", false, "print JSON (every step)")
	var pf patternFlags
	pf.register(fs)
	failAt := fs.Duration("fail-at", 20*time.Microsecond, "with --traffic: when the cables fail, from the run's start")
	retry := fs.Duration("retry", 65536*time.Nanosecond, "with --traffic: the transport's timeout: a lost packet is sent again this long after its injection (InfiniBand's local ACK timeout 4.096 µs·2^t; the default is t = 4; 0: never)")
	window := fs.Duration("window", 10*time.Microsecond, "with --traffic: the throughput is counted in windows of this length")
	maxTime := fs.Duration("max-time", 0, "with --traffic: simulated time limit (default: the last table write plus the time before the failure, at least 10 windows)")
	hwFlag := fs.String("hw", "", "with --traffic: hardware overrides key=value,... (as sim --hw)")
	simFlag := fs.String("sim", "", "with --traffic: [sim] overrides key=value,... (as sim --sim)")
	seed := fs.Uint64("traffic-seed", 1, "with --traffic: seed of the traffic streams")
	useRef := fs.Bool("reference", false, "with --traffic: simulate with the per-flit reference simulator")
	jobsFile := fs.String("jobs", "", "a jobs file (docs/jobs/) to run instead of one pattern (as sim --jobs; use it with --traffic jobs): each job's slowdown is against the same run on the intact fabric")
	jobsSeed := fs.Int64("jobs-seed", -1, "with --jobs: seed of the jobs file's random placements (default: the file's seed)")
	update := fs.String("update", "plain", "with --traffic: plain (the changed blocks written while traffic runs) or five-phase (§5.2.3: Up*/Down* for high LIDs on the last VL first, the sources migrated there, --drain, the new base tables, the sources back; the base must leave the last VL free)")
	drain := fs.Duration("drain", 20*time.Microsecond, "with --traffic --update five-phase: from the migration to the high LIDs until the base tables are written")
	var ff faultFlags
	ff.register(fs)
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	simulate := set["traffic"] || set["jobs"]
	if !simulate {
		for _, f := range append([]string{"fail-at", "retry", "window", "max-time", "hw", "sim", "traffic-seed", "reference", "update", "drain", "jobs-seed"}, pf.names()...) {
			if set[f] {
				return badInput("--%s needs --traffic: the reroute under traffic", f)
			}
		}
	}
	switch {
	case *failAt < 0:
		return badInput("--fail-at %v: want a duration ≥ 0", *failAt)
	case *retry < 0:
		return badInput("--retry %v: want a duration ≥ 0 (0: lost packets stay lost)", *retry)
	case *window <= 0:
		return badInput("--window %v: want a positive duration", *window)
	case *maxTime < 0:
		return badInput("--max-time %v: want a duration ≥ 0", *maxTime)
	case *update != "plain" && *update != "five-phase":
		return badInput("--update %q: want plain or five-phase", *update)
	case *drain < 0:
		return badInput("--drain %v: want a duration ≥ 0", *drain)
	}
	switch {
	case *detect < 0:
		return badInput("--detect %v: want a duration ≥ 0", *detect)
	case !(*madRate > 0):
		return badInput("--mad-rate %g: want a positive rate", *madRate)
	}
	if err := plotFileError(*plotFile); err != nil {
		return err
	}
	fspec, err := ff.spec()
	if err != nil {
		return err
	}
	if fspec.LinkPercent == 0 && len(fspec.Fixed) == 0 {
		return badInput("--links or --fixed: a reroute needs failed cables")
	}
	net, _, opts, err := routedNetwork(spec, *engine, &rf)
	if err != nil {
		return err
	}
	r := pipeline.SMReroute{Net: net, Engine: *engine, Options: opts, Faults: fspec, DetectS: detect.Seconds(), RouteS: -1, MADRate: *madRate,
		FivePhase: *update == "five-phase", DrainS: drain.Seconds()}
	if *routeTime >= 0 {
		r.RouteS = routeTime.Seconds()
	}
	if simulate {
		p, err := simParams(*hwFlag, *simFlag)
		if err != nil {
			return err
		}
		if err := simJobFlags(set, *jobsFile != "", pf.names(), *jobsSeed, ff.takeHCAs); err != nil {
			return err
		}
		if *jobsFile != "" {
			wl, err := loadJobsFile(*jobsFile)
			if err != nil {
				return err
			}
			if p.Jobs, err = wl.Place(net, *jobsSeed, p.HW.MTU); err != nil {
				return asInput(err)
			}
		} else {
			if p.Traffic, err = pf.spec(p.HW.MTU); err != nil {
				return err
			}
			if err := p.Traffic.Check(net.NumHCAs()); err != nil {
				return pf.flagError(err, spec)
			}
		}
		if err := p.HW.CheckNetwork(net); err != nil {
			return badInput("--hw on %s: %v", spec, err)
		}
		p.Seed, p.MaxTime = *seed, maxTime.Nanoseconds()*1000
		rr := pipeline.RerouteRun{Reroute: r, Params: p, FailAtPs: failAt.Nanoseconds() * 1000, RetryPs: retry.Nanoseconds() * 1000,
			WindowPs: window.Nanoseconds() * 1000}
		if *useRef {
			rr.Sim = reference.Run
		}
		return rerouteRun(stdout, rr, *plotFile, *asJSON)
	}
	rep, err := r.Run()
	if err != nil {
		return asInput(err)
	}
	if *plotFile != "" {
		s := results.Series{Name: "broken or looping pairs [%]"}
		for i, st := range rep.Steps {
			y := 100 * float64(st.Broken+st.Looping) / float64(max(1, rep.Pairs))
			if i > 0 { // a step: the previous value until this instant
				s.X, s.Y = append(s.X, st.AtS*1000), append(s.Y, s.Y[len(s.Y)-1])
			}
			s.X, s.Y = append(s.X, st.AtS*1000), append(s.Y, y)
		}
		title := fmt.Sprintf("%s, %s: %d cables failed", rep.Network, rep.Engine, len(rep.Failed.Links))
		if err := results.LinePlot(*plotFile, title, "time after the failure [ms]", "HCA pairs lost [%]", []results.Series{s}); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	how := "declared"
	if rep.RouteMeasured {
		how = "measured"
	}
	fmt.Fprintf(stdout, "%s, %s: %d cables failed; %d HCA pairs; detected after %.3f s, routed in %.3f s (%s); %d LFT blocks on %d switches at %g a second\n",
		net.Describe(), rep.Engine, len(rep.Failed.Links), rep.Pairs, rep.DetectS, rep.RouteS, how, rep.Blocks, rep.Switches, rep.MADRate)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "at ms\tevent\tswitches\tblocks\tbroken\tlooping\tlost %\t")
	for _, st := range rep.Steps {
		fmt.Fprintf(tw, "%.3f\t%s\t%d\t%d\t%d\t%d\t%.3f\t\n", st.AtS*1000, st.Event, st.Switches, st.Blocks, st.Broken, st.Looping,
			100*float64(st.Broken+st.Looping)/float64(max(1, rep.Pairs)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var loops []string
	seen := map[string]bool{}
	for _, st := range rep.Steps {
		for _, l := range st.Loops {
			if k := l.String(); !seen[k] {
				seen[k] = true
				loops = append(loops, fmt.Sprintf("from %.3f ms (%s): %s", st.AtS*1000, st.Event, k))
			}
		}
	}
	printLoops(stdout, "forwarding loops of the mixtures", loops)
	if rep.ReachableS < 0 {
		fmt.Fprintln(stdout, "some pairs stay lost")
	} else {
		fmt.Fprintf(stdout, "every pair delivered again %.3f ms after the failure; %.3f pair-seconds lost\n", rep.ReachableS*1000, rep.PairSeconds)
	}
	if *plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return nil
}

// rerouteRun simulates a reroute under traffic and prints it.
func rerouteRun(stdout io.Writer, rr pipeline.RerouteRun, plotFile string, asJSON bool) error {
	out, err := rr.Run()
	if err != nil {
		return asInput(err)
	}
	if plotFile != "" {
		series := func(name string, ws []pipeline.RerouteWindow) results.Series {
			s := results.Series{Name: name}
			for _, w := range ws {
				s.X, s.Y = append(s.X, w.StartNs/1000), append(s.Y, w.ThroughputGBs)
			}
			return s
		}
		rep := out.Reroute
		title := fmt.Sprintf("%s, %s: %d cables fail at %.1f µs", rep.Network, rep.Engine, len(rep.Failed.Links), out.FailNs/1000)
		if err := results.LinePlot(plotFile, title, "time [µs]", "throughput [GB/s]",
			[]results.Series{series("intact", out.Base), series("failed, rerouted from the start", out.Rerouted), series("through the reroute", out.Windows)}); err != nil {
			return err
		}
	}
	if asJSON {
		return writeJSON(stdout, out)
	}
	rep, res := out.Reroute, out.Result
	fmt.Fprintf(stdout, "%s, %s: %d cables fail at %.3f µs; %d table writes (%d LFT blocks on %d switches), the last at %.3f µs\n",
		rr.Reroute.Net.Describe(), rep.Engine, len(rep.Failed.Links), out.FailNs/1000, out.Writes, rep.Blocks, rep.Switches, out.TablesNs/1000)
	fmt.Fprintf(stdout, "verdict %s at %.3f µs (intact: %s); packets lost %d, resent %d; throughput %.2f GB/s (intact %.2f, failed and rerouted from the start %.2f)\n",
		res.Verdict, res.SimTimeNs/1000, out.Baseline.Verdict, res.PacketsLost, res.PacketsResent, res.ThroughputGBs, out.Baseline.ThroughputGBs, out.Failed.ThroughputGBs)
	if out.MigrateNs > 0 {
		fmt.Fprintf(stdout, "five-phase update: sources on the high LIDs (Up*/Down*, VL %d) from %.3f µs to %.3f µs\n",
			rr.Params.HW.VLs-1, out.MigrateNs/1000, out.ReturnNs/1000)
	}
	if out.Deadlock {
		fmt.Fprintf(stdout, "transient deadlock of the mixed tables: %v\n", res.DeadlockCycle)
	}
	switch {
	case out.ReachableNs >= 0:
		fmt.Fprintf(stdout, "every pair delivered again by the tables the switches hold from %.3f µs (%.3f µs after the failure)\n", out.ReachableNs/1000, (out.ReachableNs-out.FailNs)/1000)
	case out.ReachableNs == -1:
		fmt.Fprintln(stdout, "some pairs stay lost")
	}
	if tr := out.Transient; tr != nil {
		fmt.Fprintf(stdout, "table states from the failure on: %d pairs broken by the failure; at most %d broken (black holes) and %d looping at once\n",
			tr.BrokenAtFailure, tr.MaxBroken, tr.MaxLooping)
		var loops []string
		for _, l := range tr.Loops {
			until := "the end"
			if l.UntilNs > 0 {
				until = fmt.Sprintf("%.3f µs", l.UntilNs/1000)
			}
			loops = append(loops, fmt.Sprintf("%.3f µs to %s: %s", l.FromNs/1000, until, l))
		}
		printLoops(stdout, "transient forwarding loops", loops)
	}
	if out.RecoveredNs >= 0 {
		fmt.Fprintf(stdout, "throughput recovered at %.3f µs (%.3f µs after the failure)\n", out.RecoveredNs/1000, (out.RecoveredNs-out.FailNs)/1000)
	} else {
		fmt.Fprintln(stdout, "throughput not recovered within the run")
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "from µs\tGB/s\tintact GB/s\tfailed GB/s\tpackets\t")
	at := func(ws []pipeline.RerouteWindow, i int) float64 {
		if i < len(ws) {
			return ws[i].ThroughputGBs
		}
		return 0
	}
	for i, w := range out.Windows {
		fmt.Fprintf(tw, "%.1f\t%.2f\t%.2f\t%.2f\t%d\t\n", w.StartNs/1000, w.ThroughputGBs, at(out.Base, i), at(out.Rerouted, i), w.Packets)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(res.Jobs) > 0 {
		fmt.Fprintln(stdout, "jobs (slowdown: against the same run on the intact fabric):")
		printJobs(stdout, res.Jobs)
	}
	if plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", plotFile)
	}
	return nil
}

// printLoops prints up to ten lines of loops under a heading.
func printLoops(w io.Writer, heading string, loops []string) {
	if len(loops) == 0 {
		return
	}
	fmt.Fprintf(w, "%s (%d):\n", heading, len(loops))
	for i, l := range loops {
		if i == 10 {
			fmt.Fprintf(w, "  and %d more (--json lists them)\n", len(loops)-i)
			break
		}
		fmt.Fprintf(w, "  %s\n", l)
	}
}
