package main

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"flitsim/configs/pipeline"
	"flitsim/results"
)

func rerouteCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("reroute", "reroute SPEC|FILE --routing NAME (--links P | --fixed FILE) [--fault-seed S] [--detect D] [--route-time D] [--mad-rate R] [--plot FILE] [--json]",
		"Plays the subnet manager's answer to failed cables, without traffic (seeds/001 §4.2.3.1, §5.2.3):\n"+
			"the cables fail at 0; the subnet manager notices them --detect later and routes the fabric anew\n"+
			"(--route-time, default the engine's time measured here); then it writes the LFT blocks (64 LIDs\n"+
			"each) that differ, switch after switch in node order, --mad-rate blocks a second, and until a\n"+
			"switch has its new blocks it forwards by the old ones. Prints the HCA pairs broken or looping at\n"+
			"each step, when every pair is delivered again, and the pair-seconds lost. Cable failures only.", stderr)
	engine := fs.String("routing", "dfsssp", "the engine, before and after the failures")
	detect := fs.Duration("detect", 100*time.Millisecond, "from the failure until the subnet manager starts routing (trap and sweep)")
	routeTime := fs.Duration("route-time", -1, "the routing's time (default: the engine's time measured here, which varies from run to run)")
	madRate := fs.Float64("mad-rate", 20000, "LFT blocks the subnet manager writes a second")
	plotFile := fs.String("plot", "", "write the broken pairs over time to this .svg or .png file")
	asJSON := fs.Bool("json", false, "print JSON (every step)")
	var ff faultFlags
	ff.register(fs)
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
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
	r := pipeline.SMReroute{Net: net, Engine: *engine, Options: opts, Faults: fspec, DetectS: detect.Seconds(), RouteS: -1, MADRate: *madRate}
	if *routeTime >= 0 {
		r.RouteS = routeTime.Seconds()
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
