package simtest

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"flitsim/fabric"
	"flitsim/fabric/param"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/difftest"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// injection is one message each way between two HCAs left alone in the
// fabric.
type injection struct {
	net      *fabric.Network
	tables   *routing.Tables
	src, dst int // nodes of net
	bytes    int
}

func (d *Driver) cmdTraffic(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	if len(td.CmdArgs) == 0 || len(td.CmdArgs[0].Vals) > 0 {
		td.Fatalf(t, "traffic KIND [bytes=N] [load=F] [distance=N] [hot=F] [order=O]")
	}
	kind, err := traffic.ParseKind(td.CmdArgs[0].Key)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	td.CmdArgs = td.CmdArgs[1:]
	only(t, td, "bytes", "load", "distance", "hot", "order")
	spec := traffic.Spec{Kind: kind, JobTraffic: traffic.JobTraffic{Load: floatArg(t, td, "load", 1), Distance: intArg(t, td, "distance", 0), HotFraction: floatArg(t, td, "hot", 0)}}
	if spec.Order, err = traffic.ParseOrder(val(t, td, "order", "")); err != nil {
		td.Fatalf(t, "%v", err)
	}
	if s := val(t, td, "bytes", ""); s != "" {
		if spec.MessageBytes, err = traffic.ParseBytes(s, d.hw.MTU); err != nil {
			td.Fatalf(t, "%v", err)
		}
	}
	d.traffic, d.inject = spec, nil
	size := spec.MessageBytes
	if size == 0 {
		size = d.hw.MTU
	}
	fmt.Fprintf(b, "%s: messages of %d bytes (%s) at load %g", kind, size, packets(d.hw, size), spec.Load)
	if spec.Finite() {
		n := d.net.NumHCAs()
		fmt.Fprintf(b, ", %d messages in all", n*(n-1))
	}
	if spec.Order != traffic.ByHCA {
		fmt.Fprintf(b, "; ranks in %s order", spec.Order)
	}
	b.WriteByte('\n')
}

// packets describes how a message of size bytes is cut into packets.
func packets(hw fabric.Hardware, size int) string {
	full, rest := size/hw.MTU, size%hw.MTU
	var parts []string
	if full > 0 {
		parts = append(parts, fmt.Sprintf("%d×%d flits", full, hw.PacketFlits(hw.MTU)))
	}
	if rest > 0 {
		parts = append(parts, fmt.Sprintf("1×%d flits", hw.PacketFlits(rest)))
	}
	return "packets " + strings.Join(parts, " + ")
}

func (d *Driver) cmdInject(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td, "src", "dst", "bytes")
	if strings.HasSuffix(d.routed(t, td).Engine, "(kept)") {
		td.Fatalf(t, "inject routes the two HCAs anew: route with an engine first, not keep")
	}
	src, dst := hca(t, td, d.net, "src"), hca(t, td, d.net, "dst")
	if src == dst {
		td.Fatalf(t, "inject: src and dst are the same HCA")
	}
	size, err := traffic.ParseBytes(val(t, td, "bytes", "1MTU"), d.hw.MTU)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	drop := make([]bool, len(d.net.Nodes))
	for h := d.net.NumSwitches; h < len(d.net.Nodes); h++ {
		drop[h] = h != src && h != dst
	}
	net, err := d.net.Without(nil, drop)
	if err != nil {
		td.Fatalf(t, "%v", err)
	}
	tb, err := routing.Compute(d.engine, net, d.opts)
	if err != nil {
		td.Fatalf(t, "routing the two HCAs alone: %v", err)
	}
	byName := net.ByName()
	in := &injection{net: net, tables: tb, src: byName[d.net.Nodes[src].Name], dst: byName[d.net.Nodes[dst].Name], bytes: size}
	fmt.Fprintf(b, "%s → %s, %d bytes (%s), the two HCAs alone, routed by %s\n",
		net.Nodes[in.src].Name, net.Nodes[in.dst].Name, size, packets(d.hw, size), d.engine)
	for _, p := range [][2]int{{in.src, in.dst}, {in.dst, in.src}} {
		path, err := walk(net, tb, p[0], p[1])
		if err != nil {
			td.Fatalf(t, "%s: %v", hops(path), err)
		}
		fmt.Fprintf(b, "%s (%s)\n", hops(path), switches(len(path)-1))
	}
	d.inject = in
}

func (d *Driver) cmdRun(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	p := sim.DefaultParams()
	p.HW, p.Traffic, p.Record, p.Counters = d.hw, d.traffic, true, true
	net, tb := d.net, d.tables
	if in := d.inject; in != nil {
		net, tb = in.net, in.tables
		p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: in.bytes}}
	} else {
		d.routed(t, td)
	}
	keys := []string{"reference", "seed", "patterns"}
	for _, k := range sim.ParamDecls() {
		keys = append(keys, k.Key)
		if s := val(t, td, k.Key, ""); s != "" {
			x, err := k.ParseText(s, param.Env{})
			if err != nil {
				td.Fatalf(t, "%v", err)
			}
			k.Put(&p, x)
		}
	}
	only(t, td, keys...)
	p.Seed = uint64(intArg(t, td, "seed", int(p.Seed)))
	d.runNet, d.runTables = net, tb
	a, ok := td.Arg("patterns")
	if !ok {
		d.runOne(t, td, b, p)
		return
	}
	for _, k := range a.Vals {
		kind, err := traffic.ParseKind(k)
		if err != nil {
			td.Fatalf(t, "%v", err)
		}
		p.Traffic.Kind = kind
		fmt.Fprintf(b, "%s: ", kind)
		d.runOne(t, td, b, p)
	}
}

// runOne runs the fast simulator, and the reference too when asked, and
// prints a line of result.
func (d *Driver) runOne(t *testing.T, td *datadriven.TestData, b *strings.Builder, p sim.Params) {
	net, tb := d.runNet, d.runTables
	d.res = nil
	res, err := sim.Run(net, tb, p)
	if err != nil {
		fmt.Fprintf(b, "error: %v\n", err)
		return
	}
	d.res = res
	fmt.Fprintf(b, "%s at %.3f ns: %d messages (%d packets) delivered; throughput %.4f GB/s\n",
		res.Verdict, res.SimTimeNs, res.Messages, res.Packets, res.ThroughputGBs)
	if res.Verdict == sim.Deadlock {
		d.checkCycle(t, td, b)
	}
	if !td.HasArg("reference") {
		return
	}
	ref, err := reference.Run(net, tb, p)
	if err != nil {
		t.Errorf("%s: reference: %v", td.Pos, err)
		fmt.Fprintf(b, "reference: error: %v\n", err)
		return
	}
	if diffs := difftest.Compare(res, ref); len(diffs) > 0 {
		t.Errorf("%s: the simulators disagree:\n%s", td.Pos, strings.Join(diffs, "\n"))
		fmt.Fprintf(b, "reference disagrees:\n%s\n", strings.Join(diffs, "\n"))
		return
	}
	fmt.Fprintf(b, "reference agrees: %s, %d packets at the same instants\n", ref.Verdict, len(ref.Deliveries))
}

// checkCycle checks that every wait of the deadlock cycle is a dependency
// of the routing's channel dependency graph: some route takes the waiting
// buffer's channel and then the next one, on those VLs.
func (d *Driver) checkCycle(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	net, tb := d.runNet, d.runTables
	cdg := map[[2]routing.Hop]bool{}
	for src := net.NumSwitches; src < len(net.Nodes); src++ {
		for dst := net.NumSwitches; dst < len(net.Nodes); dst++ {
			path, _ := walk(net, tb, src, dst)
			for i := 1; i < len(path); i++ {
				cdg[[2]routing.Hop{path[i-1], path[i]}] = true
			}
		}
	}
	cyc := d.res.DeadlockCycle
	if len(cyc) == 0 {
		t.Errorf("%s: a deadlock without a cycle", td.Pos)
	}
	for i, x := range cyc {
		y := cyc[(i+1)%len(cyc)]
		if !cdg[[2]routing.Hop{bufferHop(x), bufferHop(y)}] {
			t.Errorf("%s: %s waits on %s, which no route makes it depend on", td.Pos, bufferHop(x), bufferHop(y))
		}
	}
	fmt.Fprintf(b, "deadlock cycle of %d buffers, each waiting on the next along a route\n", len(cyc))
}

// bufferHop is the channel (and VL) that feeds an input buffer.
func bufferHop(x sim.Buffer) routing.Hop {
	return routing.Hop{From: x.From, FromPort: x.FromPort, To: x.Node, ToPort: x.Port, VL: x.VL}
}

// result returns the last run's result, failing the test when there is none.
func (d *Driver) result(t *testing.T, td *datadriven.TestData) *sim.Result {
	if d.res == nil {
		td.Fatalf(t, "%s: no successful run", td.Cmd)
	}
	return d.res
}

func (d *Driver) cmdStats(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td)
	r := d.result(t, td)
	fmt.Fprintf(b, "verdict: %s\n", r.Verdict)
	fmt.Fprintf(b, "throughput: %.4f GB/s", r.ThroughputGBs)
	if r.ThroughputCIGBs > 0 {
		fmt.Fprintf(b, " ± %.4f (99 %%, %d windows)", r.ThroughputCIGBs, r.SampledWindows)
	}
	if r.RuntimeNs > 0 {
		fmt.Fprintf(b, " over a runtime of %.3f ns", r.RuntimeNs)
	}
	b.WriteByte('\n')
	fmt.Fprintf(b, "sim time: %.3f ns, events %d, flit-hops %d\n", r.SimTimeNs, r.Events, r.FlitHops)
	fmt.Fprintf(b, "delivered: %d messages, %d packets; flits injected %d, consumed %d, in the network %d\n",
		r.Messages, r.Packets, r.FlitsInjected, r.FlitsConsumed, r.FlitsInjected-r.FlitsConsumed)
	q := r.HCABandwidthGBs
	fmt.Fprintf(b, "HCA bandwidth GB/s: min %.4f q1 %.4f median %.4f q3 %.4f max %.4f\n", q.Min, q.Q1, q.Median, q.Q3, q.Max)
	if r.SteadySinks > 0 {
		fmt.Fprintf(b, "steady sinks: %d of %d\n", r.SteadySinks, d.runNet.NumHCAs())
	}
	if len(r.DeadlockCycle) > 0 {
		h := make([]routing.Hop, len(r.DeadlockCycle))
		for i, x := range r.DeadlockCycle {
			h[i] = bufferHop(x)
		}
		fmt.Fprintf(b, "deadlock cycle: %s\n", hops(h))
	}
}

func (d *Driver) cmdDeliveries(t *testing.T, td *datadriven.TestData, b *strings.Builder) {
	only(t, td, "src", "dst", "limit", "expect")
	r := d.result(t, td)
	var expect []int64
	if a, ok := td.Arg("expect"); ok {
		for _, v := range a.Vals {
			ps, ok := parsePs(v)
			if !ok {
				td.Fatalf(t, "expect=%s: want times such as 704.1ns", v)
			}
			expect = append(expect, ps)
		}
	}
	var done []int64
	net := d.runNet
	src, dst := -1, -1
	// Terminal indices and names refer to the fabric of the script, which
	// inject reduces for its run.
	for _, f := range []struct {
		key string
		n   *int
	}{{"src", &src}, {"dst", &dst}} {
		if td.HasArg(f.key) {
			i, ok := net.ByName()[d.net.Nodes[hca(t, td, d.net, f.key)].Name]
			if !ok {
				td.Fatalf(t, "%s: not in the fabric of the last run", f.key)
			}
			*f.n = i
		}
	}
	limit, shown := intArg(t, td, "limit", 20), 0
	for _, x := range r.Deliveries {
		if (src >= 0 && int(x.Src) != src) || (dst >= 0 && int(x.Dst) != dst) {
			continue
		}
		if shown == limit {
			fmt.Fprintf(b, "…\n")
			break
		}
		shown++
		done = append(done, x.DonePs)
		fmt.Fprintf(b, "%s → %s packet %d: injected at %s, delivered at %s (%s)\n", net.Nodes[x.Src].Name, net.Nodes[x.Dst].Name,
			x.Seq, ns(x.InjectedPs), ns(x.DonePs), ns(x.DonePs-x.InjectedPs))
	}
	if expect != nil && !slices.Equal(expect, done) {
		t.Errorf("%s: delivered at %v ps, computed by hand %v ps", td.Pos, done, expect)
	}
}

// parsePs reads a time with a unit (ps, ns, us, µs, ms) exactly to the
// picosecond; time.ParseDuration stops at nanoseconds.
func parsePs(s string) (int64, bool) {
	for _, u := range []struct {
		suffix string
		ps     float64
	}{{"ps", 1}, {"ns", 1e3}, {"us", 1e6}, {"µs", 1e6}, {"ms", 1e9}} {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			x, err := strconv.ParseFloat(num, 64)
			return int64(math.Round(x * u.ps)), err == nil
		}
	}
	return 0, false
}
