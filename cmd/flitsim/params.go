package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"flitsim/configs"
	"flitsim/fabric/param"
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
			rows = append(rows, paramRow{Table: table, Key: d.Key, Type: d.Kind.String(), Unit: d.Unit,
				Default: d.Format(d.Get(defaults)), Range: d.Range(), Help: d.Help})
		}
	}
	for _, t := range configs.Tables() {
		add("["+t.Name+"]", t.Decls, t.Defaults)
	}
	var ts traffic.Spec
	param.Defaults(&ts)
	add("[[traffic]]", param.Of(&ts), &ts)
	readers := map[string][]string{}
	var order []string
	help := map[string]string{}
	def := map[string]string{}
	for _, e := range engines.All() {
		for _, p := range e.Params {
			if readers[p.Name] == nil {
				order = append(order, p.Name)
				help[p.Name], def[p.Name] = p.Help, p.Default
			}
			readers[p.Name] = append(readers[p.Name], e.Name)
		}
	}
	isKey := map[string]bool{}
	for _, k := range configs.RoutingKeys() {
		isKey[k] = true
	}
	for _, k := range order {
		if !isKey[k] {
			continue // an input of the engine that is no key (jobs: a campaign's [[job]] tables)
		}
		rows = append(rows, paramRow{Table: "[[routing]]", Key: k, Type: "engine option", Default: def[k],
			Help: help[k] + "; read by " + strings.Join(readers[k], ", ")})
	}
	return rows
}
