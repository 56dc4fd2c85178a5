package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"flitsim/configs"
	"flitsim/traffic"
	"flitsim/traffic/dumpi"
)

// traceCmd summarizes a trace a trace job would replay.
func traceCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("trace", "trace DIR|FILE [--algorithm A] [--json]",
		"Reads an MPI trace (a DUMPI trace's directory or .meta file) or a Chakra execution trace (a\n"+
			"directory of NAME.NPU.et files, or the path NAME) as a trace job would (docs/traces.md), checks\n"+
			"every record, and prints what it does: ranks, communicators, calls by kind, point-to-point\n"+
			"messages and bytes, computation per rank, and the messages its replay sends with the\n"+
			"collectives expanded by --algorithm (default: MPICH's choice; NCCL's rings for Chakra).", stderr)
	alg := fs.String("algorithm", "", "the collectives' algorithms, as a trace job's algorithm key: mpich, or collective=algorithm,...")
	asJSON := fs.Bool("json", false, "print JSON")
	path, err := parseOne(fs, args, "DIR or FILE")
	if err != nil {
		return err
	}
	p, err := configs.LoadTrace(path)
	if err != nil {
		return badInput("%v", err)
	}
	s, err := traffic.Summarize(p, *alg)
	if err != nil {
		return badInput("%v", err)
	}
	var skipped map[string]int64
	if t, ok := p.(*dumpi.Trace); ok {
		skipped = t.Skipped
	}
	if *asJSON {
		out := struct {
			traffic.TraceSummary
			Skipped map[string]int64 `json:"skipped,omitempty"`
		}{s, skipped}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	fmt.Fprintf(stdout, "%s: %d ranks, %d communicators\n", s.Name, s.Ranks, s.Communicators)
	fmt.Fprintf(stdout, "point-to-point   %d messages, %d bytes\n", s.P2PMessages, s.P2PBytes)
	fmt.Fprintf(stdout, "collectives      %d bytes given to them in all\n", s.CollectiveData)
	fmt.Fprintf(stdout, "compute per rank %.3f µs mean, %.3f µs max; in calls (traced) %.3f µs mean\n", s.ComputeNs/1000, s.ComputeMaxNs/1000, s.TracedNs/1000)
	fmt.Fprintf(stdout, "replay sends     %d messages\n", s.Messages)
	fmt.Fprintf(stdout, "calls:")
	for _, k := range slices.Sorted(mapsKeys(s.Calls)) {
		fmt.Fprintf(stdout, " %s %d", k, s.Calls[k])
	}
	fmt.Fprintln(stdout)
	if len(skipped) > 0 {
		fmt.Fprintf(stdout, "not replayed (they move data the replay has no target for):")
		for _, k := range slices.Sorted(mapsKeys(skipped)) {
			fmt.Fprintf(stdout, " %s %d", k, skipped[k])
		}
		fmt.Fprintln(stdout)
	}
	return nil
}

func mapsKeys(m map[string]int64) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
