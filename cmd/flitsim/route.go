package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/routing/opensm"
)

// routeReport is what `flitsim route` prints for one engine.
type routeReport struct {
	Routing   string `json:"routing"`
	OK        bool   `json:"ok"`
	Error     string `json:"error,omitempty"`
	VLsNeeded int    `json:"vls_needed"`
	// VLsAtLeast: the engine failed knowing only that it needs at least
	// VLsNeeded VLs.
	VLsAtLeast   bool          `json:"vls_needed_at_least,omitempty"`
	VLsUsed      int           `json:"vls_used"`
	DeadlockFree bool          `json:"deadlock_free"`
	Cycle        []routing.Hop `json:"cycle,omitempty"`
	// RingCyclesOnly: every dependency cycle lies within one torus ring
	// (on the VLs of RingVLs, a bit each): deadlock-free with bubble flow
	// control there (hardware bubble_vls).
	RingCyclesOnly bool `json:"ring_cycles_only,omitempty"`
	RingVLs        int  `json:"ring_vls,omitempty"`
	Unreachable    int  `json:"unreachable_pairs"`
	routing.Metrics
	// JobMetrics (with --jobs): the metrics of the thesis' §5.1.
	*routing.JobMetrics
	EBB *float64 `json:"ebb,omitempty"`
	// SigmaK is σ(K, R) (--sigma-k).
	SigmaK *float64 `json:"sigma_k,omitempty"`
	K      float64  `json:"k,omitempty"`
	// RouteMS is the engine's time, CheckMS the verification's and the
	// metrics' after it.
	RouteMS float64         `json:"route_ms"`
	CheckMS float64         `json:"check_ms"`
	Notes   []string        `json:"notes,omitempty"`
	Verdict routing.Verdict `json:"-"`
}

func routeCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "update" {
		return routeUpdate(args[1:], stdout, stderr)
	}
	fs := newFlags("route", "route SPEC|FILE --routing NAME[,NAME…] [--vls 8] [--roots A,B] [--jobs FILE [--mixes N]] [--dump-lfts FILE] [--json] | route --list | route update SPEC --from A --to B ...",
		"Routes the network with each engine, verifies the tables (every HCA pair reachable, no loop,\n"+
			"per-VL channel dependency graph acyclic or one cycle shown) and prints routing metrics.\n"+
			"Failure flags (--links, --switches, --fault-seed, …) inject faults first, as `flitsim topo faults` does.\n"+
			"With --jobs it also measures, per engine, the metrics of the thesis' §5.1 for the jobs of the file:\n"+
			"the effective edge forwarding index (max over channels, mean over jobs of each job's max), the dark\n"+
			"fiber percentage and the channels per job; sar routes for those jobs. --mixes N repeats this over N\n"+
			"seeded job mixes and reports sar's improvement over every other engine as Tables 5.1/5.2 do.\n"+
			"On a terminal, a line on stderr shows how far each engine has come (its stage and share done).\n"+
			"Exit status 1 (after the report) if an engine could not route the network.", stderr)
	names := &setString{v: "dfsssp"}
	fs.Var(names, "routing", "engine(s), comma separated; see --list; opensm:<engine> runs the real OpenSM")
	compare := fs.String("compare", "", "opensm: route with flitsim's and OpenSM's implementation side by side (default: all ten engines)")
	list := fs.Bool("list", false, "list the engines and their parameters")
	dump := fs.String("dump-lfts", "", "write the tables as an OpenSM opensm-lfts.dump to this `file` (one engine only)")
	ebb := fs.Int("ebb", 0, "also estimate the effective bisection bandwidth over this many random matchings")
	sigmaK := fs.Float64("sigma-k", 0, "also report σ(k, R) of seeds/003 §1.1 for this k ≥ 1 (σ4 is always shown)")
	jobsFile := fs.String("jobs", "", "jobs `file` ([[job]] tables, [fragmentation]): route for these jobs (sar) and measure the effective EFI, dark fiber and links per job of §5.1")
	mixes := fs.Int("mixes", 0, "with --jobs: draw this many job mixes (workload seeds from --mix-seed on), route the job-aware engines per mix and report SAR's improvement as Tables 5.1/5.2")
	mixSeed := fs.Int64("mix-seed", -1, "with --jobs: the workload seed (default: the file's seed, else 1)")
	var ff faultFlags
	ff.register(fs)
	var rf routeFlags
	rf.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *list {
		listEngines(stdout)
		return nil
	}
	spec, err := oneArg(pos, "SPEC or FILE")
	if err != nil {
		return err
	}
	engs, err := routeEngines(names, *compare)
	if err != nil {
		return err
	}
	if *dump != "" && len(engs) != 1 {
		return badInput("--dump-lfts needs exactly one engine")
	}
	if err := checkOutFile("--dump-lfts", *dump); err != nil {
		return err
	}
	if *ebb < 0 {
		return badInput("--ebb %d: want a number of random matchings ≥ 0", *ebb)
	}
	if *sigmaK != 0 && !(*sigmaK >= 1 && *sigmaK <= 1e6) {
		return badInput("--sigma-k %g: want a k in [1, 1e6]", *sigmaK)
	}
	work, err := routeWorkload(*jobsFile, *compare, *dump, *mixes, *mixSeed)
	if err != nil {
		return err
	}
	net, err := ff.failedNetwork(spec)
	if err != nil {
		return err
	}
	opts, err := rf.options(net, engs)
	if err != nil {
		return err
	}
	var jobs [][]int
	var ids []string
	if work != nil {
		if *mixes > 0 {
			return routeMixesCmd(stdout, stderr, net, work, engs, opts, *mixSeed, *mixes, *asJSON)
		}
		if jobs, ids, err = work.Resolve(net, *mixSeed); err != nil {
			return asInput(err)
		}
		opts.Jobs = jobs
	}
	if *compare != "" {
		cmp, err := opensm.Compare(net, engs, opts)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(stdout, cmp)
		}
		printComparison(stdout, net, cmp)
		return nil
	}
	reports, err := routeEach(net, engs, opts, *ebb, *sigmaK, work != nil, *dump, newStatusLine(stderr))
	if err != nil {
		return err
	}
	if err := printRoute(stdout, net, reports, jobs, ids, *asJSON); err != nil {
		return err
	}
	return routeFailures(reports)
}

// printRoute prints the reports of route (JSON: one object for one
// engine), with the job metrics of jobs when there are jobs.
func printRoute(w io.Writer, net *fabric.Network, reports []routeReport, jobs [][]int, ids []string, asJSON bool) error {
	if asJSON {
		if len(reports) == 1 {
			return writeJSON(w, reports[0])
		}
		return writeJSON(w, reports)
	}
	printRouteReports(w, net, reports)
	if jobs != nil {
		sizes := make([]int, len(jobs))
		for i, j := range jobs {
			sizes[i] = len(j)
		}
		printJobMetrics(w, reports, ids, sizes)
	}
	return nil
}

// routeMixesCmd is route --jobs --mixes: the job-aware engines over
// seeded job mixes, from seed mixSeed on (default the file's, else 1).
func routeMixesCmd(stdout, stderr io.Writer, net *fabric.Network, work *configs.Workload, engs []string, opts routing.Options, mixSeed int64, mixes int, asJSON bool) error {
	first := mixSeed
	if first < 0 {
		first = 1
		if work.Seed != nil {
			first = *work.Seed
		}
	}
	var progress io.Writer
	if !asJSON {
		progress = stderr
	}
	rep, err := pipeline.Mixes(net, work, engs, opts, first, mixes, progress)
	if ie := (*pipeline.InputError)(nil); errors.As(err, &ie) {
		return asInput(err)
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(stdout, rep)
	}
	printMixes(stdout, rep)
	return nil
}

// routeWorkload reads the jobs file of route --jobs and checks the flags
// that go with it; nil without --jobs.
func routeWorkload(jobsFile, compare, dump string, mixes int, mixSeed int64) (*configs.Workload, error) {
	if mixSeed < -1 {
		return nil, badInput("--mix-seed %d: want a seed ≥ 0", mixSeed)
	}
	if jobsFile == "" {
		if mixes != 0 || mixSeed != -1 {
			return nil, badInput("--mixes and --mix-seed need --jobs FILE")
		}
		return nil, nil
	}
	work, err := loadJobsFile(jobsFile)
	switch {
	case err != nil:
		return nil, err
	case compare != "":
		return nil, badInput("--compare and --jobs: the comparison with OpenSM does not take jobs")
	case mixes < 0:
		return nil, badInput("--mixes %d: want a number of job mixes ≥ 0", mixes)
	case mixes > 0 && dump != "":
		return nil, badInput("--dump-lfts and --mixes: a job-aware engine has tables per mix")
	}
	return work, nil
}

// routeEach routes net with every engine and reports each: σ(k) when k is
// not 0, the job metrics of opts.Jobs when jobs is set; dump names the
// file the (one) engine's tables go to; line, if not nil, shows each
// routing's progress.
func routeEach(net *fabric.Network, engs []string, opts routing.Options, ebb int, k float64, jobs bool, dump string, line *statusLine) ([]routeReport, error) {
	var reports []routeReport
	for _, name := range engs {
		r, tb, err := routeOne(net, name, opts, ebb, line.routing(name))
		line.end()
		if err != nil {
			return nil, err
		}
		if k != 0 && tb != nil && r.OK {
			x, err := routing.Sigma(net, tb, k)
			if err != nil {
				return nil, err
			}
			r.SigmaK, r.K = &x, k
			r.Notes = append(r.Notes, fmt.Sprintf("σ(%g) = %.3f", k, x))
		}
		if jobs && tb != nil && r.OK {
			m, err := routing.MeasureJobs(net, tb, opts.Jobs)
			if err != nil {
				return nil, err
			}
			r.JobMetrics = &m
		}
		if dump != "" && tb != nil {
			if err := dumpLFTs(dump, net, tb); err != nil {
				return nil, err
			}
		}
		reports = append(reports, r)
	}
	return reports, nil
}

// routeFailures is the error `route` ends with when engines could not
// route the network (their reasons are in the report already), so that
// a script sees exit status 1.
func routeFailures(reports []routeReport) error {
	var failed []string
	for _, r := range reports {
		if !r.OK {
			failed = append(failed, r.Routing)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d of %d engines could not route the network: %s", len(failed), len(reports), strings.Join(failed, ", "))
}

// listEngines prints the registry with each engine's parameters.
func listEngines(w io.Writer) {
	for _, e := range engines.All() {
		fmt.Fprintf(w, "%-17s %s\n", e.Name, e.Help)
		opts := routing.DefaultOptions()
		for _, k := range e.Params {
			d, _ := param.Find(routing.OptionDecls(), k)
			def := d.DefaultText(&opts)
			if def == "" {
				def = "none"
			}
			fmt.Fprintf(w, "%17s %s (default %s): %s\n", "", k, def, d.Help)
		}
	}
}

// routeEngines are the engines --routing and --compare name.
func routeEngines(names *setString, compare string) ([]string, error) {
	engs := strings.Split(names.v, ",")
	if compare == "" {
		return engs, nil
	}
	if compare != "opensm" {
		return nil, badInput("--compare takes opensm, not %q", compare)
	}
	if !names.IsSet() {
		engs = opensm.Engines()
	}
	for _, n := range engs {
		if strings.HasPrefix(n, opensm.Prefix) {
			return nil, badInput("--compare opensm takes flitsim's engine names, not %q", n)
		}
	}
	return engs, nil
}

func dumpLFTs(path string, net *fabric.Network, tb *routing.Tables) error {
	if tb.Source != nil {
		return badInput("--dump-lfts: %s routes by source routes, which an LFT dump cannot hold", tb.Engine)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := routing.WriteLFTs(f, net, tb); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// routeOne routes, verifies and measures, telling w (if not nil) how far
// it has come; an engine's failure to route is a result (ok=false), not
// an error.
func routeOne(net *fabric.Network, name string, opts routing.Options, ebbPatterns int, w routing.Watch) (routeReport, *routing.Tables, error) {
	r := routeReport{Routing: name}
	start := time.Now()
	rt, err := pipeline.RouteWatched(net, name, opts, w)
	if errors.Is(err, opensm.ErrMissing) {
		return r, nil, inputError{err}
	}
	if err != nil {
		return r, nil, err
	}
	r.RouteMS = float64(rt.Elapsed.Microseconds()) / 1000
	r.CheckMS = float64((time.Since(start) - rt.Elapsed).Microseconds()) / 1000
	r.OK, r.Error = rt.OK(), rt.Problem()
	if rt.Failure != nil {
		var f *routing.Failure
		if errors.As(rt.Failure, &f) {
			r.VLsNeeded, r.VLsAtLeast = f.VLsNeeded, f.AtLeast
		}
		return r, nil, nil
	}
	v, m, tb := rt.Verdict, rt.Metrics, rt.Tables
	r.Verdict = v
	r.VLsNeeded, r.VLsUsed = tb.VLsNeeded, v.VLsUsed
	r.DeadlockFree, r.Cycle, r.Unreachable = v.DeadlockFree, v.Cycle, v.Unreachable
	r.RingCyclesOnly, r.RingVLs = v.RingCyclesOnly, v.RingVLs
	r.Metrics = m
	r.Notes = tb.Notes
	if ebbPatterns > 0 && r.OK {
		x, err := routing.EffectiveBisection(net, tb, ebbPatterns, 1)
		if err != nil {
			return r, nil, err
		}
		r.EBB = &x
	}
	return r, tb, nil
}

func printRouteReports(w io.Writer, net *fabric.Network, reports []routeReport) {
	fmt.Fprintln(w, net.Describe())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "routing\tok\tdeadlock-free\tVLs needed/used\tEFI min\tmax\tmean\tsdv\tpath mean\tmax\tσ4\tebb\troute ms\t")
	for _, r := range reports {
		if r.Error != "" && r.Verdict.Problem == "" && !r.OK {
			need := strconv.Itoa(r.VLsNeeded)
			if r.VLsAtLeast {
				need = "≥" + need
			}
			fmt.Fprintf(tw, "%s\tfailed\t\t%s\t\t\t\t\t\t\t\t\t%.1f\t\n", r.Routing, need, r.RouteMS)
			continue
		}
		ebb := "-"
		if r.EBB != nil {
			ebb = fmt.Sprintf("%.3f", *r.EBB)
		}
		df := fmt.Sprint(r.DeadlockFree)
		if r.RingCyclesOnly {
			df = fmt.Sprintf("bubble_vls=%d", r.RingVLs)
		}
		fmt.Fprintf(tw, "%s\t%v\t%s\t%d/%d\t%d\t%d\t%.1f\t%.1f\t%.2f\t%d\t%.1f\t%s\t%.1f\t\n", r.Routing, r.OK, df,
			r.VLsNeeded, r.VLsUsed, r.EFIMin, r.EFIMax, r.EFIMean, r.EFISdv, r.PathLenMean, r.PathLenMax, r.Sigma4, ebb, r.RouteMS)
	}
	tw.Flush()
	for _, r := range reports {
		if r.Error != "" {
			// An engine's failure already names the engine.
			fmt.Fprintf(w, "%s: %s\n", r.Routing, strings.TrimPrefix(r.Error, r.Routing+": "))
		}
		if len(r.Cycle) > 0 {
			hops := make([]string, len(r.Cycle))
			for i, h := range r.Cycle {
				hops[i] = h.String()
			}
			within := ""
			if r.RingCyclesOnly {
				within = " (every cycle lies within one torus ring: deadlock-free with bubble flow control, hardware bubble_vls)"
			}
			fmt.Fprintf(w, "%s: cyclic channel dependencies%s, e.g. %s\n", r.Routing, within, strings.Join(hops, " → "))
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "%s: %s\n", r.Routing, n)
		}
	}
}

// setString is a string flag that knows whether it was given.
type setString struct {
	v   string
	set bool
}

func (s *setString) String() string { return s.v }
func (s *setString) Set(v string) error {
	s.v, s.set = v, true
	return nil
}
func (s *setString) IsSet() bool { return s.set }

// engineMS formats a side's engine time ("-" unknown).
func engineMS(s opensm.Side) string {
	if s.EngineMS < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", s.EngineMS)
}

func printComparison(w io.Writer, net *fabric.Network, cmp []opensm.Comparison) {
	fmt.Fprintln(w, net.Describe())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\tside\tok\tdeadlock-free\tVLs\tVLs by\tEFI min\tmean\tmax\tpath mean\tmax\troute ms\tengine ms\tsame LFT\t")
	for _, c := range cmp {
		same := "-"
		if c.SameLFT >= 0 {
			same = fmt.Sprintf("%.1f %%", 100*c.SameLFT)
		}
		for i, s := range []opensm.Side{c.Flitsim, c.OpenSM} {
			who := [2]string{"flitsim", "opensm"}[i]
			if !s.OK {
				fmt.Fprintf(tw, "%s\t%s\tfailed\t\t%d\t\t\t\t\t\t\t%.1f\t%s\t%s\t\n", c.Engine, who, s.VLsNeeded, s.RouteMS, engineMS(s), same)
				continue
			}
			by := "engine"
			switch s.SLSource {
			case routing.SLsFromLog:
				by = "opensm log"
			case routing.SLsByFlitsim:
				by = "flitsim"
			}
			fmt.Fprintf(tw, "%s\t%s\t%v\t%v\t%d\t%s\t%d\t%.1f\t%d\t%.2f\t%d\t%.1f\t%s\t%s\t\n", c.Engine, who, s.OK, s.DeadlockFree, s.VLsNeeded, by,
				s.EFIMin, s.EFIMean, s.EFIMax, s.PathLenMean, s.PathLenMax, s.RouteMS, engineMS(s), same)
		}
	}
	tw.Flush()
	for _, c := range cmp {
		for i, s := range []opensm.Side{c.Flitsim, c.OpenSM} {
			if s.Error != "" {
				fmt.Fprintf(w, "%s (%s): %s\n", c.Engine, [2]string{"flitsim", "opensm"}[i], s.Error)
			}
		}
	}
}
