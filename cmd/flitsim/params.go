package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"flitsim/configs"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/traffic"
)

// paramRow is one line of `flitsim params`.
type paramRow struct {
	Table   string `json:"table"`
	Key     string `json:"key"`
	Type    string `json:"type"`
	Unit    string `json:"unit,omitempty"`
	Default string `json:"default"`
	Range   string `json:"range,omitempty"`
	Help    string `json:"help"`
}

func paramsCmd(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("params", "params [--json]",
		"Lists every declared parameter: the keys of a campaign's [hardware] and [sim] tables (also --hw of sim),\n"+
			"the numeric keys of [[traffic]] entries, and the options of [[routing]] entries with the engines that read\n"+
			"them. Each is declared once, next to the field that holds it; this table, the help texts and the\n"+
			"validation all read that declaration.", stderr)
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Table, r.Key, r.Type, r.Default, r.Range, r.Help)
	}
	return tw.Flush()
}

// paramRows collects the declarations in a fixed order.
func paramRows() []paramRow {
	var rows []paramRow
	add := func(table string, decls []param.Decl, defaults any) {
		for _, d := range decls {
			rows = append(rows, declRow(table, d, defaults))
		}
	}
	for _, t := range configs.Tables() {
		add("["+t.Name+"]", t.Decls, t.Defaults)
	}
	var ts traffic.Spec
	param.Defaults(&ts)
	add("[[traffic]]", param.Of(&ts), &ts)
	readers := map[string][]string{}
	for _, e := range engines.All() {
		for _, k := range e.Params {
			readers[k] = append(readers[k], e.Name)
		}
	}
	opts := routing.DefaultOptions()
	for _, d := range routing.OptionDecls() {
		r := declRow("[[routing]]", d, &opts)
		r.Help += "; read by " + strings.Join(readers[d.Key], ", ")
		rows = append(rows, r)
	}
	return rows
}

// declRow is the row of declaration d, its default read from defaults
// (or what leaving it out means).
func declRow(table string, d param.Decl, defaults any) paramRow {
	return paramRow{Table: table, Key: d.Key, Type: d.Kind.String(), Unit: d.Unit, Default: d.DefaultText(defaults), Range: d.Range(), Help: d.Help}
}
