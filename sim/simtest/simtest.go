// Package simtest interprets the data-driven test scripts of packages
// routing and sim (testdata/script/*.txt), in the style of etcd-io/raft's
// interaction tests, with github.com/cockroachdb/datadriven: each script is a
// sequence of commands whose output is compared with the golden text under
// the command; `go test -run TestDataDriven -rewrite` regenerates it.
//
// One Driver per script holds a fabric, its failures, a routing, hardware,
// traffic and the last simulation result. Commands (arguments in brackets
// are optional; a node is a name, or a terminal index for an HCA):
//
//	topo SPEC                     build a fabric (fabric.Build); forgets everything else
//	hw [key=value ...]            hardware: defaults with overrides (keys of [hardware])
//	fail link A B|PORT            fail one cable (faults, fixed failure list)
//	fail switch S                 fail one switch (its HCAs leave)
//	fail links=P% [switches=P%] [seed=N] [take-hcas]
//	                              seeded non-critical failures (faults.Inject)
//	fail                          with a failure list as input, one failure a line
//	route ENGINE [vls=N] [roots=(A, B)] [lfts=FILE]
//	                              route, verify and measure the current fabric
//	route keep                    the last tables, carried onto the fabric as it
//	                              is now: what it forwards by until rerouted
//	path src=X dst=Y              one route hop by hop: from[port]→to[port]@VL
//	tables                        every switch's forwarding to every HCA
//	ebb [patterns=N] [seed=N]     effective bisection bandwidth estimate
//	traffic KIND [bytes=N] [load=F] [distance=N] [hot=F] [order=O]
//	                              the pattern of the next runs (traffic.Spec;
//	                              order lays its ranks on the HCAs)
//	inject src=X dst=Y [bytes=N]  the next run sends one message each way
//	                              between two HCAs alone (see below)
//	run [reference] [seed=N] [max_time=D] [patterns=(K, …)] [knob=value ...]
//	                              simulate (sim.Run); with reference, also
//	                              sim/reference.Run, and both must agree;
//	                              patterns runs each traffic kind in turn;
//	                              knobs are the keys of a campaign's [sim]
//	stats                         the last run's result
//	deliveries [src=X] [dst=Y] [limit=N] [expect=(D, …)]
//	                              the last run's packets, injection and delivery;
//	                              expect lists the delivery instants computed by
//	                              hand (Go durations), checked even under -rewrite
//
// sim has no single-message traffic, so inject removes every other HCA
// (fabric.Network.Without), routes what is left with the engine and options
// of the last route command, and runs the exchange pattern on the two HCAs:
// each sends one message to the other, on opposite channels.
//
// Failures of the system under test (a routing that cannot route, a fault
// that would cut HCAs off, parameters a run refuses) are output, "error: …",
// so scripts pin them; a script that misuses a command fails the test.
// Output holds no wall time: every line is a pure function of the script.
// Some properties are checked on every run and fail the test whatever the
// golden text says: delivery instants given as expect=, the reference
// agrees with the fast simulator, and each
// wait of a reported deadlock cycle is a dependency of the routing's channel
// dependency graph.
package simtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// RunScripts runs every script under dir, each in a subtest with a fresh
// Driver.
func RunScripts(t *testing.T, dir string) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		d := NewDriver()
		datadriven.RunTest(t, path, d.Cmd)
	})
}

// Driver is the state of one script.
type Driver struct {
	net *fabric.Network
	// The last routing: its tables, the network it was computed on (which
	// failures since may have replaced), engine and options.
	tables    *routing.Tables
	tablesNet *fabric.Network
	engine    string
	opts      routing.Options

	hw      fabric.Hardware
	traffic traffic.Spec
	inject  *injection

	// The last run: its network and tables (inject reduces both) and result.
	runNet    *fabric.Network
	runTables *routing.Tables
	res       *sim.Result
}

// NewDriver returns a driver with default hardware and no fabric.
func NewDriver() *Driver {
	return &Driver{hw: fabric.DefaultHardware(), traffic: sim.DefaultParams().Traffic}
}

// Cmd runs one command and returns its output.
func (d *Driver) Cmd(t *testing.T, td *datadriven.TestData) string {
	var f func(*testing.T, *datadriven.TestData, *strings.Builder)
	switch td.Cmd {
	case "topo":
		f = d.cmdTopo
	case "hw":
		f = d.cmdHW
	case "fail":
		f = d.cmdFail
	case "route":
		f = d.cmdRoute
	case "path":
		f = d.cmdPath
	case "tables":
		f = d.cmdTables
	case "ebb":
		f = d.cmdEBB
	case "traffic":
		f = d.cmdTraffic
	case "inject":
		f = d.cmdInject
	case "run":
		f = d.cmdRun
	case "stats":
		f = d.cmdStats
	case "deliveries":
		f = d.cmdDeliveries
	default:
		td.Fatalf(t, "unknown command %q", td.Cmd)
	}
	if td.Cmd != "topo" && td.Cmd != "hw" && d.net == nil {
		td.Fatalf(t, "%s before topo", td.Cmd)
	}
	var b strings.Builder
	f(t, td, &b)
	return b.String()
}

// words returns the command's arguments as written (datadriven splits
// key=value pairs; a topology spec such as torus:dims=3x3 comes back whole).
func words(td *datadriven.TestData) []string {
	w := make([]string, len(td.CmdArgs))
	for i, a := range td.CmdArgs {
		w[i] = a.String()
	}
	return w
}

// val returns the single value of key, or def when it is not given.
func val(t *testing.T, td *datadriven.TestData, key, def string) string {
	a, ok := td.Arg(key)
	if !ok {
		return def
	}
	return a.SingleVal(t)
}

func intArg(t *testing.T, td *datadriven.TestData, key string, def int) int {
	s := val(t, td, key, strconv.Itoa(def))
	n, err := strconv.Atoi(s)
	if err != nil {
		td.Fatalf(t, "%s=%s: want an integer", key, s)
	}
	return n
}

func floatArg(t *testing.T, td *datadriven.TestData, key string, def float64) float64 {
	s := strings.TrimSuffix(val(t, td, key, strconv.FormatFloat(def, 'g', -1, 64)), "%")
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		td.Fatalf(t, "%s=%s: want a number", key, s)
	}
	return x
}

// only fails the test when an argument other than keys is given.
func only(t *testing.T, td *datadriven.TestData, keys ...string) {
	for _, a := range td.CmdArgs {
		if !slices.Contains(keys, a.Key) {
			td.Fatalf(t, "%s: unknown argument %q (known: %s)", td.Cmd, a.Key, strings.Join(keys, ", "))
		}
	}
}

// hca resolves an HCA argument of net: a terminal index (HCA i is node
// NumSwitches+i) or a node name.
func hca(t *testing.T, td *datadriven.TestData, net *fabric.Network, key string) int {
	s := val(t, td, key, "")
	n, err := strconv.Atoi(s)
	switch {
	case s == "":
		td.Fatalf(t, "%s: %s= missing", td.Cmd, key)
	case err == nil && (n < 0 || n >= net.NumHCAs()):
		td.Fatalf(t, "%s=%d: the fabric has %d HCAs", key, n, net.NumHCAs())
	case err == nil:
		n += net.NumSwitches
	default:
		i, ok := net.ByName()[s]
		if !ok || net.IsSwitch(i) {
			td.Fatalf(t, "%s=%s: no such HCA", key, s)
		}
		n = i
	}
	return n
}

// describe is a one-line summary of a fabric.
func describe(net *fabric.Network) string {
	in := fabric.Summarize(net)
	return fmt.Sprintf("%d switches, %d HCAs, %d switch cables; diameter %d (HCA to HCA %d), connectivity %d/%d (switches/cables)",
		in.Switches, in.HCAs, in.SwitchLinks, in.Diameter, in.HCADiameter, in.VertexConnectivity, in.EdgeConnectivity)
}

func (d *Driver) cmdTopo(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	spec := strings.Join(words(td), " ")
	net, err := fabric.Build(spec)
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
		return
	}
	*d = Driver{net: net, hw: d.hw, traffic: d.traffic}
	fmt.Fprintf(b, "%s: %s\n", net.Name, describe(net))
}

// cmdHW sets the hardware to the defaults with the given overrides and
// prints the times a hand computation needs.
func (d *Driver) cmdHW(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	hw, err := fabric.HardwareFrom(strings.Join(words(td), ","))
	if err != nil {
		fmt.Fprintf(b, "error: hw: %v\n", err)
		return
	}
	d.hw = hw
	hiccup := "none"
	if hw.HiccupPs > 0 {
		hiccup = fmt.Sprintf("%s every %s", ns(hw.HiccupPs), ns(hw.HiccupPeriodPs))
	}
	fmt.Fprintf(b, "flit %s on a link, %s through a crossbar, %s on the host bus; cable %s; switch latency %s; hiccups %s\n",
		ns(hw.FlitPs()), ns(hw.CrossbarFlitPs()), ns(hw.PCIeFlitPs()), ns(hw.CablePs()), ns(hw.SwitchLatencyPs), hiccup)
	fmt.Fprintf(b, "MTU %d bytes + %d header bytes = %d flits of %d bytes; %d VLs; buffers %d/%d/%d flits (switch in/out, HCA); voq %v\n",
		hw.MTU, hw.HeaderBytes, hw.PacketFlits(hw.MTU), hw.FlitBytes, hw.VLs, hw.InputBufferFlits, hw.OutputBufferFlits, hw.HCABufferFlits, hw.VOQ)
	hop := "a flit is taken once it has fully arrived"
	if hw.ForwardAtStart {
		hop = "a flit is taken at the start of its reception"
	}
	fmt.Fprintf(b, "%s; an MTU packet's last flit takes %s on a link\n", hop, ns(hw.LastFlitPs(hw.FlitPs(), hw.LastFlitBytes(hw.MTU))))
	if hw.BubbleVLs != 0 {
		fmt.Fprintf(b, "bubble flow control on VLs %b (bit per VL, VL 0 rightmost)\n", hw.BubbleVLs)
	}
}

// ns formats picoseconds as nanoseconds, exactly.
func ns(ps int64) string {
	sign := ""
	if ps < 0 {
		sign, ps = "-", -ps
	}
	if ps%1000 == 0 {
		return fmt.Sprintf("%s%d ns", sign, ps/1000)
	}
	return strings.TrimRight(fmt.Sprintf("%s%d.%03d", sign, ps/1000, ps%1000), "0") + " ns"
}

func (d *Driver) cmdFail(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	var spec faults.Spec
	list := td.Input
	if len(td.CmdArgs) > 0 && (td.CmdArgs[0].Key == "link" || td.CmdArgs[0].Key == "switch") {
		list = strings.Join(words(td), " ") + "\n" + list
	} else {
		only(t, td, "links", "switches", "seed", "take-hcas")
		spec.LinkPercent = floatArg(t, td, "links", 0)
		spec.SwitchPercent = floatArg(t, td, "switches", 0)
		spec.Seed = uint64(intArg(t, td, "seed", 1))
		spec.TakeHCAs = td.HasArg("take-hcas")
	}
	fx, err := faults.ParseFixed(strings.NewReader(list), "fail")
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	spec.Fixed = fx
	before := d.net
	net, rec, err := faults.Inject(before, spec)
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
		return
	}
	d.net, d.inject = net, nil
	links := make([]string, len(rec.Links))
	for i, l := range rec.Links {
		links[i] = fmt.Sprintf("%s[%d]—%s[%d]", l.A, l.PortA, l.B, l.PortB)
	}
	for _, l := range []struct {
		what  string
		names []string
	}{{"failed cables", links}, {"failed switches", rec.Switches}, {"HCAs gone with their switch", rec.RemovedHCAs},
		{"switches cut off", rec.Unreachable}} {
		if len(l.names) > 0 {
			fmt.Fprintf(b, "%s: %s\n", l.what, strings.Join(l.names, " "))
		}
	}
	if rec.Redrawn > 0 {
		fmt.Fprintf(b, "draws rejected as critical: %d\n", rec.Redrawn)
	}
	fmt.Fprintf(b, "left: %s\n", describe(net))
	if d.tables != nil && d.tablesNet == before {
		d.brokenPaths(t, td, b, before, rec)
	}
}

// brokenPaths prints how many HCA pairs the failures of rec cut from the
// routes computed before them (routing.BrokenPaths).
func (d *Driver) brokenPaths(t *testing.T, td *datadriven.TestData, b *strings.Builder, net *fabric.Network, rec faults.Record) {
	failed := make([]bool, len(net.Links))
	byName := net.ByName()
	for _, l := range rec.Links {
		failed[net.LinkAt(byName[l.A], l.PortA)] = true
	}
	for _, s := range append(rec.Switches, rec.Unreachable...) {
		for p := 1; p <= net.Nodes[byName[s]].Radix; p++ {
			if l := net.LinkAt(byName[s], p); l >= 0 {
				failed[l] = true
			}
		}
	}
	broken, total, err := routing.BrokenPaths(net, d.tables, failed)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	fmt.Fprintf(b, "routes of %s broken until rerouted: %d of %d HCA pairs\n", d.tables.Engine, broken, total)
}
