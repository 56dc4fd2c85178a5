package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"flitsim/fabric"
	"flitsim/faults"
)

const topoHelp = `
Subcommands:
  gen SPEC [-o FILE]            write the network as an ibnetdiscover/ibsim netlist
  info SPEC|FILE [--json]        switches, HCAs, cables, diameter, connectivity
  faults SPEC|FILE [flags]       inject seeded non-critical failures and report them
  list                           every generator with its parameters

SPEC is kind:key=value,... (lists with x), e.g.
  torus:dims=5x5,hcas=275,redundancy=6     kary-ntree:k=16,n=2
  xgft:m=22,w=11,hcas=264                  dragonfly:a=10,p=5,h=5,g=4,hcas=280
  random:switches=32,hcas=256,links=256,radix=36,seed=1
  file:path/to/fabric.topo  (or just a path to an ibnetdiscover/ibsim file)`

func topoCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(stdout, "Usage: flitsim topo SUBCOMMAND [arguments]\n%s\n", topoHelp)
		if len(args) == 0 {
			return badInput("missing subcommand (gen, info, faults, list)")
		}
		return nil
	}
	switch args[0] {
	case "gen":
		return topoGen(args[1:], stdout, stderr)
	case "info":
		return topoInfo(args[1:], stdout, stderr)
	case "faults":
		return topoFaults(args[1:], stdout, stderr)
	case "list":
		return topoList(stdout)
	}
	return badInput("unknown subcommand %q (gen, info, faults, list)", args[0])
}

// parseOne parses the flags and returns the one positional argument.
func parseOne(fs *flag.FlagSet, args []string, what string) (string, error) {
	pos, err := parseFlags(fs, args)
	if err != nil {
		return "", err
	}
	return oneArg(pos, what)
}

func oneArg(pos []string, what string) (string, error) {
	if len(pos) != 1 {
		return "", badInput("want exactly one %s, got %d arguments", what, len(pos))
	}
	return pos[0], nil
}

func topoGen(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("topo gen", "topo gen SPEC [-o FILE]",
		"Generates the topology and writes it in ibnetdiscover format (which ibsim loads as a netlist).", stderr)
	out := fs.String("o", "", "output file (default: standard output)")
	spec, err := parseOne(fs, args, "SPEC")
	if err != nil {
		return err
	}
	net, err := loadNetwork(spec)
	if err != nil {
		return err
	}
	if *out == "" {
		return fabric.WriteIBNetDiscover(stdout, net)
	}
	return writeNetlist(*out, net)
}

// writeNetlist writes net to path in ibnetdiscover format.
func writeNetlist(path string, net *fabric.Network) error {
	if err := checkOutFile("-o", path); err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fabric.WriteIBNetDiscover(f, net); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func topoInfo(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("topo info", "topo info SPEC|FILE [--json]",
		"Prints the network's size and graph metrics; connectivity and diameter are measured on the switch graph.", stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	spec, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	net, err := loadNetwork(spec)
	if err != nil {
		return err
	}
	in := fabric.Summarize(net)
	if *asJSON {
		return writeJSON(stdout, in)
	}
	printInfo(stdout, in)
	return nil
}

func printInfo(w io.Writer, in fabric.Info) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "network\t%s\n", in.Name)
	fmt.Fprintf(tw, "switches\t%d\n", in.Switches)
	fmt.Fprintf(tw, "HCAs\t%d\n", in.HCAs)
	fmt.Fprintf(tw, "switch links\t%d (redundancy r=%d)\n", in.SwitchLinks, in.Redundancy)
	fmt.Fprintf(tw, "HCA links\t%d\n", in.HCALinks)
	fmt.Fprintf(tw, "diameter\t%d switch hops, %d HCA to HCA\n", in.Diameter, in.HCADiameter)
	fmt.Fprintf(tw, "vertex connectivity\t%d\n", in.VertexConnectivity)
	fmt.Fprintf(tw, "edge connectivity\t%d\n", in.EdgeConnectivity)
	if in.ConnectivityMethod != "" {
		fmt.Fprintf(tw, "connectivity method\t%s\n", in.ConnectivityMethod)
	}
	if in.Groups > 0 {
		fmt.Fprintf(tw, "groups\t%d\n", in.Groups)
		fmt.Fprintf(tw, "switch links by class\trank-1 %d, rank-2 %d, rank-3 %d\n", in.Classes["rank-1"], in.Classes["rank-2"], in.Classes["rank-3"])
	}
	if in.Rates != nil {
		var rates []string
		for r, c := range in.Rates {
			if r == "" {
				r = "unstated (link_gbps)"
			} else {
				r += " Gbit/s"
			}
			rates = append(rates, fmt.Sprintf("%s: %d", r, c))
		}
		sort.Strings(rates)
		fmt.Fprintf(tw, "links by rate\t%s\n", strings.Join(rates, ", "))
	}
	tw.Flush()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func topoFaults(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("topo faults", "topo faults SPEC|FILE [--links P] [--switches P] [--mixed P --ratio S:L] [--fixed FILE] [--fault-seed S] [--json] [-o FILE]",
		"Injects seeded, non-critical failures (every HCA still reaches every other) and prints what failed.\n"+
			"Draws that would disconnect HCAs are redrawn from the same stream and counted.", stderr)
	var ff faultFlags
	ff.register(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	out := fs.String("o", "", "also write the surviving network to this netlist `file`")
	specArg, err := parseOne(fs, args, "SPEC or FILE")
	if err != nil {
		return err
	}
	net, err := loadNetwork(specArg)
	if err != nil {
		return err
	}
	spec, err := ff.spec()
	if err != nil {
		return err
	}
	after, rec, err := faults.Inject(net, spec)
	if err != nil {
		return asInput(err)
	}
	if *out != "" {
		if err := writeNetlist(*out, after); err != nil {
			return err
		}
	}
	info := fabric.Summarize(after)
	if *asJSON {
		return writeJSON(stdout, struct {
			Before fabric.Info   `json:"before"`
			After  fabric.Info   `json:"after"`
			Faults faults.Record `json:"faults"`
		}{fabric.Summarize(net), info, rec})
	}
	fmt.Fprintf(stdout, "%d cables and %d switches failed (seed %d, %d draws redrawn)\n", len(rec.Links), len(rec.Switches), rec.Seed, rec.Redrawn)
	for _, l := range rec.Links {
		fmt.Fprintf(stdout, "  link   %s[%d] — %s[%d]\n", l.A, l.PortA, l.B, l.PortB)
	}
	for _, s := range rec.Switches {
		fmt.Fprintf(stdout, "  switch %s\n", s)
	}
	if len(rec.RemovedHCAs) > 0 {
		fmt.Fprintf(stdout, "  %d HCAs left the workload with their switches\n", len(rec.RemovedHCAs))
	}
	for _, s := range rec.Unreachable {
		fmt.Fprintf(stdout, "  switch %s cut off (no HCAs), dropped\n", s)
	}
	fmt.Fprintln(stdout)
	printInfo(stdout, info)
	return nil
}

func topoList(w io.Writer) error {
	for _, g := range fabric.Generators() {
		fmt.Fprintf(w, "%s — %s\n  example: %s\n", g.Kind, g.Help, g.Example)
		for _, p := range g.Params {
			def := ""
			if p.Default != "" {
				def = " (default " + p.Default + ")"
			}
			typ := "int"
			if p.Type == fabric.ListParam {
				typ = "list"
			}
			fmt.Fprintf(w, "    %-11s %-4s %s%s\n", p.Name, typ, p.Help, def)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "file — an ibnetdiscover dump or ibsim netlist; a cable whose line states a width and speed (4xDDR, or ibsim's w= s=) runs at that rate (hardware file_rates)\n  example: file:fabric.topo")
	return nil
}

// checkOutFile rejects an output file whose directory does not exist.
func checkOutFile(flag, path string) error {
	if path == "" {
		return nil
	}
	if st, err := os.Stat(filepath.Dir(path)); err != nil || !st.IsDir() {
		return badInput("%s %s: no directory %s to write it in", flag, path, filepath.Dir(path))
	}
	return nil
}
