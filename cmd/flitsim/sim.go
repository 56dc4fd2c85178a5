package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// simReport is what `flitsim sim --json` prints.
type simReport struct {
	Topology string `json:"topology"`
	Routing  string `json:"routing"`
	Traffic  string `json:"traffic"`
	// Order is the rank order when it is not the default "hca".
	Order string `json:"order,omitempty"`
	// JobsFile is the workload (--jobs), whose per-job results are in jobs.
	JobsFile string `json:"jobs_file,omitempty"`
	*sim.Result
	DeadlockFreeTables bool   `json:"deadlock_free_tables"`
	RoutingError       string `json:"routing_error,omitempty"`
	// Simulator is "fast" or "reference".
	Simulator string          `json:"simulator"`
	Hardware  fabric.Hardware `json:"hardware"`
	// Timed is the reroute's outcome when the failures happened while
	// traffic ran (--timed).
	Timed *results.TimedRecord `json:"timed,omitempty"`
}

func simCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sim", "sim SPEC|FILE --routing NAME (--traffic KIND [--msg-bytes N] [--load F] [--order O] | --jobs FILE [--jobs-seed S] [--no-slowdown]) [--max-time D] [--traffic-seed S] [--hw key=value,...] [--links P --switches P --fault-seed S] [--counters] [--reference] [--json]",
		"Routes the network and simulates traffic at flit level: one point of a campaign, typed on the command\n"+
			"line. Finite traffic (exchange) runs to completion; infinite traffic (uniform, shift, permutation, bitrev,\n"+
			"hotspot) runs to steady state or --max-time. Verdicts: completed, steady, deadlock, not_converged,\n"+
			"routing_failed. --hw overrides hardware parameters with the keys of a campaign's [hardware] table, e.g.\n"+
			"--hw crossbar_gbps=32,switch_latency=100ns,hiccup=0 (flitsim params lists them).\n"+
			"--jobs runs a workload instead of one pattern: the jobs of a jobs file (docs/jobs/), each with its own\n"+
			"nodes and pattern (flitsim params lists the patterns: the streams, halos, collectives and application\n"+
			"skeletons), and reports per job its completion time (finite jobs) or throughput (infinite ones) and its\n"+
			"slowdown against running alone on the same nodes with the same routing (one more run per job).\n"+
			"--counters adds seeds/004's NIC counters, over time too (--series-plot draws them).\n"+
			"On a terminal, a line on stderr shows the time simulated so far (not with --reference).", stderr)
	engine := fs.String("routing", "dfsssp", "routing engine (flitsim route --list)")
	var pf patternFlags
	pf.register(fs)
	maxTime := declVar(fs, "max-time", sim.ParamDecls(), "max_time", "simulated time limit (default: the [sim] table's max_time: 10ms for infinite traffic, 10s for the exchange)", new(sim.Params))
	seed := fs.Uint64("traffic-seed", 1, "seed of the traffic streams (a campaign's traffic_seeds)")
	useRef := fs.Bool("reference", false, "simulate with the per-flit reference simulator (slow; the specification the fast one is tested against)")
	hwFlag := fs.String("hw", "", "hardware overrides key=value,... with the keys of a campaign's [hardware] table")
	simFlag := fs.String("sim", "", "overrides key=value,... with the keys of a campaign's [sim] table (e.g. ugal_bias_high=256,sample_window=5us)")
	asJSON := fs.Bool("json", false, "print JSON")
	jobsFile := fs.String("jobs", "", "jobs file (TOML, docs/jobs/): simulate its jobs instead of one pattern")
	jobsSeed := fs.Int64("jobs-seed", -1, "seed of the jobs file's random placements and fragmentation (default: the file's seed)")
	noSlow := fs.Bool("no-slowdown", false, "with --jobs: skip the runs of each job alone (no slowdowns)")
	counters := fs.Bool("counters", false, "count per HCA and per link (seeds/004's NIC counters: request flits and packets, stalls per flit, packet latency mean/p99/max; per link flits, stalled time, utilization); --json lists every HCA and link")
	seriesPlot := fs.String("series-plot", "", "with --counters: plot each job's counters over time (latency, stalls per flit, share sent with high bias; --sim counter_window) to this .svg or .png file")
	timedFlag := fs.String("timed", "", "the --links, --switches or --mixed failures happen while traffic runs and the subnet manager reroutes them: key=value,... with the keys of a campaign's [faults.timed] table (at=20us,detect=2us,route_time=2us,mad_rate=1e5,five_phase=true,...; flitsim params); flitsim reroute --traffic reports more")
	workers := fs.Int("workers", 0, "goroutines of a run cut into domains (--sim domains=N, by default 2 from 8192 HCAs on): 0 one per domain, at most the processors; results do not depend on it")
	var ff faultFlags
	ff.register(fs)
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	p, err := simParams(*hwFlag, *simFlag)
	if err != nil {
		return err
	}
	p.Seed = *seed
	p.Counters = *counters
	if *seriesPlot != "" && (!*counters || p.CounterWindow == 0) {
		return badInput("--series-plot needs --counters and a counter_window (--sim counter_window=10us)")
	}
	if *seriesPlot != "" && !strings.HasSuffix(*seriesPlot, ".svg") && !strings.HasSuffix(*seriesPlot, ".png") {
		return badInput("--series-plot %q: want a .svg or .png file", *seriesPlot)
	}
	if *workers < 0 {
		return badInput("--workers %d: want 0 (one per domain) or more", *workers)
	}
	p.Workers = *workers
	if p.Traffic, err = pf.spec(p.HW.MTU); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["max-time"] {
		if p.MaxTime != 0 {
			return badInput("--max-time and --sim max_time: give the time limit once")
		}
		p.MaxTime = int64(maxTime.x.(float64))
	}
	userMax := p.MaxTime // 0: the default for the traffic, set below
	if err := simJobFlags(set, *jobsFile != "", pf.names(), *jobsSeed, ff.takeHCAs); err != nil {
		return err
	}
	var wl *configs.Workload
	if *jobsFile != "" {
		if wl, err = loadJobsFile(*jobsFile); err != nil {
			return err
		}
	}
	pt, nets, err := simPoint(spec, *engine, &ff, &rf, p)
	if err != nil {
		return err
	}
	if set["timed"] {
		t := configs.Timed{}
		param.Defaults(&t)
		if err := param.SetText(*timedFlag, configs.TimedDecls(), &t); err != nil {
			return badInput("--timed: %v", err)
		}
		if f := pt.Faults; f.LinkPercent == 0 && f.SwitchPercent == 0 && f.MixedPercent == 0 {
			return badInput("--timed makes --links, --switches or --mixed failures happen while traffic runs; without them it changes nothing")
		}
		if *workers != 0 {
			return badInput("--workers: a run with failures while traffic runs stays in one domain")
		}
		pt.Timed = &t
	}
	rep := simReport{Topology: spec, Routing: *engine, Traffic: string(p.Traffic.Kind), Simulator: "fast", Hardware: p.HW}
	net, err := nets.Get(spec)
	if err != nil {
		return err
	}
	if err := p.HW.CheckNetwork(net); err != nil {
		return badInput("--hw on %s: %v", spec, err)
	}
	if wl == nil {
		if err := p.Traffic.Check(net.NumHCAs()); err != nil {
			return pf.flagError(err, spec)
		}
	}
	if wl == nil && p.Traffic.Kind == traffic.Trace {
		// A trace over every HCA runs as one job, so that its time per
		// MPI call and its slowdown against an ideal network are reported.
		if o := p.Traffic.Order; o != traffic.ByHCA && o != "" {
			return badInput("--order: a trace's rank r runs on the r-th HCA; lay its ranks out with a jobs file (placement)")
		}
		job := p.Traffic.Job(net.NumHCAs())
		job.ID = "trace"
		pt.Params.Jobs = []traffic.Job{job}
	}
	if wl != nil {
		pt.Workload, pt.JobsSeed, pt.NoSlowdown = wl, *jobsSeed, *noSlow
		if err := pt.Place(net); err != nil {
			return asInput(err)
		}
		pt.Params.MaxTime = userMax // the jobs' default
		if err := pt.Params.Normalize(); err != nil {
			return asInput(err)
		}
		rep.Traffic, rep.JobsFile = "jobs", *jobsFile
	}
	if p.Traffic.Order != traffic.ByHCA {
		rep.Order = string(p.Traffic.Order)
	}
	run := sim.Run
	line := newStatusLine(stderr)
	if line != nil {
		run = func(net *fabric.Network, t *routing.Tables, p sim.Params) (*sim.Result, error) {
			defer line.end()
			return sim.RunWatched(net, t, p, line.simulation())
		}
	}
	if *useRef {
		rep.Simulator, run = "reference", reference.Run
	}
	o := pipeline.Run(pt, "", nets, run)
	if *seriesPlot != "" && o.Err == nil && o.Result != nil {
		if err := plotSeries(*seriesPlot, spec+", "+*engine, o.Result); err != nil {
			return err
		}
	}
	return printSim(stdout, o, rep, pt.Params, *asJSON)
}

// simJobFlags refuses the flags of sim that do not go with --jobs (the
// pattern's) or need it (set: the flags given).
func simJobFlags(set map[string]bool, jobs bool, pattern []string, jobsSeed int64, takeHCAs bool) error {
	if !jobs {
		for _, f := range []string{"jobs-seed", "no-slowdown"} {
			if set[f] {
				return badInput("--%s needs --jobs", f)
			}
		}
		return nil
	}
	for _, f := range pattern {
		if set[f] {
			return badInput("--%s describes one pattern; with --jobs the jobs file gives each job its traffic", f)
		}
	}
	if jobsSeed < -1 {
		return badInput("--jobs-seed %d: want a seed ≥ 0", jobsSeed)
	}
	if takeHCAs {
		return badInput("--take-hcas: the jobs are placed on the fabric's HCAs; failures that take HCAs would move them")
	}
	return nil
}

// patternFlags are the pattern flags of sim: one per declaration of
// traffic.Spec, the keys of a campaign's [[traffic]] tables (--traffic
// for kind, --msg-bytes, --load, --iterations, --order, ...).
type patternFlags struct{ flags []*declFlag }

func (pf *patternFlags) register(fs *flag.FlagSet) {
	def := traffic.Spec{Kind: traffic.Uniform, Order: traffic.ByHCA}
	param.Defaults(&def)
	for _, d := range param.Of(&def) {
		f := newDeclFlag(d, param.Env{MTU: 1}, &def) // a size is read again with the hardware's MTU (spec)
		if d.Key == "msg_bytes" {
			f.x, f.text = nil, "1MTU"
		}
		use := d.Help + " ([[traffic]] " + d.Key + ")"
		if len(d.Values) > 0 {
			use += ": " + strings.Join(d.Values, ", ")
		}
		fs.Var(f, d.Flag, use)
		pf.flags = append(pf.flags, f)
	}
}

// flagError names the flag of the key a pattern's check refuses on spec.
func (pf *patternFlags) flagError(err error, spec string) error {
	var pe *param.Error
	if errors.As(err, &pe) {
		for _, f := range pf.flags {
			if f.d.Key == pe.Key {
				return badInput("--%s on %s: %s", f.d.Flag, spec, pe.Msg)
			}
		}
	}
	return badInput("on %s: %v", spec, err)
}

// names are the flags' names.
func (pf *patternFlags) names() []string {
	var n []string
	for _, f := range pf.flags {
		n = append(n, f.d.Flag)
	}
	return n
}

// spec is the pattern the flags give, its sizes in MTUs of mtu bytes.
func (pf *patternFlags) spec(mtu int) (traffic.Spec, error) {
	s := traffic.Spec{Kind: traffic.Uniform, Order: traffic.ByHCA, JobTraffic: traffic.JobTraffic{MessageBytes: mtu}}
	param.Defaults(&s)
	given := map[string]bool{}
	for _, f := range pf.flags {
		if !f.set {
			continue
		}
		x, err := f.d.ParseText(f.text, param.Env{MTU: mtu})
		if err != nil {
			msg := err.Error()
			var pe *param.Error
			if errors.As(err, &pe) {
				msg = pe.Msg
			}
			return s, badInput("--%s %q: %s", f.d.Flag, f.text, msg)
		}
		f.d.Put(&s, x)
		given[f.d.Key] = true
	}
	switch {
	case given["distance"] && s.Kind != traffic.Shift:
		return s, badInput("--distance only applies to --traffic shift")
	case s.Distance == 0:
		return s, badInput("--distance 0 sends every terminal to itself")
	case given["hot_fraction"] && s.Kind != traffic.HotSpot:
		return s, badInput("--hot-fraction only applies to --traffic hotspot")
	case given["iterations"] && s.Iterations == 0:
		return s, badInput("--iterations 0: leave the flag out for the pattern's default, or give a count")
	case s.Kind == traffic.Trace && s.Trace == "":
		return s, badInput("--traffic trace needs --trace (a DUMPI trace's directory or .meta file)")
	case s.Kind != traffic.Trace && (given["trace"] || given["compute_scale"] || given["drop_compute"]):
		return s, badInput("--trace, --compute-scale and --drop-compute apply to --traffic trace")
	}
	if s.Kind == traffic.Trace {
		p, err := configs.LoadTrace(s.Trace)
		if err != nil {
			return s, badInput("--trace: %v", err)
		}
		s.Program = p
	}
	return s, nil
}

// simPoint loads the network and makes the point the flags describe.
func simPoint(spec, engine string, ff *faultFlags, rf *routeFlags, p sim.Params) (configs.Point, *pipeline.Networks, error) {
	var pt configs.Point
	net, err := loadNetwork(spec)
	if err != nil {
		return pt, nil, err
	}
	fspec, err := ff.spec()
	if err != nil {
		return pt, nil, err
	}
	opts, err := rf.options(net, []string{engine})
	if err != nil {
		return pt, nil, err
	}
	if !rf.given("vls") {
		opts.VLs = p.HW.VLs // the engine may use every VL the hardware has
	}
	if opts.VLs > p.HW.VLs {
		return pt, nil, badInput("--vls %d: the hardware has %d VLs (--hw vls=N)", opts.VLs, p.HW.VLs)
	}
	nets := pipeline.NewNetworks()
	nets.Add(spec, net)
	pt = configs.Point{Key: spec, Topology: configs.TopologyEntry{Spec: spec, Label: spec}, Traffic: configs.TrafficEntry{Kind: string(p.Traffic.Kind), Spec: p.Traffic},
		FaultSeed: fspec.Seed, Faults: fspec, Routing: configs.RoutingEntry{Engine: engine, Label: engine}, Options: opts, Params: p}
	if err := pt.Params.Normalize(); err != nil {
		return pt, nil, asInput(err)
	}
	return pt, nets, nil
}

// printSim prints the outcome of sim as text or JSON.
func printSim(stdout io.Writer, o *pipeline.Outcome, rep simReport, p sim.Params, asJSON bool) error {
	switch {
	case o.Err != nil:
		return asInput(o.Err) // the flags were checked: what is left is the failure draw or the parameters
	case !o.Routed.OK() && asJSON:
		rep.RoutingError = o.Routed.Problem()
		rep.Result = &sim.Result{Verdict: sim.Verdict(results.RoutingFailed)}
		return writeJSON(stdout, rep)
	case !o.Routed.OK():
		return fmt.Errorf("routing %s failed: %s", rep.Routing, o.Routed.Problem())
	}
	rep.Topology, rep.DeadlockFreeTables, rep.Result = o.Net.Name, o.Routed.Verdict.DeadlockFreeWith(p.HW.BubbleVLs), o.Result
	rep.Timed = o.Record.Timed
	if asJSON {
		return writeJSON(stdout, rep)
	}
	res := o.Result
	ranks := ""
	if rep.Order != "" {
		ranks = ", ranks in " + rep.Order + " order"
	}
	if rep.JobsFile != "" {
		fmt.Fprintf(stdout, "%s, routed by %s (deadlock-free tables: %v), %d jobs of %s\n",
			o.Net.Describe(), rep.Routing, rep.DeadlockFreeTables, len(res.Jobs), rep.JobsFile)
	} else if p.Traffic.Kind == traffic.Trace {
		fmt.Fprintf(stdout, "%s, routed by %s (deadlock-free tables: %v), the trace %s replayed%s\n",
			o.Net.Describe(), rep.Routing, rep.DeadlockFreeTables, p.Traffic.Trace, ranks)
	} else {
		fmt.Fprintf(stdout, "%s, routed by %s (deadlock-free tables: %v), %s traffic of %d-byte messages at load %g%s\n",
			o.Net.Describe(), rep.Routing, rep.DeadlockFreeTables, p.Traffic.Kind, p.Traffic.MessageBytes, p.Traffic.Load, ranks)
	}
	fmt.Fprintf(stdout, "verdict       %s\n", res.Verdict)
	fmt.Fprintf(stdout, "throughput    %s\n", throughputLine(res, p))
	if t := rep.Timed; t != nil {
		fmt.Fprintf(stdout, "failures      at %.3f µs, %d cables down: %d packets lost, %d resent; every switch's tables by %.3f µs",
			t.FailNs/1000, o.Record.FailedLinks, t.PacketsLost, t.PacketsResent, t.TablesNs/1000)
		if t.RecoveredNs >= 0 {
			fmt.Fprintf(stdout, ", throughput recovered at %.3f µs", t.RecoveredNs/1000)
		}
		if t.MaxLooping > 0 {
			fmt.Fprintf(stdout, ", up to %d HCA pairs in transient forwarding loops", t.MaxLooping)
		}
		fmt.Fprintf(stdout, " (intact %.2f, failed fabric %.2f GB/s)\n", t.IntactGBs, t.FailedGBs)
	}
	if len(res.Jobs) > 0 {
		printJobs(stdout, res.Jobs)
	}
	b := res.HCABandwidthGBs
	fmt.Fprintf(stdout, "HCA bandwidth min %.3f  q1 %.3f  median %.3f  q3 %.3f  max %.3f GB/s\n", b.Min, b.Q1, b.Median, b.Q3, b.Max)
	fmt.Fprintf(stdout, "simulated     %.3f µs", res.SimTimeNs/1000)
	if res.RuntimeNs > 0 {
		fmt.Fprintf(stdout, " (runtime %.3f µs)", res.RuntimeNs/1000)
	}
	fmt.Fprintf(stdout, "\nwork          %d events, %d flit-hops in %.2f s wall (%.2f M flit-hops/s)\n",
		res.Events, res.FlitHops, res.WallSeconds, res.FlitHopsPerS/1e6)
	if res.Counters != nil {
		printCounters(stdout, res)
	}
	if len(res.DeadlockCycle) > 0 {
		fmt.Fprintf(stdout, "deadlock: %d flits stuck; cycle of full buffers waiting on each other:\n", res.FlitsStuck)
		for _, b := range res.DeadlockCycle {
			fmt.Fprintf(stdout, "  %s[%d] VL%d (fed by %s[%d])\n", b.Node, b.Port, b.VL, b.From, b.FromPort)
		}
	}
	return nil
}

// printJobs prints the per-job results as a table.
func printJobs(w io.Writer, jobs []sim.JobResult) {
	fmt.Fprintf(w, "%-12s %-11s %6s %14s %12s %9s %9s %26s\n", "job", "pattern", "ranks", "completion µs", "GB/s", "slowdown", "vs ideal", "rank GB/s min/median/max")
	for _, j := range jobs {
		done := "-"
		switch {
		case j.Completed:
			done = fmt.Sprintf("%.3f", j.CompletionNs/1000)
		case j.Finite:
			done = "unfinished"
		}
		slow, ideal := "-", "-"
		if j.Slowdown > 0 {
			slow = fmt.Sprintf("%.3f", j.Slowdown)
		}
		if j.IdealSlowdown > 0 {
			ideal = fmt.Sprintf("%.3f", j.IdealSlowdown)
		}
		b := j.RankBandwidthGBs
		fmt.Fprintf(w, "%-12s %-11s %6d %14s %12.3f %9s %9s %26s\n", j.ID, j.Pattern, j.Ranks, done, j.ThroughputGBs, slow, ideal,
			fmt.Sprintf("%.3f/%.3f/%.3f", b.Min, b.Median, b.Max))
	}
	for _, j := range jobs {
		tr := j.Trace
		if tr == nil {
			continue
		}
		fmt.Fprintf(w, "trace job %s, per rank: compute %.3f µs, in MPI calls %.3f µs (simulated; the traced run's times beside)\n", j.ID, tr.ComputeNs/1000, tr.CommNs/1000)
		fmt.Fprintf(w, "  %-15s %10s %14s %14s\n", "call", "calls", "simulated µs", "traced µs")
		for _, c := range tr.Calls {
			fmt.Fprintf(w, "  %-15s %10d %14.3f %14.3f\n", c.Call, c.Count, c.MeanNs/1000, c.TracedNs/1000)
		}
	}
}

// printCounters prints the network-wide NIC counters, each job's, and the
// links that stalled longest.
func printCounters(w io.Writer, res *sim.Result) {
	c := res.Counters
	fmt.Fprintf(w, "counters      %d request packets, %d flits; stalls per flit %.4f; packet latency mean %.3f  p99 %.3f  max %.3f µs\n",
		c.RequestPackets, c.RequestFlits, c.StallsPerFlit, c.Latency.MeanNs/1000, c.Latency.P99Ns/1000, c.Latency.MaxNs/1000)
	for _, j := range res.Jobs {
		if jc := j.Counters; jc != nil {
			fmt.Fprintf(w, "  job %-12s %d flits; stalls per flit %.4f; packet latency mean %.3f  p99 %.3f  max %.3f µs\n",
				j.ID, jc.RequestFlits, jc.StallsPerFlit, jc.Latency.MeanNs/1000, jc.Latency.P99Ns/1000, jc.Latency.MaxNs/1000)
		}
	}
	links := slices.Clone(c.Links)
	slices.SortStableFunc(links, func(a, b sim.LinkCounters) int { return cmp.Compare(b.StalledNs, a.StalledNs) })
	n := 0
	for _, l := range links {
		if l.StalledNs == 0 || n == 5 {
			break
		}
		if n == 0 {
			fmt.Fprintf(w, "most stalled links (time idle while a packet waited for credits):\n")
		}
		fmt.Fprintf(w, "  %s[%d] -> %s[%d]  stalled %.3f µs, %d flits, utilization %.3f\n", l.From, l.FromPort, l.To, l.ToPort, l.StalledNs/1000, l.Flits, l.Utilization)
		n++
	}
}

// throughputLine says what the throughput is and how sure it is: for
// infinite traffic the mean with its 99 % confidence interval and, when
// the run did not converge, that it did not and what the mean rests on.
func throughputLine(r *sim.Result, p sim.Params) string {
	line := fmt.Sprintf("%.2f GB/s", r.ThroughputGBs)
	if p.Finite() {
		return line
	}
	if r.ThroughputCIGBs > 0 {
		line = fmt.Sprintf("%.2f ± %.2f GB/s (99 %% CI)", r.ThroughputGBs, r.ThroughputCIGBs)
	}
	switch {
	case r.Verdict == sim.Steady:
		return line
	case r.SampledWindows == 0:
		return line + fmt.Sprintf(", NOT CONVERGED: payload delivered over all %.3f µs (the run ended before warmup plus one sample window)", r.SimTimeNs/1000)
	default:
		return line + fmt.Sprintf(", NOT CONVERGED: mean over %d sample windows of %v after warmup", r.SampledWindows, time.Duration(p.SampleWindow/1000))
	}
}

// plotSeries draws the counters over time of each job of res (or of all
// HCAs without jobs): packet latency, stalls per flit and the share of
// flits sent with high bias, one line per job.
func plotSeries(file, title string, res *sim.Result) error {
	type named struct {
		name string
		ws   []sim.CounterWindow
	}
	var all []named
	if res.Counters != nil && len(res.Counters.Series) > 0 {
		all = append(all, named{"all HCAs", res.Counters.Series})
	}
	for _, j := range res.Jobs {
		if j.Counters != nil && len(j.Counters.Series) > 0 {
			all = append(all, named{j.ID, j.Counters.Series})
		}
	}
	panels := []results.Panel{{YLabel: "packet latency [µs]"}, {YLabel: "stalls per flit"}, {YLabel: "flits sent with high bias [%]"}}
	for _, n := range all {
		var lat, st, hi results.Series
		lat.Name, st.Name, hi.Name = n.name, n.name, n.name
		for _, w := range n.ws {
			x := w.StartNs / 1000
			if w.Packets > 0 {
				lat.X, lat.Y = append(lat.X, x), append(lat.Y, w.LatencyNs/1000)
			}
			if w.RequestFlits > 0 {
				st.X, st.Y = append(st.X, x), append(st.Y, w.StallsPerFlit)
				hi.X, hi.Y = append(hi.X, x), append(hi.Y, 100*float64(w.HighFlits)/float64(w.RequestFlits))
			}
		}
		panels[0].Series = append(panels[0].Series, lat)
		panels[1].Series = append(panels[1].Series, st)
		panels[2].Series = append(panels[2].Series, hi)
	}
	return results.PanelPlot(file, title+": NIC counters over time", "time [µs]", panels)
}

// simParams returns the default parameters with the --hw and --sim
// overrides (each "" for none).
func simParams(hw, simKeys string) (sim.Params, error) {
	p := sim.DefaultParams()
	var err error
	if hw != "" {
		if p.HW, err = configs.HardwareOverrides("--hw", hw); err != nil {
			return p, asInput(err)
		}
	}
	if simKeys != "" {
		if err := configs.SimOverrides("--sim", simKeys, &p); err != nil {
			return p, asInput(err)
		}
	}
	return p, nil
}

// placedJobs loads the network spec and the jobs file and places its jobs
// (jobsSeed -1: the file's seed) after checking hardware p against the
// network.
func placedJobs(spec, jobsFile string, jobsSeed int64, p sim.Params) (*fabric.Network, []traffic.Job, error) {
	wl, err := loadJobsFile(jobsFile)
	if err != nil {
		return nil, nil, err
	}
	net, err := loadNetwork(spec)
	if err != nil {
		return nil, nil, err
	}
	if err := p.HW.CheckNetwork(net); err != nil {
		return nil, nil, badInput("--hw on %s: %v", spec, err)
	}
	jobs, err := wl.Place(net, jobsSeed, p.HW.MTU)
	if err != nil {
		return nil, nil, asInput(err)
	}
	return net, jobs, nil
}
