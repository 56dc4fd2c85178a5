package main

import (
	"fmt"
	"io"
	"strings"

	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// updateReport is what `flitsim route update --json` prints.
type updateReport struct {
	Network   string               `json:"network"`
	From      string               `json:"from"`
	To        string               `json:"to"`
	Plain     routing.UpdateReport `json:"plain_update"`
	FivePhase routing.FivePhase    `json:"five_phase"`
}

func routeUpdate(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("route update", "route update SPEC|FILE --from ENGINE --to ENGINE [--from-jobs FILE] [--to-jobs FILE] [--from-roots R] [--to-roots R] [--data-vls N] [routing flags] [--json]",
		"Checks a reroute of the fabric from one routing state to another against Def. 5.5 of the thesis\n"+
			"(§5.2.3): as a plain update, OpenSM writing the new tables switch by switch while packets meet a\n"+
			"mixture of both (both states deadlock-free, the HCA pairs whose path changes and may be delivered\n"+
			"out of order, forwarding loops and dependency cycles only the mixture closes, with one cycle), and\n"+
			"under the five-phase update protocol (high LIDs on Up*/Down* on the last of --data-vls VLs, the\n"+
			"base states below it). Each state is an engine, with the jobs of a jobs file for the job-aware\n"+
			"ones (sar: a job mix changing) and roots of its own (updn, dnup, ftree); the routing flags apply\n"+
			"to both. Exit status 1 if the plain update is not property preserving.", stderr)
	from := fs.String("from", "", "the engine of the old state")
	to := fs.String("to", "", "the engine of the new state")
	fromJobs := fs.String("from-jobs", "", "jobs file the old state is routed for (job-aware engines)")
	toJobs := fs.String("to-jobs", "", "jobs file the new state is routed for (job-aware engines)")
	fromRoots := fs.String("from-roots", "", "root switches of the old state, comma separated")
	toRoots := fs.String("to-roots", "", "root switches of the new state, comma separated")
	dataVLs := fs.Int("data-vls", 8, "the hardware's data VLs (the five-phase protocol keeps the last for the high LIDs)")
	asJSON := fs.Bool("json", false, "print JSON")
	var rf routeFlags
	rf.register(fs)
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	switch {
	case *from == "" || *to == "":
		return badInput("--from and --to: both states' engines are required")
	case *dataVLs < 1 || *dataVLs > 15:
		return badInput("--data-vls %d: want 1..15", *dataVLs)
	}
	net, _, opts, err := routedNetwork(spec, *from+","+*to, &rf)
	if err != nil {
		return err
	}
	state := func(engine, jobsFile, roots, flag string) (*routing.Tables, error) {
		o := opts
		if roots != "" {
			o.Roots = strings.Split(roots, ",")
		}
		if jobsFile != "" {
			jobs, err := updateJobs(net, jobsFile, flag)
			if err != nil {
				return nil, err
			}
			o.Jobs = traffic.Ranks(jobs)
		}
		r, err := pipeline.Route(net, engine, o)
		if err != nil {
			return nil, asInput(fmt.Errorf("%s: %w", flag, err))
		}
		if !r.OK() {
			return nil, badInput("%s %s: %s", flag, engine, r.Problem())
		}
		return r.Tables, nil
	}
	old, err := state(*from, *fromJobs, *fromRoots, "--from")
	if err != nil {
		return err
	}
	nw, err := state(*to, *toJobs, *toRoots, "--to")
	if err != nil {
		return err
	}
	plain, err := routing.CheckUpdate(net, old, nw)
	if err != nil {
		return err
	}
	five, err := routing.CheckFivePhase(net, old, nw, *dataVLs, plain)
	if err != nil {
		return err
	}
	rep := updateReport{Network: net.Name, From: *from, To: *to, Plain: plain, FivePhase: five}
	if *asJSON {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		yes := map[bool]string{true: "yes", false: "NO"}
		fmt.Fprintf(stdout, "%s: %s → %s\n", net.Describe(), *from, *to)
		fmt.Fprintf(stdout, "plain update (tables written switch by switch, packets meet both):\n")
		fmt.Fprintf(stdout, "  1. both states deadlock-free        %s (old %s, new %s)\n", yes[plain.OldDeadlockFree && plain.NewDeadlockFree], yes[plain.OldDeadlockFree], yes[plain.NewDeadlockFree])
		fmt.Fprintf(stdout, "  2. per-flow consistent              %s (%d of %d HCA pairs change path)\n", yes[plain.ChangedPairs == 0], plain.ChangedPairs, plain.Pairs)
		fmt.Fprintf(stdout, "     no transient forwarding loop     %s (%d destinations can loop)\n", yes[plain.LoopDests == 0], plain.LoopDests)
		fmt.Fprintf(stdout, "  3. the mixture cannot deadlock      %s\n", yes[plain.MixedDeadlockFree])
		if len(plain.MixedCycle) > 0 {
			hops := make([]string, len(plain.MixedCycle))
			for i, h := range plain.MixedCycle {
				hops[i] = h.String()
			}
			fmt.Fprintf(stdout, "     cycle: %s\n", strings.Join(hops, " → "))
		}
		fmt.Fprintf(stdout, "five-phase update (%d VLs: base on 0..%d, high LIDs on %d): %s", five.VLs, five.VLs-2, five.VLs-1, map[bool]string{true: "property preserving", false: "not applicable"}[five.Holds])
		if five.Problem != "" {
			fmt.Fprintf(stdout, ": %s", five.Problem)
		}
		fmt.Fprintln(stdout)
	}
	if !plain.PropertyPreserving() {
		return fmt.Errorf("the plain update from %s to %s is not property preserving (Def. 5.5)", *from, *to)
	}
	return nil
}

// updateJobs places a state's jobs file on net (its own seed).
func updateJobs(net *fabric.Network, path, flag string) ([]traffic.Job, error) {
	wl, err := loadJobsFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s-jobs: %w", flag, err)
	}
	jobs, err := wl.Place(net, -1, sim.DefaultParams().HW.MTU)
	if err != nil {
		return nil, asInput(err)
	}
	return jobs, nil
}
