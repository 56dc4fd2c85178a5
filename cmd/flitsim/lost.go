package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"flitsim/configs/pipeline"
	"flitsim/results"
)

// lostReport is what `flitsim lost --json` prints.
type lostReport struct {
	Network  string                `json:"network"`
	Failures string                `json:"failures"` // "links" or "switches"
	Draws    int                   `json:"draws"`
	Engines  []pipeline.LostEngine `json:"engines"`
}

func lostCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("lost", "lost SPEC|FILE [--routing A,B,...] [--switches] [--counts 1,2,...] [--draws N] [-j N] [--plot FILE.svg|.png] [--json]",
		"Counts the paths failures break before the subnet manager reroutes (seeds/001 §4.2.3.1, Props. 4.1\n"+
			"and 4.2, Fig. 4.2): each engine routes the intact network; then for each failure count and each\n"+
			"draw (failure seeds 1..N, non-critical failures as `flitsim topo faults` draws them) the share of\n"+
			"ordered HCA pairs whose route crosses a failed cable or switch. Prints per engine and count the\n"+
			"draws' median, quartiles and extremes, and Prop. 4.2's approximation n·E, E being Prop. 4.1's\n"+
			"expected loss of one failure (the mean forwarding index of the candidates). --switches fails\n"+
			"switches without HCAs instead of inter-switch cables. --plot draws Fig. 4.2's whiskers and curves.", stderr)
	names := &setString{v: "dfsssp"}
	fs.Var(names, "routing", "engine(s), comma separated (flitsim route --list)")
	switches := fs.Bool("switches", false, "fail switches (without HCAs) instead of inter-switch cables")
	countsFlag := fs.String("counts", "1,2,3,4,5,6,7,8,9,10", "failure counts, comma separated")
	draws := fs.Int("draws", 100, "failure draws (seeds 1..N) per count")
	workers := fs.Int("j", 1, "draws at once (results do not depend on it)")
	plotFile := fs.String("plot", "", "write Fig. 4.2's whisker plot to this .svg or .png file")
	asJSON := fs.Bool("json", false, "print JSON (every draw too)")
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	var counts []int
	for _, c := range strings.Split(*countsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(c))
		if err != nil || n < 1 {
			return badInput("--counts: %q is not a failure count ≥ 1", c)
		}
		counts = append(counts, n)
	}
	switch {
	case *draws < 1:
		return badInput("--draws %d: want 1 or more", *draws)
	case *workers < 1:
		return badInput("-j %d: want 1 or more", *workers)
	}
	if err := plotFileError(*plotFile); err != nil {
		return err
	}
	net, engs, opts, err := routedNetwork(spec, names.v, &rf)
	if err != nil {
		return err
	}
	l := pipeline.Lost{Net: net, Engines: engs, Options: opts, Switches: *switches, Counts: counts, Draws: *draws, Workers: *workers}
	if !*asJSON {
		l.Progress = func(done, total int) { fmt.Fprintf(stderr, "\r%d/%d draws", done, total) }
	}
	out, err := l.Run()
	if !*asJSON {
		fmt.Fprintln(stderr)
	}
	if err != nil {
		return asInput(err)
	}
	rep := lostReport{Network: net.Name, Failures: "links", Draws: *draws, Engines: out}
	if *switches {
		rep.Failures = "switches"
	}
	if *plotFile != "" {
		if err := lostPlot(*plotFile, rep); err != nil {
			return err
		}
	}
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	what := "cables"
	if *switches {
		what = "switches"
	}
	fmt.Fprintf(stdout, "%s: ordered HCA pairs lost before rerouting, %d draws per count of failed %s\n", net.Describe(), *draws, what)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tfailures\tmin %\tq1 %\tmedian %\tq3 %\tmax %\tmean %\tProp. 4.2 %\t")
	for _, e := range out {
		for _, lv := range e.Levels {
			s := lv.Percent
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t\n", e.Engine, lv.Count, s.Min, s.Q1, s.Median, s.Q3, s.Max, lv.Mean, lv.Prop42)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range out {
		fmt.Fprintf(stdout, "%s: %d pairs routed; Prop. 4.1: one failure loses %.1f of them on average (%.3f %%)\n",
			e.Engine, e.Pairs, e.PerFailure, 100*e.PerFailure/float64(max(1, e.Pairs)))
	}
	if *plotFile != "" {
		fmt.Fprintf(stdout, "plot: %s\n", *plotFile)
	}
	return nil
}

// lostPlot draws Fig. 4.2: per failure count a whisker box per engine, and
// each engine's Prop. 4.2 line.
func lostPlot(file string, rep lostReport) error {
	var names []string
	var curves []results.BoxCurve
	for i, e := range rep.Engines {
		names = append(names, e.Engine)
		c := results.BoxCurve{Label: e.Engine + " Prop. 4.2", Box: i}
		for _, lv := range e.Levels {
			c.Y = append(c.Y, lv.Prop42)
		}
		curves = append(curves, c)
	}
	var groups []results.BoxGroup
	for li := range rep.Engines[0].Levels {
		g := results.BoxGroup{Label: strconv.Itoa(rep.Engines[0].Levels[li].Count)}
		for _, e := range rep.Engines {
			g.Boxes = append(g.Boxes, e.Levels[li].Percent)
		}
		groups = append(groups, g)
	}
	title := fmt.Sprintf("%s: paths lost before rerouting, failed %s", rep.Network, rep.Failures)
	return results.BoxPlotCurves(file, title, "disconnected HCA pairs [%]", names, groups, 0, curves)
}
