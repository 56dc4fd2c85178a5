package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/routing/opensm"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// simReport is what `flitsim sim --json` prints.
type simReport struct {
	Topology string `json:"topology"`
	Routing  string `json:"routing"`
	Traffic  string `json:"traffic"`
	*sim.Result
	DeadlockFreeTables bool   `json:"deadlock_free_tables"`
	RoutingError       string `json:"routing_error,omitempty"`
	// Simulator is "fast" or "reference".
	Simulator string          `json:"simulator"`
	Hardware  fabric.Hardware `json:"hardware"`
}

func simCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("sim", "sim SPEC|FILE --routing NAME --traffic KIND [--msg-bytes N] [--load F] [--max-time D] [--seed S] [--hw key=value,...] [--links P --switches P] [--reference] [--json]",
		"Routes the network and simulates traffic at flit level. Finite traffic (exchange) runs to completion;\n"+
			"infinite traffic (uniform, shift, permutation, bitrev, hotspot) runs to steady state or --max-time.\n"+
			"Verdicts: completed, steady, deadlock, not_converged. --hw overrides hardware parameters with the keys of a\n"+
			"campaign's [hardware] table, e.g. --hw crossbar_gbps=32,switch_latency=100ns,hiccup=0.", stderr)
	engine := fs.String("routing", "dfsssp", "routing engine (flitsim route --list)")
	kind := fs.String("traffic", "uniform", "traffic pattern: "+trafficKinds())
	msg := fs.String("msg-bytes", "1MTU", "message size: bytes, KiB or MTU (e.g. 2048, 2KiB, 10MTU)")
	load := fs.Float64("load", 1, "offered load per HCA, fraction of the link rate")
	maxTime := fs.Duration("max-time", 0, "simulated time limit (default 10ms for infinite traffic, 10s for the exchange, which ends by itself)")
	seed := fs.Uint64("seed", 1, "seed of the traffic streams")
	vls := fs.Int("vls", 8, "virtual lanes available")
	roots := fs.String("roots", "", "root switches for updn/dnup")
	lfts := fs.String("lfts", "", "LFT dump for --routing file")
	distance := fs.Int("distance", 1, "shift distance (traffic shift)")
	useRef := fs.Bool("reference", false, "simulate with the per-flit reference simulator (slow; the specification the fast one is tested against)")
	hwFlag := fs.String("hw", "", "hardware overrides key=value,... with the keys of a campaign's [hardware] table")
	asJSON := fs.Bool("json", false, "print JSON")
	ff := faultFlags{seedName: "fault-seed"}
	ff.register(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	spec, err := oneArg(pos, "SPEC or FILE")
	if err != nil {
		return err
	}
	net, err := loadConnected(spec)
	if err != nil {
		return err
	}
	fspec, err := ff.spec()
	if err != nil {
		return err
	}
	if fspec.LinkPercent+fspec.SwitchPercent+fspec.MixedPercent > 0 || len(fspec.Fixed) > 0 {
		if net, _, err = faults.Inject(net, fspec); err != nil {
			return asInput(err)
		}
	}
	k, err := traffic.ParseKind(*kind)
	if err != nil {
		return asInput(err)
	}
	p := sim.DefaultParams()
	if *hwFlag != "" {
		if p.HW, err = configs.HardwareOverrides("--hw", *hwFlag); err != nil {
			return asInput(err)
		}
	}
	p.Seed = *seed
	p.Traffic.Kind = k
	if !(*load > 0 && *load <= 1) {
		return badInput("--load %g: want the offered load as a fraction of the link in (0, 1]", *load)
	}
	p.Traffic.Load = *load
	p.Traffic.Distance = *distance
	distanceSet := false
	fs.Visit(func(f *flag.Flag) { distanceSet = distanceSet || f.Name == "distance" })
	if distanceSet && k != traffic.Shift {
		return badInput("--distance only applies to --traffic shift")
	}
	if *distance == 0 {
		return badInput("--distance 0 sends every terminal to itself")
	}
	if p.Traffic.MessageBytes, err = traffic.ParseBytes(*msg, p.HW.MTU); err != nil {
		return badInput("--msg-bytes: %v", err)
	}
	if p.Traffic.MessageBytes > sim.MaxMessageBytes {
		return badInput("--msg-bytes %s: more than %d bytes", *msg, sim.MaxMessageBytes)
	}
	switch {
	case *maxTime < 0:
		return badInput("--max-time must be positive")
	case *maxTime == 0 && p.Traffic.Finite():
		*maxTime = 10 * time.Second
	case *maxTime == 0:
		*maxTime = 10 * time.Millisecond
	}
	p.MaxTime = maxTime.Nanoseconds() * 1000
	if !opensm.Known(*engine) {
		return badInput("unknown routing engine %q (known: %s, and opensm:<engine>)", *engine, strings.Join(routing.Names(), ", "))
	}
	opts := routing.Options{VLs: *vls, File: *lfts}
	if *roots != "" {
		opts.Roots = strings.Split(*roots, ",")
	}
	if err := checkRouteFlags(net, []string{*engine}, *vls, opts.Roots, *lfts); err != nil {
		return err
	}
	if *vls > p.HW.VLs {
		return badInput("--vls %d: the hardware has %d VLs (--hw vls=N)", *vls, p.HW.VLs)
	}
	rep := simReport{Topology: net.Name, Routing: *engine, Traffic: string(k), Simulator: "fast", Hardware: p.HW}
	run := sim.Run
	if *useRef {
		rep.Simulator, run = "reference", reference.Run
	}
	tb, err := opensm.Compute(*engine, net, opts)
	if err != nil {
		rep.RoutingError = err.Error()
		if *asJSON {
			rep.Result = &sim.Result{Verdict: sim.Verdict(results.RoutingFailed)}
			return writeJSON(stdout, rep)
		}
		return fmt.Errorf("routing failed: %w", err)
	}
	v, err := routing.Verify(net, tb)
	if err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("routing %s gives incomplete tables: %s", *engine, v.Problem)
	}
	rep.DeadlockFreeTables = v.DeadlockFree
	res, err := run(net, tb, p)
	if err != nil {
		return asInput(err)
	}
	rep.Result = res
	if *asJSON {
		return writeJSON(stdout, rep)
	}
	fmt.Fprintf(stdout, "%s, routed by %s (deadlock-free tables: %v), %s traffic of %d-byte messages at load %g\n",
		net.Describe(), *engine, v.DeadlockFree, k, p.Traffic.MessageBytes, p.Traffic.Load)
	fmt.Fprintf(stdout, "verdict       %s\n", res.Verdict)
	fmt.Fprintf(stdout, "throughput    %s\n", throughputLine(res, p))
	b := res.HCABandwidthGBs
	fmt.Fprintf(stdout, "HCA bandwidth min %.3f  q1 %.3f  median %.3f  q3 %.3f  max %.3f GB/s\n", b.Min, b.Q1, b.Median, b.Q3, b.Max)
	fmt.Fprintf(stdout, "simulated     %.3f µs", res.SimTimeNs/1000)
	if res.RuntimeNs > 0 {
		fmt.Fprintf(stdout, " (exchange runtime %.3f µs)", res.RuntimeNs/1000)
	}
	fmt.Fprintf(stdout, "\nwork          %d events, %d flit-hops in %.2f s wall (%.2f M flit-hops/s)\n",
		res.Events, res.FlitHops, res.WallSeconds, res.FlitHopsPerS/1e6)
	if len(res.DeadlockCycle) > 0 {
		fmt.Fprintf(stdout, "deadlock: %d flits stuck; cycle of full buffers waiting on each other:\n", res.FlitsStuck)
		for _, b := range res.DeadlockCycle {
			fmt.Fprintf(stdout, "  %s[%d] VL%d (fed by %s[%d])\n", b.Node, b.Port, b.VL, b.From, b.FromPort)
		}
	}
	return nil
}

func trafficKinds() string {
	var k []string
	for _, x := range traffic.Kinds() {
		k = append(k, x.Kind)
	}
	return strings.Join(k, ", ")
}

// throughputLine says what the throughput is and how sure it is: for
// infinite traffic the mean with its 99 % confidence interval and, when
// the run did not converge, that it did not and what the mean rests on.
func throughputLine(r *sim.Result, p sim.Params) string {
	line := fmt.Sprintf("%.2f GB/s", r.ThroughputGBs)
	if p.Traffic.Finite() {
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
