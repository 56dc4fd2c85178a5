// Command flitsim generates, fails, routes and simulates lossless HPC
// interconnects at flit level, and sweeps fail-in-place campaigns.
//
// Exit status: 0 success, 1 a run failed, 2 bad input (flags, specs, files).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
)

func main() {
	os.Exit(profiled(func() int { return Main(os.Args[1:], os.Stdout, os.Stderr) }))
}

// profiled runs f under the CPU and heap profilers the environment asks for:
// FLITSIM_CPUPROFILE=FILE writes a CPU profile of the whole command,
// FLITSIM_MEMPROFILE=FILE a heap profile at its end (read with go tool pprof).
func profiled(f func() int) int {
	if p := os.Getenv("FLITSIM_CPUPROFILE"); p != "" {
		out, err := os.Create(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "flitsim: FLITSIM_CPUPROFILE: %v\n", err)
			return 2
		}
		defer out.Close()
		if err := pprof.StartCPUProfile(out); err != nil {
			fmt.Fprintf(os.Stderr, "flitsim: FLITSIM_CPUPROFILE: %v\n", err)
			return 2
		}
		defer pprof.StopCPUProfile()
	}
	code := f()
	if p := os.Getenv("FLITSIM_MEMPROFILE"); p != "" {
		out, err := os.Create(p)
		if err == nil {
			runtime.GC()
			err = pprof.WriteHeapProfile(out)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "flitsim: FLITSIM_MEMPROFILE: %v\n", err)
		}
	}
	return code
}

// command is one subcommand of the CLI.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	c := []command{
		{"check", "validate a campaign file without running it", checkCmd},
		{"ibmodel", "run the thesis' simulator (the Mellanox OMNeT++ IB model) beside flitsim on the same inputs", ibmodelCmd},
		{"jobs", "workloads of jobs: slowdown sweeps, adaptive modes compared, job histories replayed with SAR; jobs files and histories from Slurm", jobsCmd},
		{"lost", "count the paths failures break before the subnet manager reroutes (Props. 4.1/4.2, Fig. 4.2)", lostCmd},
		{"merge", "combine the shard directories of a campaign into its tables and plots", mergeCmd},
		{"params", "list every parameter a campaign or flag may set: key, type, unit, default, range, help", paramsCmd},
		{"plot", "write SVG/PNG plots of a results directory", plotCmd},
		{"table", "print the regression and usability tables of a results directory", tableCmd},
		{"reroute", "the subnet manager's reroute after failed cables, step by step: pairs lost until every switch has its new tables", rerouteCmd},
		{"route", "route a network with one or more engines, verify and measure the tables; check a reroute against Def. 5.5 (route update)", routeCmd},
		{"run", "run a campaign (the main job; default: the embedded quickstart)", runCmd},
		{"sim", "simulate traffic on a routed network at flit level", simCmd},
		{"slurm", "run a campaign on a Slurm cluster as a job array plus a merge job", slurmCmd},
		{"topo", "generate, inspect and fail topologies (gen, info, faults, list)", topoCmd},
		{"trace", "read an MPI (DUMPI) or AI-training (Chakra) trace and summarize what a trace job would replay", traceCmd},
	}
	sort.Slice(c, func(i, j int) bool { return c[i].name < c[j].name })
	return c
}

// inputError marks an error caused by bad input; it exits with status 2.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

func badInput(format string, v ...any) error { return inputError{fmt.Errorf(format, v...)} }

// asInput marks err (if any) as bad input.
func asInput(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

// Main runs the CLI and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands() {
		if c.name == args[0] {
			err := c.run(args[1:], stdout, stderr)
			switch {
			case err == nil:
				return 0
			case errors.Is(err, flag.ErrHelp):
				return 0
			case errors.As(err, new(inputError)):
				fmt.Fprintf(stderr, "flitsim %s: %v\n", c.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "flitsim %s: %v\n", c.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "flitsim: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "flitsim — flit-level simulation of fail-in-place HPC interconnects")
	fmt.Fprintln(w, "\nUsage: flitsim COMMAND [arguments]  (flitsim COMMAND --help for details)")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nExit status: 0 ok, 1 a run failed, 2 bad input.")
	fmt.Fprintln(w, "Profiles: FLITSIM_CPUPROFILE=FILE and FLITSIM_MEMPROFILE=FILE write pprof profiles of a command.")
}

// newFlags returns a FlagSet whose errors are returned, with a usage text.
func newFlags(name, synopsis, description string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: flitsim %s\n\n%s\n", synopsis, strings.TrimSpace(description))
		var has bool
		fs.VisitAll(func(*flag.Flag) { has = true })
		if has {
			fmt.Fprintln(stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parseFlags parses flags that may appear before, between or after the
// positional arguments, and returns the positional ones. A bad flag is one
// line naming it (no usage text: --help prints that).
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	usage, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = usage; fs.SetOutput(out) }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(out)
				usage()
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
