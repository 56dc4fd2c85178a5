package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/results"
	"flitsim/sim"
)

func runCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run", "run [FILE|NAME] [-j N] [-o DIR] [--shard I/N] | run --list",
		"Runs a campaign: every point (topology × failure level × seed × routing × traffic) is built, failed,\n"+
			"routed, verified and simulated; one JSON record per finished point is appended to DIR/results.jsonl and\n"+
			"synced, so a killed run resumes where it stopped (finished points are skipped). At the end the records\n"+
			"are sorted by point and DIR gets report.html (one page to open in a browser: the decision, tables and\n"+
			"plots), table.md, table.csv, levels.csv, report.json, SVG/PNG plots and campaign.toml (a copy of FILE)\n"+
			"(with [[job]] tables also jobs.csv and job-*.svg: each job's completion, throughput and slowdown).\n"+
			"Without FILE or NAME the embedded quickstart campaign runs.\n\n"+
			"With --shard I/N only the points whose index is I mod N run (a round-robin split: every shard gets the\n"+
			"same mix of topologies, levels, seeds and routings), into DIR (default out/NAME/shard-I-of-N) with a\n"+
			"shard.json; 'flitsim merge' combines the N shard directories into the tables of a whole run. 'flitsim\n"+
			"slurm' runs the shards as a Slurm job array.", stderr)
	workers := fs.Int("j", runtime.NumCPU(), "points simulated in parallel")
	out := fs.String("o", "", "output directory (default out/NAME, or out/NAME/shard-I-of-N)")
	shardFlag := fs.String("shard", "", "run only shard `I/N` of the campaign (0 ≤ I < N)")
	list := fs.Bool("list", false, "list the embedded campaigns")
	quiet := fs.Bool("q", false, "no progress output")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if *list {
		return listCampaigns(stdout)
	}
	if len(pos) > 1 {
		return badInput("want at most one campaign, got %d", len(pos))
	}
	name := "quickstart"
	if len(pos) == 1 {
		name = pos[0]
	}
	if *workers < 1 {
		return badInput("-j must be at least 1")
	}
	var shard configs.Shard
	if *shardFlag != "" {
		if shard, err = configs.ParseShard(*shardFlag); err != nil {
			return badInput("--shard: %v", err)
		}
	}
	c, pts, err := loadCampaign(name)
	if err != nil {
		return err
	}
	dir := campaignDir(*out, c, shard)
	store, err := openStore(dir, name, c, shard, len(pts))
	if err != nil {
		return err
	}
	defer store.Release()
	start := time.Now()
	todo, mine := pending(store, shard, len(pts))
	if !*quiet {
		what := fmt.Sprintf("campaign %s: %d points", c.Name, len(pts))
		if !shard.Whole() {
			what += fmt.Sprintf(", shard %s has %d", shard, mine)
		}
		fmt.Fprintf(stderr, "%s, %d already done, %d to run on %d workers → %s\n", what, mine-len(todo), len(todo), *workers, dir)
	}
	if len(todo) > 0 {
		warnOtherBuilds(dir, stderr)
	}
	prog := newProgress(stderr, len(todo), *quiet)
	spent := newTimeSpent()
	err = runPoints(c, pts, todo, store, *workers, prog, spent)
	if !*quiet {
		spent.write(stderr)
	}
	if cerr := store.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := store.Finalize(); err != nil {
		return err
	}
	if !shard.Whole() {
		if !*quiet {
			fmt.Fprintf(stderr, "shard %s done in %.1f s: %d points in %s; merge the %d shards with: flitsim merge -o %s %s\n",
				shard, time.Since(start).Seconds(), mine, dir, shard.N, filepath.Dir(dir), filepath.Join(filepath.Dir(dir), "shard-*-of-"+fmt.Sprint(shard.N)))
		}
		return nil
	}
	info := reportInfo(dir, c, "flitsim "+strings.Join(append([]string{"run"}, args...), " "), stderr)
	info.Elapsed = time.Since(start)
	table, err := results.WriteDir(dir, info)
	if err != nil {
		return err
	}
	if !*quiet {
		fmt.Fprintf(stderr, "done in %.1f s; results in %s (open %s in a browser)\n", time.Since(start).Seconds(), dir, filepath.Join(dir, results.ReportFile))
	}
	_, err = stdout.Write(table)
	return err
}

// listCampaigns prints the embedded campaigns with their sizes.
func listCampaigns(stdout io.Writer) error {
	for _, n := range configs.Embedded() {
		c, err := configs.Load(n)
		if err != nil {
			return err
		}
		pts, _ := c.Points()
		fmt.Fprintf(stdout, "%-11s %5d points  %s\n", n, len(pts), c.Description)
	}
	return nil
}

// campaignDir returns the output directory of shard s of campaign c: out,
// or by default out/NAME, or out/NAME/shard-I-of-N for a part.
func campaignDir(out string, c *configs.Campaign, s configs.Shard) string {
	if out != "" {
		return out
	}
	dir := filepath.Join("out", c.Name)
	if !s.Whole() {
		dir = filepath.Join(dir, shardDirName(s))
	}
	return dir
}

// openStore opens the results store of shard s of campaign c, loaded from
// name, in dir, which must not hold a shard when s is the whole campaign;
// a part gets its shard.json. The caller releases the store.
func openStore(dir, name string, c *configs.Campaign, s configs.Shard, points int) (*results.Store, error) {
	if s.Whole() {
		if _, err := results.ReadShardInfo(dir); err == nil {
			return nil, badInput("%s holds a shard (%s): run it with --shard, or merge the shards with 'flitsim merge'", dir, results.ShardFile)
		}
	}
	store, err := results.Open(dir, c.Hash(), "flitsim run "+name)
	if err != nil {
		return nil, asInput(err)
	}
	if !s.Whole() {
		si := results.ShardInfo{Campaign: c.Name, Hash: c.Hash(), Shard: s.I, Shards: s.N, Points: points, Size: s.Size(points)}
		if err := results.WriteShardInfo(dir, si); err != nil {
			store.Close()
			store.Release()
			return nil, asInput(err)
		}
	}
	// The campaign's text goes with its results, for the report.
	if err := results.WriteFileAtomic(filepath.Join(dir, campaignCopy), c.Text); err != nil {
		store.Close()
		store.Release()
		return nil, err
	}
	return store, nil
}

// pending returns the points of shard s the store has no record of yet,
// and how many points the shard has.
func pending(store *results.Store, s configs.Shard, points int) (todo []int, mine int) {
	for i := 0; i < points; i++ {
		if s.Has(i) {
			mine++
			if !store.Done(i) {
				todo = append(todo, i)
			}
		}
	}
	return todo, mine
}

// progress reports finished points: a bar on a terminal, lines otherwise.
type progress struct {
	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	w     io.Writer
	n     int
	total int
	quiet bool
}

func newProgress(w io.Writer, total int, quiet bool) *progress {
	p := &progress{w: w, total: total, quiet: quiet}
	if f, ok := w.(*os.File); ok && !quiet && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total, progressbar.OptionSetWriter(w), progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true), progressbar.OptionSetDescription("simulating"),
			progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionClearOnFinish())
	}
	return p
}

func (p *progress) done(r results.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	switch {
	case p.quiet:
	case p.bar != nil:
		_ = p.bar.Add(1)
	default:
		fmt.Fprintf(p.w, "[%d/%d] %s: %s %.2f GB/s\n", p.n, p.total, r.Key, r.Verdict, r.ThroughputGBs)
	}
}

// loadCampaign loads a campaign and checks everything a run would trip on
// (configs.Campaign.Check) before expanding it into points.
func loadCampaign(name string) (*configs.Campaign, []configs.Point, error) {
	c, err := configs.Load(name)
	if err != nil {
		return nil, nil, asInput(err)
	}
	if err := c.Check(); err != nil {
		return nil, nil, asInput(err)
	}
	pts, err := c.Points()
	if err != nil {
		return nil, nil, asInput(err)
	}
	return c, pts, nil
}

// shardDirName is the default directory of a shard inside the campaign's.
func shardDirName(s configs.Shard) string { return fmt.Sprintf("shard-%d-of-%d", s.I, s.N) }

// runPoints evaluates the points todo (indices into pts) on a pool of
// workers, and adds each point's wall time to spent.
func runPoints(c *configs.Campaign, pts []configs.Point, todo []int, store *results.Store, workers int, prog *progress, spent *timeSpent) error {
	nets := pipeline.NewNetworks()
	nets.ShareTwins()                  // a point whose draw failed nothing takes its twin's record
	for spec, net := range c.Built() { // what check built, taken rather than built again
		nets.Add(spec, net)
	}
	hash, build := c.Hash(), version()
	// A point cut into domains (from 8192 HCAs) would run its windows on
	// up to GOMAXPROCS goroutines of its own; when the pool already keeps
	// every processor busy, each point stays on its worker's goroutine.
	// Results do not depend on it.
	onePerPoint := workers >= runtime.GOMAXPROCS(0)
	work := make(chan int)
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				start := time.Now()
				pt := pts[i]
				if onePerPoint && pt.Params.Workers == 0 {
					pt.Params.Workers = 1
				}
				o := pipeline.Run(pt, hash, nets, sim.Run)
				ph := o.Seconds
				w := results.Wall{Seconds: time.Since(start).Seconds(), Fail: ph.Fail, Route: ph.Route, Sim: ph.Sim, Build: build}
				if err := store.Append(o.Record, w); err != nil {
					errs <- err
					return
				}
				prog.done(o.Record)
				spent.add(o.Record.TopologyLabel, w)
			}
		}()
	}
	var err error
feed:
	for _, i := range todo {
		select {
		case work <- i:
		case err = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	return err
}

func checkCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("check", "check FILE|NAME", "Checks a campaign as a run would, except simulating: reads every file it names, builds every\n"+
		"topology, draws every failure level with every seed, resolves every routing's roots and dump and builds every\n"+
		"traffic pattern; prints its size. A campaign that passes check fails no point for a reason check could see.\n\n"+
		"Keys of the [hardware] and [sim] tables:\n"+configs.KnobHelp(), stderr)
	name, err := parseOne(fs, args, "campaign FILE or NAME")
	if err != nil {
		return err
	}
	c, pts, err := loadCampaign(name)
	if err != nil {
		return err
	}
	levels := 0
	var kinds []string
	for _, f := range c.Faults {
		levels += len(f.Percent)
		kinds = append(kinds, f.Label)
	}
	fmt.Fprintf(stdout, "%s: campaign %q is valid: %d topologies, %d failure levels (%s), %d routings, %d traffic patterns → %d points\n",
		c.Source, c.Name, len(c.Topologies), levels, strings.Join(kinds, ", "), len(c.Routings), len(c.Traffic), len(pts))
	return nil
}

func tableCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("table", "table DIR [--format md|csv|json] [--against OLD]",
		"Prints the regression table (intercept, slope, R² of throughput on failed components), the usability\n"+
			"matrix and the per-level means of a results directory, and rewrites its report.html (unless a run or\n"+
			"merge holds the directory). With --against OLD it prints instead every failure level's mean against\n"+
			"the same level in results directory OLD: how far it moved, and whether within OLD's interval (its\n"+
			"95 % interval over seeds or, where the seeds give no spread, its runs' own 99 % interval).", stderr)
	format := fs.String("format", "md", "md, csv or json")
	against := fs.String("against", "", "results directory to compare the levels with")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	switch *format {
	case "md", "csv", "json":
	default:
		return badInput("--format %q: want md, csv or json", *format)
	}
	dir, recs, err := resultsArg(pos)
	if err != nil {
		return err
	}
	if *against != "" {
		_, old, err := resultsArg([]string{*against})
		if err != nil {
			return fmt.Errorf("--against: %w", err)
		}
		moves, missing := results.Compare(old, recs)
		return asInput(results.WriteMoves(stdout, moves, missing, *format))
	}
	if err := results.WriteTable(stdout, results.Summarize(recs), *format); err != nil {
		return asInput(err)
	}
	if err := rewriteReport(dir, recs, "flitsim "+strings.Join(append([]string{"table"}, args...), " "), stderr); err != nil {
		fmt.Fprintf(stderr, "%s not rewritten: %v\n", results.ReportFile, err)
	}
	return nil
}

// rewriteReport renders dir's report from recs without holding the
// directory (rendering draws every figure), then takes its lock only to
// check that no record came meanwhile and to put the page in place. A run
// or merge holding the directory, or new records, leave the old page.
func rewriteReport(dir string, recs []results.Record, command string, stderr io.Writer) error {
	var page bytes.Buffer
	if err := results.WriteReport(&page, reportInfo(dir, nil, command, stderr), recs); err != nil {
		return err
	}
	lock, err := results.AcquireLock(dir, command)
	if err != nil {
		return err
	}
	defer lock.Release()
	now, err := results.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(now) != len(recs) {
		return fmt.Errorf("%s got new records while the page was drawn", dir)
	}
	return results.WriteFileAtomic(filepath.Join(dir, results.ReportFile), page.Bytes())
}

func plotCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot", "plot DIR", "Writes SVG and PNG plots of a results directory into it.", stderr)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	dir, recs, err := resultsArg(pos)
	if err != nil {
		return err
	}
	files, err := results.Plot(dir, recs)
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return err
}

// resultsArg reads the one argument of table and plot, a results
// directory, and its records; a directory without any is bad input.
func resultsArg(pos []string) (string, []results.Record, error) {
	dir, err := oneArg(pos, "results DIR")
	if err != nil {
		return "", nil, err
	}
	recs, err := results.ReadDir(dir)
	if err != nil {
		return "", nil, err
	}
	if len(recs) == 0 {
		return "", nil, badInput("%s holds no results", dir)
	}
	return dir, recs, nil
}

// warnOtherBuilds says on stderr when points already in results directory
// dir were run by another flitsim than this one: resuming mixes the two
// builds' results, which differ wherever the model changed between them.
func warnOtherBuilds(dir string, stderr io.Writer) {
	walls, err := results.ReadWalls(dir)
	if err != nil {
		return // the report says what it cannot read
	}
	names, points := results.Builds(walls)
	var other []string
	for _, n := range names {
		if n != version() {
			if n == "" {
				other = append(other, fmt.Sprintf("%d by a flitsim that did not record its build", points[n]))
			} else {
				other = append(other, fmt.Sprintf("%d by flitsim %s", points[n], n))
			}
		}
	}
	if len(other) > 0 {
		fmt.Fprintf(stderr, "warning: %s: points already there were run by another flitsim (%s); this is %s. "+
			"If the model changed between them the tables mix both; -o to a new directory runs every point with this one.\n",
			dir, strings.Join(other, ", "), version())
	}
}
