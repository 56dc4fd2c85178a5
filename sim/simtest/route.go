package simtest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
)

func (d *Driver) cmdRoute(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	if len(td.CmdArgs) == 0 || len(td.CmdArgs[0].Vals) > 0 {
		td.Fatalf(t, "route ENGINE|keep [OPTION=VALUE ...] (routing.Options' keys, or their flags: vls=N roots=A,B lfts=FILE path_vls=true ...)")
	}
	engine := td.CmdArgs[0].Key
	td.CmdArgs = td.CmdArgs[1:]
	d.inject = nil
	decls := routing.OptionDecls()
	var names []string
	for _, dc := range decls {
		names = append(names, dc.Key, dc.Flag)
	}
	only(t, td, names...)
	if engine == "keep" {
		if d.tables == nil {
			td.Fatalf(t, "route keep: nothing routed yet")
		}
		if d.tables.Adaptive != nil || d.tables.Source != nil {
			td.Fatalf(t, "route keep: %s routes every packet on the network it was built for; route again", d.tables.Engine)
		}
		d.tables, d.tablesNet = carry(d.tablesNet, d.tables, d.net), d.net
		d.report(t, td, b)
		return
	}
	opts := routing.DefaultOptions()
	for _, dc := range decls {
		a, ok := td.Arg(dc.Key)
		if !ok {
			a, ok = td.Arg(dc.Flag)
		}
		if !ok {
			continue
		}
		x, err := dc.ParseText(strings.Join(a.Vals, ","), param.Env{})
		if err != nil {
			td.Fatalf(t, "%s: %v", a.Key, err)
		}
		dc.Put(&opts, x)
	}
	d.engine, d.opts = engine, opts
	tb, err := routing.Compute(engine, d.net, opts)
	if err != nil {
		d.tables, d.tablesNet = nil, nil
		var f *routing.Failure
		if !errors.As(err, &f) {
			fmt.Fprintf(b, "error: %v\n", err)
			return
		}
		fmt.Fprintf(b, "routing failed: %s", f.Reason)
		if f.VLsNeeded > 0 {
			at := ""
			if f.AtLeast {
				at = "at least "
			}
			fmt.Fprintf(b, " (VLs needed: %s%d)", at, f.VLsNeeded)
		}
		b.WriteByte('\n')
		return
	}
	d.tables, d.tablesNet = tb, d.net
	d.report(t, td, b)
}

// carry returns the tables of from mapped onto to, a network that failures
// left of it: the same forwarding entries, service levels and SL→VL tables
// by switch name and LID (Without keeps names, LIDs and port numbers), as a
// fabric keeps forwarding until its subnet manager reroutes.
func carry(from *fabric.Network, tb *routing.Tables, to *fabric.Network) *routing.Tables {
	out := routing.NewTables(to, strings.TrimSuffix(tb.Engine, " (kept)")+" (kept)")
	out.VLsNeeded, out.VLsUsed = tb.VLsNeeded, tb.VLsUsed
	old := from.ByName()
	for s := 0; s < to.NumSwitches; s++ {
		o := old[to.Nodes[s].Name]
		for lid := 1; lid <= int(to.MaxLID()); lid++ {
			out.SetPort(s, uint16(lid), int(tb.Port(o, uint16(lid))))
			out.SetSL(s, uint16(lid), tb.SL(o, uint16(lid)))
		}
		if !tb.HasSL2VL() {
			continue
		}
		r := to.Nodes[s].Radix
		for in := 0; in <= r; in++ {
			for op := 1; op <= r; op++ {
				for sl := uint8(0); sl < routing.MaxVLs; sl++ {
					if vl := tb.VL(o, in, op, sl); vl != sl {
						out.SetVL(s, in, op, sl, vl)
					}
				}
			}
		}
	}
	for sl := uint8(0); sl < routing.MaxVLs; sl++ {
		out.SetInjectVL(sl, tb.InjectVL(sl))
	}
	return out
}

// report prints the verification and metrics of the current tables.
func (d *Driver) report(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	net, tb := d.net, d.tables
	v, err := routing.Verify(net, tb)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	n := net.NumHCAs()
	if v.Complete {
		fmt.Fprintf(b, "%s: all %d HCA pairs reachable", tb.Engine, n*(n-1))
	} else {
		fmt.Fprintf(b, "%s: %d of %d HCA pairs unreachable (%d looping): %s", tb.Engine, v.Unreachable, n*(n-1), v.Looping, v.Problem)
	}
	if v.DeadlockFree {
		fmt.Fprintf(b, ", deadlock-free\n")
	} else {
		ring := ""
		if v.RingCyclesOnly {
			ring = fmt.Sprintf(" (every cycle within one ring: deadlock-free with bubble_vls=%d)", v.RingVLs)
		}
		fmt.Fprintf(b, ", not deadlock-free: a CDG cycle of %d channels%s\n  %s\n", len(v.Cycle), ring, hops(v.Cycle))
		for i, h := range v.Cycle {
			if next := v.Cycle[(i+1)%len(v.Cycle)]; h.To != next.From {
				t.Errorf("%s: the cycle breaks between %s and %s", td.Pos, h, next)
			}
		}
	}
	fmt.Fprintf(b, "VLs needed %d, used %d", tb.VLsNeeded, v.VLsUsed)
	if tb.VLsUsed != v.VLsUsed {
		fmt.Fprintf(b, " (the engine says %d)", tb.VLsUsed)
	}
	b.WriteByte('\n')
	m, err := routing.Measure(net, tb)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	fmt.Fprintf(b, "EFI min %d max %d mean %.3f sdv %.3f; σ4 %.3f\n", m.EFIMin, m.EFIMax, m.EFIMean, m.EFISdv, m.Sigma4)
	longer, pairs := d.minimal()
	fmt.Fprintf(b, "path length mean %.3f max %d over %d pairs; %d of %d routed pairs longer than shortest\n",
		m.PathLenMean, m.PathLenMax, m.Pairs, longer, pairs)
	for _, note := range tb.Notes {
		fmt.Fprintf(b, "note: %s\n", note)
	}
}

func hops(hs []routing.Hop) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.String()
	}
	return strings.Join(s, " ")
}

// walk follows the route from HCA src to HCA dst through net's tables: the
// channels it takes with their VLs, or why it stops.
func walk(net *fabric.Network, tb *routing.Tables, src, dst int) ([]routing.Hop, error) {
	name := func(i int32) string { return net.Nodes[i].Name }
	p := net.HCAPort(src)
	at, ok := net.Peer(src, p)
	if !ok || !net.IsSwitch(int(at.Node)) {
		return nil, fmt.Errorf("%s is not cabled to a switch", net.Nodes[src].Name)
	}
	lid := net.Nodes[dst].LID
	sl := tb.SL(int(at.Node), lid)
	srcSw, dstSw := int(at.Node), -1
	if ds, _ := net.HCASwitch(dst); ds >= 0 {
		dstSw = ds
	}
	path := []routing.Hop{{From: net.Nodes[src].Name, FromPort: p, To: name(at.Node), ToPort: int(at.Port), VL: int(tb.InjectVL(sl))}}
	for hop := 0; len(path) <= 2*net.NumSwitches+1; hop++ {
		s, in := int(at.Node), int(at.Port)
		out := int(tb.Port(s, lid))
		if tb.Source != nil {
			if dstSw < 0 {
				return path, fmt.Errorf("%s is not cabled to a switch", net.Nodes[dst].Name)
			}
			out = int(tb.Forward(srcSw, dstSw, hop, s, lid))
		}
		if out == int(routing.NoPath) || out == 0 {
			return path, fmt.Errorf("no route at %s", name(at.Node))
		}
		next, ok := net.Peer(s, out)
		if !ok {
			return path, fmt.Errorf("%s port %d has no cable", name(at.Node), out)
		}
		path = append(path, routing.Hop{From: name(at.Node), FromPort: out, To: name(next.Node), ToPort: int(next.Port), VL: int(tb.VL(s, in, out, sl))})
		if int(next.Node) == dst {
			return path, nil
		}
		if !net.IsSwitch(int(next.Node)) {
			return path, fmt.Errorf("delivered to %s", name(next.Node))
		}
		at = next
	}
	return path, fmt.Errorf("forwarding loop")
}

// minimal counts the routed HCA pairs whose path is longer than the
// shortest one in the switch graph (BFS hop counts), and the routed pairs.
// Routes depend on the source's switch, not the source: one walk from
// each switch with HCAs stands for all of them.
func (d *Driver) minimal() (longer, pairs int) {
	net := d.net
	adj := net.SwitchAdjacency()
	dist, queue := make([]int, net.NumSwitches), []int(nil)
	for dst := net.NumSwitches; dst < len(net.Nodes); dst++ {
		ds, _ := net.HCASwitch(dst)
		queue = fabric.BFS(adj, ds, dist, queue)
		for s := 0; s < net.NumSwitches; s++ {
			src, n := -1, 0
			for _, h := range net.HCAsOf(s) {
				if h != dst {
					src, n = h, n+1
				}
			}
			if n == 0 {
				continue
			}
			path, err := walk(net, d.tables, src, dst)
			if err != nil {
				continue
			}
			pairs += n
			if len(path)-2 > dist[s] {
				longer += n
			}
		}
	}
	return longer, pairs
}

// routed returns the current tables, failing the test when the fabric has
// changed since they were computed.
func (d *Driver) routed(t *testing.T, td *datadriven.TestData) *routing.Tables {
	if d.tables == nil {
		td.Fatalf(t, "%s: no routing (route first)", td.Cmd)
	}
	if d.tablesNet != d.net {
		td.Fatalf(t, "%s: the fabric changed since the last route (route again, or route keep)", td.Cmd)
	}
	return d.tables
}

func (d *Driver) cmdPath(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td, "src", "dst")
	tb := d.routed(t, td)
	src, dst := hca(t, td, d.net, "src"), hca(t, td, d.net, "dst")
	path, err := walk(d.net, tb, src, dst)
	if tb.Source != nil {
		a, _ := d.net.HCASwitch(src)
		if z, _ := d.net.HCASwitch(dst); a >= 0 && z >= 0 {
			if h := tb.Source.Header(a, z); h != "" {
				fmt.Fprintf(b, "header %s\n", h)
			}
		}
	}
	fmt.Fprintf(b, "%s\n", hops(path))
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
		return
	}
	fmt.Fprintf(b, "%d channels, %s\n", len(path), switches(len(path)-1))
}

// cmdTables prints, per switch, the output port (and SL when not 0) for
// every HCA.
func (d *Driver) cmdTables(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td)
	tb := d.routed(t, td)
	net := d.net
	for s := 0; s < net.NumSwitches; s++ {
		fmt.Fprintf(b, "%s:", net.Nodes[s].Name)
		for h := net.NumSwitches; h < len(net.Nodes); h++ {
			lid := net.Nodes[h].LID
			fmt.Fprintf(b, " %s:%d", net.Nodes[h].Name, tb.Port(s, lid))
			if sl := tb.SL(s, lid); sl != 0 {
				fmt.Fprintf(b, "/sl%d", sl)
			}
		}
		b.WriteByte('\n')
	}
}

func (d *Driver) cmdEBB(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td, "patterns", "seed")
	tb := d.routed(t, td)
	n := intArg(t, td, "patterns", 1000)
	x, err := routing.EffectiveBisection(d.net, tb, n, uint64(intArg(t, td, "seed", 1)))
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	fmt.Fprintf(b, "effective bisection bandwidth over %d random matchings: %.4f\n", n, x)
}

func switches(n int) string {
	if n == 1 {
		return "1 switch"
	}
	return fmt.Sprintf("%d switches", n)
}
