package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"flitsim/configs"
	"flitsim/routing/engines"
)

func paramsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("params", "params [--json]",
		"Lists every key a campaign file accepts, table by table (a jobs file's are those of [[job]] and\n"+
			"[fragmentation]), with its type, default and range: the top level, [[topology]], [faults], [[routing]]\n"+
			"(with the engines that read each option), [[traffic]], [hardware] and [sim] (also sim --hw and --sim),\n"+
			"[[job]] and [fragmentation]. Each is declared once, next to the field that holds it; this table, the\n"+
			"decoders, the flags, the help texts and the checks all read that declaration.", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("params takes no arguments, got %q", pos)
	}
	rows := paramRows()
	if *asJSON {
		return writeJSON(stdout, rows)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "table\tkey\ttype\tdefault\trange\thelp")
	for _, r := range rows {
		table := r.Table
		if table == "" {
			table = "(top level)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", table, r.Key, r.Type, r.Default, r.Range, r.Help)
	}
	return tw.Flush()
}

// paramRows lists every key a campaign accepts (configs.Keys), with the
// engines that read each routing option.
func paramRows() []configs.Key {
	readers := map[string][]string{}
	for _, e := range engines.All() {
		for _, k := range e.Params {
			readers[k] = append(readers[k], e.Name)
		}
	}
	rows := configs.Keys()
	for i, r := range rows {
		if rd := readers[r.Key]; r.Table == "[[routing]]" && len(rd) > 0 {
			rows[i].Help += "; read by " + strings.Join(rd, ", ")
		}
	}
	return rows
}
