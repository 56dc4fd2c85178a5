package reference

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// The expectations below are derived by hand from the specification
// (sim/doc.go) with the default hardware: ft = 16,000 ps, cab = 42,700 ps,
// fx = 2,222 ps, pf = 16,000 ps, lat = 0, a 1-MTU packet is ⌈2074/64⌉ = 33
// flits. By default a flit is taken at the start of its reception
// (ForwardAtStart) and a packet's last flit takes its bytes' share of a
// flit time (WireBytes): a 1-MTU packet's last flit holds 26 bytes and
// takes tail = 6,500 ps, the packet pkt = 32·ft + tail = 518,500 ps, and a
// one-flit response or request (a header of 26 bytes) tail as well. Tests
// whose expectations are for whole flits say so (wholeFlits).
const (
	ft   = 16_000
	cab  = 42_700
	mtu  = 33 // flits of a 1-MTU packet
	tail = 6_500
	pkt  = (mtu-1)*ft + tail
)

// wholeFlits sets the hop of flitsim's figures before 2026-11-30: a flit is
// taken once it has fully arrived and every flit takes a whole flit time.
func wholeFlits(p sim.Params) sim.Params {
	p.HW.ForwardAtStart, p.HW.WireBytes = false, false
	return p
}

func build(t *testing.T, spec, engine string) (*fabric.Network, *routing.Tables) {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	tab, err := routing.Compute(engine, net, routing.DefaultOptions())
	require.NoError(t, err)
	return net, tab
}

func params(kind traffic.Kind) sim.Params {
	p := sim.DefaultParams()
	p.Traffic.Kind = kind
	p.Record = true
	return p
}

func noHiccups(p sim.Params) sim.Params {
	p.HW.HiccupPs = 0
	return p
}

// run runs the reference with the decision audit on: between instants it
// checks that no output had an eligible packet it did not grant and no HCA
// could inject and did not.
func run(t *testing.T, net *fabric.Network, tab *routing.Tables, p sim.Params) *sim.Result {
	t.Helper()
	r, err := runAudited(net, tab, p)
	require.NoError(t, err)
	return r
}

// runAudited is Run with the decision audit.
func runAudited(net *fabric.Network, tab *routing.Tables, p sim.Params) (*sim.Result, error) {
	if err := p.Normalize(); err != nil {
		return nil, err
	}
	s, err := newSimulator(net, tab, p)
	if err != nil {
		return nil, err
	}
	s.audit = true
	if err := s.run(); err != nil {
		return nil, err
	}
	return s.result(), nil
}

// Two HCAs exchange one packet each. mesh:dims=4,hcas=2 spreads the HCAs
// to switches 1 and 3, so each packet crosses h = 3 switches. With lat = 0
// and fx < ft every switch forwards flit k the instant it arrives, so flit
// k reaches the sink at (h+1)(ft+cab) + k·ft; with pf = ft and no hiccups
// the bus is done with it ft later, the last flit at
// (h+1)(ft+cab) + flits·ft.
func TestZeroLoadLatency(t *testing.T) {
	net, tab := build(t, "mesh:dims=4,hcas=2", "minhop")
	sw0, _ := net.HCASwitch(net.NumSwitches)
	sw1, _ := net.HCASwitch(net.NumSwitches + 1)
	require.Equal(t, []int{1, 3}, []int{sw0, sw1}, "the HCAs hang on switches 1 and 3: three switches apart")
	const h = 3

	// By default each of the h+1 links costs the head cab alone (a switch
	// takes it as it begins to arrive) and the packet's last flit arrives
	// its wire time after the head: done = (h+1)·cab + wire + h·lat. With
	// whole flits each link costs ft + cab and the packet p whole flits.
	for _, tc := range []struct {
		name    string
		bytes   int   // message payload
		flits   int64 // of its one packet
		wire    int64 // its time on a cable by default
		latency int64 // switch latency
		whole   bool
	}{
		{"one MTU", 2048, mtu, pkt, 0, false},
		{"small packet", 100, 2, ft + 15_500, 0, false},   // ⌈126/64⌉ = 2 flits, the last of 62 bytes
		{"switch latency", 2048, mtu, pkt, 50_000, false}, // each switch adds lat
		{"one MTU, whole flits", 2048, mtu, 0, 0, true},
		{"small packet, whole flits", 100, 2, 0, 0, true},
		{"switch latency, whole flits", 2048, mtu, 0, 50_000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := noHiccups(params(traffic.Exchange))
			p.Traffic.MessageBytes = tc.bytes
			p.HW.SwitchLatencyPs = tc.latency
			done := (h+1)*cab + tc.wire + h*tc.latency
			if tc.whole {
				p = wholeFlits(p)
				done = (h+1)*(ft+cab) + tc.flits*ft + h*tc.latency
			}
			r := run(t, net, tab, p)

			assert.Equal(t, sim.Completed, r.Verdict)
			require.Len(t, r.Deliveries, 2)
			for _, d := range r.Deliveries {
				assert.Equal(t, int64(0), d.InjectedPs)
				assert.Equal(t, done, d.DonePs)
				assert.Equal(t, int64(1), d.Seq)
				assert.NotEqual(t, d.Src, d.Dst)
			}
			assert.Equal(t, float64(done)/1000, r.RuntimeNs)
			assert.Equal(t, float64(done)/1000, r.SimTimeNs)
			assert.Equal(t, int64(2), r.Packets)
			assert.Equal(t, int64(2), r.Messages)
			assert.Equal(t, 2*tc.flits, r.FlitsInjected)
			assert.Equal(t, 2*tc.flits, r.FlitsConsumed)
			assert.Equal(t, 2*tc.flits*(h+1), r.FlitHops, "one grant per link: the HCA's and h switch outputs")
			assert.InDelta(t, 2*float64(tc.bytes)/(float64(done)/1000), r.ThroughputGBs, 1e-12)
			assert.InDelta(t, float64(tc.bytes)/(float64(done)/1000), r.HCABandwidthGBs.Median, 1e-12)
			assert.Zero(t, r.FlitsStuck)
		})
	}
}

// With WireBytes a packet's last flit, of b bytes, takes ⌈ft·b/64⌉ on
// every cable and ⌈pf·b/64⌉ on the host bus (pf = ft here). In the
// exchange of TestZeroLoadLatency (three switches, lat = 0) the trains
// keep their flits ft apart, so the last flit reaches the sink ft − tail
// early, waits for the bus and is done tail after its predecessor: the
// packet is done (h+1)(ft+cab) + (n−1)·ft + tail. A one-flit packet is all
// tail: each hop takes tail + cab, the bus tail more; taken at the start
// of its reception (ForwardAtStart) each hop takes cab alone and the sink
// finishes it once it has fully arrived, tail later. 2,048 + 26 bytes end
// in a flit of 26 bytes (6.5 ns: the packet takes 518.5 ns, not 528 ns),
// 100 + 26 in one of 62 (15.5 ns), 8 + 26 in a one-flit packet of 34
// (8.5 ns). Both simulators agree to the picosecond.
func TestWireBytesLatency(t *testing.T) {
	net, tab := build(t, "mesh:dims=4,hcas=2", "minhop")
	const h = 3
	for _, tc := range []struct {
		name  string
		bytes int
		fas   bool
		done  int64
	}{
		{"one MTU", 2048, false, (h+1)*(ft+cab) + (mtu-1)*ft + 6_500},
		{"two flits", 100, false, (h+1)*(ft+cab) + ft + 15_500},
		{"one flit", 8, false, (h+1)*(8_500+cab) + 8_500},
		{"one flit at reception start", 8, true, (h+1)*cab + 8_500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := noHiccups(params(traffic.Exchange))
			p.Traffic.MessageBytes = tc.bytes
			p.HW.WireBytes, p.HW.ForwardAtStart = true, tc.fas
			bothDoneAt(t, net, tab, p, tc.done)
			p.HW.WireBytes = false
			whole := run(t, net, tab, p)
			assert.Less(t, tc.done, whole.Deliveries[0].DonePs, "whole flits take longer")
		})
	}
}

// bothDoneAt runs both simulators on a two-HCA exchange and requires both
// packets delivered at done ps.
func bothDoneAt(t *testing.T, net *fabric.Network, tab *routing.Tables, p sim.Params, done int64) {
	t.Helper()
	fast, err := sim.Run(net, tab, p)
	require.NoError(t, err)
	for name, r := range map[string]*sim.Result{"reference": run(t, net, tab, p), "fast": fast} {
		assert.Equal(t, sim.Completed, r.Verdict, name)
		require.Len(t, r.Deliveries, 2, name)
		for _, d := range r.Deliveries {
			assert.Equal(t, done, d.DonePs, name)
		}
	}
}

// Cables of a class with its own rate (dragonfly:a=1,p=1,h=1,g=2: HCA,
// switch, rank-3 cable, switch, HCA). Onto a cable as fast or slower than
// the one it came in on a switch cuts through: the packet leaves as a train
// at the outgoing rate once its head is in. Onto a faster cable the switch
// stores the packet: it starts when its last flit has crossed. With f3 the
// rank-3 flit time, flit k of a train started at d reaches the next
// switch at d + (k+1)·f + cab, and the sink is done with the last flit
// ft after it arrives. Both simulators agree to the picosecond. Whole
// flits (the default hop is pinned by TestZeroLoadLatency and
// TestWireBytesLatency, and both hops by the differential tests).
func TestZeroLoadClassRates(t *testing.T) {
	net, tab := build(t, "dragonfly:a=1,p=1,h=1,g=2", "minhop")
	var classes []fabric.LinkClass
	for l := range net.Links {
		classes = append(classes, net.LinkClass(l))
	}
	require.ElementsMatch(t, []fabric.LinkClass{fabric.ClassHCA, fabric.ClassHCA, fabric.ClassRank3}, classes)
	const n = mtu
	for _, tc := range []struct {
		name     string
		gbps, f3 int64
		d0, d1   int64 // the packet's start at the first and second switch
	}{
		{"one rate", 0, ft, ft + cab, 2*ft + 2*cab},
		// Slower global cable: cut through onto it, stored at the second
		// switch until the last flit is in (n·f3 after the train began).
		{"slower rank-3", 16, 2 * ft, ft + cab, ft + cab + n*2*ft + cab},
		// Faster global cable: stored at the first switch until the last
		// flit from the HCA is in, cut through at the second.
		{"faster rank-3", 64, ft / 2, n*ft + cab, n*ft + cab + ft/2 + cab},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := wholeFlits(noHiccups(params(traffic.Exchange)))
			p.HW.Rank3Gbps = float64(tc.gbps)
			require.Equal(t, tc.f3, p.HW.ClassFlitPs(fabric.ClassRank3))
			bothDoneAt(t, net, tab, p, tc.d1+n*ft+cab+ft)
		})
	}
}

// Cables with their own rate, as a fabric file states them (two switches,
// an HCA on each; the rates of TestZeroLoadClassRates, but per cable and
// read from ibnetdiscover's 4xDDR or ibsim's w= s=). A 1xQDR HCA cable
// (8 Gbit/s, 4·ft per flit) injects a slow train, which the switch stores
// before the faster switch cable and cuts through onto the far 1xQDR
// cable. With file_rates off every cable runs at link_gbps. Whole flits,
// as TestZeroLoadClassRates.
func TestZeroLoadFileRates(t *testing.T) {
	const n = mtu
	netlist := func(hca, sw string) string {
		return "Switch 4 \"S1\"\n[1] \"H1\"[1] " + hca + "\n[2] \"S2\"[2] " + sw + "\n\n" +
			"Switch 4 \"S2\"\n[1] \"H2\"[1] " + hca + "\n\n" +
			"Hca 1 \"H1\"\n[1] \"S1\"[1]\n\nHca 1 \"H2\"\n[1] \"S2\"[1]\n"
	}
	one := int64(2*ft + 2*cab + n*ft + cab + ft)
	for _, tc := range []struct {
		name      string
		file      string
		fileRates bool
		done      int64
	}{
		{"unstated", netlist("", ""), true, one},
		{"4xQDR as link_gbps", netlist("# 4xQDR", "# lid 2 4xQDR"), true, one},
		// Cut through onto the slower cable, stored before the HCA's.
		{"4xDDR switch cable", netlist("", "w=2 s=2"), true, ft + cab + n*2*ft + cab + n*ft + cab + ft},
		// Stored before the faster cable (12,800 ps a flit), cut through after.
		{"4xFDR10 switch cable", netlist("", "# 4xFDR10"), true, n*ft + cab + 12_800 + cab + n*ft + cab + ft},
		{"1xQDR HCA cables", netlist("# \"H\" lid 3 1xQDR", ""), true, n*4*ft + cab + ft + cab + n*4*ft + cab + ft},
		{"file_rates off", netlist("# 1xQDR", "w=2 s=2"), false, one},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, err := fabric.ReadIBNetDiscover(strings.NewReader(tc.file), "rates.topo")
			require.NoError(t, err)
			tab, err := routing.Compute("minhop", net, routing.DefaultOptions())
			require.NoError(t, err)
			p := wholeFlits(noHiccups(params(traffic.Exchange)))
			p.HW.FileRates = tc.fileRates
			bothDoneAt(t, net, tab, p, tc.done)
		})
	}
	// A cable faster than the crossbar is refused by both, naming it.
	net, err := fabric.ReadIBNetDiscover(strings.NewReader(netlist("", "# 12xNDR")), "rates.topo")
	require.NoError(t, err)
	tab, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(t, err)
	p := params(traffic.Exchange)
	_, err = sim.Run(net, tab, p)
	assert.ErrorContains(t, err, `crossbar_gbps: 230.4 is below the 1200 Gbit/s of cable "S1" port 2: a cut-through switch`)
	_, err = Run(net, tab, p)
	assert.ErrorContains(t, err, `cable "S1" port 2`)
	p.HW.FileRates = false
	_, err = sim.Run(net, tab, p)
	assert.NoError(t, err)
}

// A NIC window on the scenario of TestZeroLoadLatency, each HCA sending
// the other one 3-MTU message (three 33-flit packets). A packet is
// delivered D = 4(ft+cab) + 33·ft after its injection; its one-flit
// response, sent at once if the link is free, reaches its source
// Rt = 4(ft+cab) + ft later. Window 1: each packet waits for the previous
// one's response, so the last is delivered at 3D + 2Rt. Window 2: packet 3
// waits for packet 1's response, which the far HCA sends when its own
// packet 2 has left (66·ft), so packet 3 leaves at 66·ft + Rt. Window 3:
// nothing waits but packet 3 itself, behind the far HCA's response to
// packet 1 (responses go first: one ft). No window: back to back. These
// are whole flits; by default a hop costs cab alone, a packet pkt and a
// response tail on the wire: D = 4·cab + pkt, Rt = 4·cab + tail, and the
// same reasoning gives the same sums with pkt for 33·ft and tail for ft.
func TestNICWindow(t *testing.T) {
	net, tab := build(t, "mesh:dims=4,hcas=2", "minhop")
	const (
		D  = 4*(ft+cab) + mtu*ft
		Rt = 4*(ft+cab) + ft
		// The default hop.
		Dd  = 4*cab + pkt
		Rtd = 4*cab + tail
	)
	for _, tc := range []struct {
		window int
		whole  bool
		done   int64
	}{
		{0, true, 4*(ft+cab) + 3*mtu*ft},
		{1, true, 3*D + 2*Rt},
		{2, true, 2*mtu*ft + Rt + D},
		{3, true, 2*mtu*ft + ft + D},
		{0, false, 4*cab + 3*pkt},
		{1, false, 3*Dd + 2*Rtd},
		{2, false, 2*pkt + Rtd + Dd},
		{3, false, 2*pkt + tail + Dd},
	} {
		name := fmt.Sprintf("window %d", tc.window)
		if tc.whole {
			name += ", whole flits"
		}
		t.Run(name, func(t *testing.T) {
			p := noHiccups(params(traffic.Exchange))
			if tc.whole {
				p = wholeFlits(p)
			}
			p.Traffic.MessageBytes = 3 * p.HW.MTU
			p.HW.NICWindow = tc.window
			p.Counters = true
			fast, err := sim.Run(net, tab, p)
			require.NoError(t, err)
			// Every packet is answered, the last two at the final instant,
			// which the run includes.
			responses := int64(0)
			if tc.window > 0 {
				responses = 6
			}
			for name, r := range map[string]*sim.Result{"reference": run(t, net, tab, p), "fast": fast} {
				assert.Equal(t, sim.Completed, r.Verdict, name)
				assert.Equal(t, float64(tc.done)/1000, r.RuntimeNs, name)
				assert.Equal(t, int64(6), r.Packets, name, "responses are no packets of messages")
				require.Len(t, r.Deliveries, 6, name)
				assert.Equal(t, 6*mtu+responses, r.FlitsInjected, name)
				assert.Equal(t, int64(6*mtu), r.Counters.RequestFlits, name, "request counts leave responses out")
				assert.Equal(t, int64(6), r.Counters.RequestPackets, name)
			}
		})
	}
	// Without headers a response is still one flit (and a packet 32), a
	// whole one: no bytes at all take a flit (LastFlitBytes).
	for _, whole := range []bool{true, false} {
		p := noHiccups(params(traffic.Exchange))
		want := int64(3*(4*cab+32*ft) + 2*(4*cab+ft))
		if whole {
			p = wholeFlits(p)
			want = 3*(4*(ft+cab)+32*ft) + 2*Rt
		}
		p.Traffic.MessageBytes = 3 * p.HW.MTU
		p.HW.NICWindow, p.HW.HeaderBytes = 1, 0
		fast, err := sim.Run(net, tab, p)
		require.NoError(t, err)
		for name, r := range map[string]*sim.Result{"reference": run(t, net, tab, p), "fast": fast} {
			assert.Equal(t, float64(want)/1000, r.RuntimeNs, "%s, whole flits %v", name, whole)
		}
	}
}

// Rendezvous on the scenario of TestNICWindow: each HCA reads the other
// one's 3-MTU message with GETs. Its one-flit RTS arrives Rt = 4(ft+cab)
// + ft after time 0; the reader sends its three one-flit GET requests at
// once (after the RTS's acknowledgement with a window), the first
// reaching the data's owner at 2Rt (+ft); the owner sends the three data
// responses back to back, the last delivered 2·mtu·ft + D later, D =
// 4(ft+cab) + mtu·ft. The RTSs and GET requests are request flits, the
// data and acknowledgements responses; nothing acknowledges the data.
// These are whole flits; by default (D = 4·cab + pkt, Rt = 4·cab + tail)
// the same sums hold with pkt for 33·ft and tail for a one-flit packet's ft.
func TestRendezvous(t *testing.T) {
	net, tab := build(t, "mesh:dims=4,hcas=2", "minhop")
	const (
		D   = 4*(ft+cab) + mtu*ft
		Rt  = 4*(ft+cab) + ft
		Dd  = 4*cab + pkt
		Rtd = 4*cab + tail
	)
	for _, tc := range []struct {
		window     int
		whole      bool
		done, acks int64
	}{
		{0, true, 2*Rt + 2*mtu*ft + D, 0},
		{1, true, 2*Rt + ft + 2*mtu*ft + D, 2},
		{8, true, 2*Rt + ft + 2*mtu*ft + D, 2},
		{0, false, 2*Rtd + 2*pkt + Dd, 0},
		{1, false, 2*Rtd + tail + 2*pkt + Dd, 2},
		{8, false, 2*Rtd + tail + 2*pkt + Dd, 2},
	} {
		name := fmt.Sprintf("window %d", tc.window)
		if tc.whole {
			name += ", whole flits"
		}
		t.Run(name, func(t *testing.T) {
			p := noHiccups(params(traffic.Exchange))
			if tc.whole {
				p = wholeFlits(p)
			}
			p.Traffic.MessageBytes = 3 * p.HW.MTU
			p.Traffic.Rendezvous = 1
			p.HW.NICWindow = tc.window
			p.Counters = true
			fast, err := sim.Run(net, tab, p)
			require.NoError(t, err)
			for name, r := range map[string]*sim.Result{"reference": run(t, net, tab, p), "fast": fast} {
				assert.Equal(t, sim.Completed, r.Verdict, name)
				assert.Equal(t, float64(tc.done)/1000, r.RuntimeNs, name)
				assert.Equal(t, int64(6), r.Packets, name, "the data responses are the messages' packets")
				assert.Equal(t, int64(2), r.Messages, name)
				require.Len(t, r.Deliveries, 6, name)
				for _, d := range r.Deliveries {
					assert.Contains(t, []int64{1, 2, 3}, d.Seq, name, "the message's numbers at its source")
				}
				assert.Equal(t, 6*mtu+2+6+tc.acks, r.FlitsInjected, name)
				assert.Equal(t, int64(8), r.Counters.RequestFlits, name, "two RTSs and six GET requests")
				assert.Equal(t, int64(8), r.Counters.RequestPackets, name)
			}
		})
	}
}

// Nothing after MaxTime happens, and the counters cover exactly what
// happened until then. In the scenario above, by 500 ns both packets have
// been injected (66 flits) and granted at all three switches (at 58.7,
// 117.4 and 176.1 ns), so every flit-hop is counted; flit k reaches its
// sink at 234.8 + 16k ns and is done 16 ns later, so flits 0..15 of each
// packet (done at 250.8 … 490.8 ns) are consumed and nothing is delivered,
// so FlitsConsumed (the flits of delivered packets) is 0.
func TestTimeLimit(t *testing.T) {
	net, tab := build(t, "mesh:dims=4,hcas=2", "minhop")
	p := noHiccups(params(traffic.Exchange))
	p.MaxTime = 500_000
	r := run(t, net, tab, p)
	assert.Equal(t, sim.NotConverged, r.Verdict)
	assert.Equal(t, 500.0, r.SimTimeNs)
	assert.Equal(t, int64(2*mtu), r.FlitsInjected)
	assert.Equal(t, int64(2*mtu*4), r.FlitHops)
	assert.Zero(t, r.FlitsConsumed)
	assert.Zero(t, r.Packets)
	assert.Empty(t, r.Deliveries)
	assert.Zero(t, r.RuntimeNs)
}

// A long stream into one sink runs at the rate of its host bus: 16 ns per
// 64 bytes, 90 of every 100 ns, so 3.6 GB/s. Two HCAs on one switch send
// each other a message of 256 MTUs (256 packets of 2,074 bytes, 32 flits
// and a last of 26 bytes: pkt = 518.5 ns on the bus as on a cable). The
// first flit begins to reach a sink at 2·cab = 85.4 ns; from then on the
// link (4 GB/s) keeps the bus busy, so the bus does 256·518.5 ns of work in
// about that over 0.9, give or take one hiccup (10 ns) at either end.
// Without hiccups the link is the limit: the last flit is done at
// 85.4 ns + 256·518.5 ns exactly. With whole flits (8,448 of them) the
// first reaches the sink at 2(ft+cab) = 117.4 ns and each takes 16 ns.
func TestSinkRate(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=2", "minhop")
	for _, tc := range []struct {
		whole       bool
		first, work int64 // ps
		bytes       float64
	}{
		{false, 2 * cab, 256 * pkt, 256 * 2074},
		{true, 2 * (ft + cab), 256 * mtu * ft, 256 * mtu * 64},
	} {
		p := params(traffic.Exchange)
		if tc.whole {
			p = wholeFlits(p)
		}
		p.Traffic.MessageBytes = 256 * 2048

		r := run(t, net, tab, p)
		require.Equal(t, sim.Completed, r.Verdict)
		busy := r.RuntimeNs - float64(tc.first)/1000
		assert.InDelta(t, float64(tc.work)/1000/0.9, busy, 25, "whole flits %v", tc.whole)
		assert.InDelta(t, 3.6, tc.bytes/busy, 0.001, "the sink's rate in GB/s, whole flits %v", tc.whole)

		r = run(t, net, tab, noHiccups(p))
		require.Equal(t, sim.Completed, r.Verdict)
		assert.Equal(t, float64(tc.first+tc.work)/1000, r.RuntimeNs, "whole flits %v", tc.whole)
	}
}

// Credit-based flow control with buffers of exactly one packet (33 flits)
// everywhere. Two HCAs on one switch send each other a message of M MTUs;
// no hiccups. The switch may grant packet n+1 to the sink only when all 33
// credits of packet n are back. With whole flits: packet n starts at g_n,
// its flit k is done at the sink at g_n + (k+2)ft + cab and its credit
// arrives cab later, the last at g_n + 34ft + 2cab. The source keeps up (it
// injects the next packet as soon as the switch's input buffer has
// drained, well before then), so g_n = (ft+cab) + n(34ft + 2cab) and the
// last packet is done at g_{M-1} + 34ft + cab. By default the sink takes
// flit k as it begins to arrive, at g_n + k·ft + cab, and is done with it
// as it has fully arrived, the last (of 26 bytes) at g_n + pkt + cab; the
// head reaches the switch at cab: g_n = cab + n(pkt + 2cab).
func TestOnePacketBuffers(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=2", "minhop")
	const m = 64
	for _, tc := range []struct {
		whole               bool
		first, period, last int64 // g_0, g_{n+1} − g_n, done − g_n
	}{
		{true, ft + cab, 34*ft + 2*cab, 34*ft + cab},
		{false, cab, pkt + 2*cab, pkt + cab},
	} {
		p := noHiccups(params(traffic.Exchange))
		if tc.whole {
			p = wholeFlits(p)
		}
		p.Traffic.MessageBytes = m * 2048
		p.HW.InputBufferFlits, p.HW.HCABufferFlits, p.HW.OutputBufferFlits = mtu, mtu, mtu

		r := run(t, net, tab, p)
		require.Equal(t, sim.Completed, r.Verdict)
		done := tc.first + (m-1)*tc.period + tc.last
		assert.Equal(t, float64(done)/1000, r.RuntimeNs, "whole flits %v", tc.whole)
		require.Len(t, r.Deliveries, 2*m)
		for _, d := range r.Deliveries {
			g := tc.first + (d.Seq-1)*tc.period
			assert.Equal(t, g+tc.last, d.DonePs, "packet %d of node %d, whole flits %v", d.Seq, d.Src, tc.whole)
		}
	}

	// Under uniform load on a fat tree with one-packet buffers the
	// always-on checks (buffer and output buffer capacities, credits,
	// crossbar pace, conservation) hold.
	net, tab = build(t, "kary-ntree:k=4,n=2", "minhop")
	p := params(traffic.Uniform)
	p.HW.InputBufferFlits, p.HW.HCABufferFlits, p.HW.OutputBufferFlits = mtu, mtu, mtu
	p.MaxTime = 40_000_000
	r := run(t, net, tab, p)
	assert.Equal(t, sim.NotConverged, r.Verdict)
	assert.Positive(t, r.Packets)
	assert.GreaterOrEqual(t, r.FlitsInjected, r.FlitsConsumed)
}

// Round robin over input ports. Three HCAs on one switch (ports 3, 4, 5 in
// terminal order); with a hot spot of fraction 1, terminals 1 and 2 send
// everything to terminal 0. Both heads first arrive together; the output
// has granted no port yet, so the port after 0, port 4 (terminal 1), goes
// first. From then on both inputs always have a packet waiting when the
// output frees (the output is the bottleneck), so the grants, and the
// deliveries at terminal 0, alternate.
func TestRoundRobin(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=3", "minhop")
	_, p1 := net.HCASwitch(net.NumSwitches + 1)
	_, p2 := net.HCASwitch(net.NumSwitches + 2)
	require.Less(t, p1, p2)
	p := params(traffic.HotSpot)
	p.Traffic.HotFraction = 1
	p.MaxTime = 60_000_000
	r := run(t, net, tab, p)

	t0 := int32(net.NumSwitches)
	var srcs []int32
	for _, d := range r.Deliveries {
		if d.Dst == t0 {
			srcs = append(srcs, d.Src)
		}
	}
	require.Greater(t, len(srcs), 20)
	for i, s := range srcs {
		assert.Equal(t, t0+1+int32(i%2), s, "delivery %d at terminal 0", i)
	}
}

// Steady state: two HCAs on one switch send to each other forever. Each
// sink's bus works 90 % of a 10 µs window at 64 bytes per 16 ns, 36,000
// bytes, and a packet of 2,048 B takes 2,074 of them (WireBytes):
// 3.6·2048/2074 = 3.5549 GB/s. The first two windows end at or before the
// 20 µs warmup and are not sampled.
func TestSteadyState(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=2", "minhop")
	r := run(t, net, tab, params(traffic.Uniform))
	require.Equal(t, sim.Steady, r.Verdict)
	perSink := 3.6 * 2048 / 2074
	assert.InDelta(t, 2*perSink, r.ThroughputGBs, 0.05)
	assert.InDelta(t, perSink, r.HCABandwidthGBs.Min, 0.03)
	assert.InDelta(t, perSink, r.HCABandwidthGBs.Max, 0.03)
	assert.Equal(t, 2, r.SteadySinks)
	assert.GreaterOrEqual(t, r.SampledWindows, 20)
	windows := int(r.SimTimeNs / 10_000)
	assert.Equal(t, float64(windows)*10_000, r.SimTimeNs, "the run ends at a window boundary")
	assert.Equal(t, windows-2, r.SampledWindows)
	assert.Positive(t, r.ThroughputCIGBs)
	assert.Less(t, r.ThroughputCIGBs, 0.1)
	assert.Zero(t, r.RuntimeNs)
}

// At load 0.5 each of two HCAs offers 2 GB/s of flits, below the 3.6 GB/s
// its partner's sink can take, so the sinks deliver what is offered:
// 2·2048/2112 = 1.94 GB/s each, give or take the randomness of the gaps
// (about 19 packets per 10 µs window, a few per cent over 98 windows). With
// that much noise per window no sink gets within 1 % in a millisecond, so
// the run ends at the time limit having sampled windows 2..99.
func TestHalfLoad(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=2", "minhop")
	p := params(traffic.Uniform)
	p.Traffic.Load = 0.5
	p.MaxTime = 1_000_000_000
	r := run(t, net, tab, p)
	assert.Equal(t, sim.NotConverged, r.Verdict)
	assert.Equal(t, 98, r.SampledWindows)
	assert.Equal(t, 1e6, r.SimTimeNs)
	assert.InDelta(t, 2*2*2048.0/2112, r.ThroughputGBs, 0.3)
	assert.InDelta(t, 2*2048.0/2112, r.HCABandwidthGBs.Median, 0.15)
	assert.Positive(t, r.ThroughputCIGBs)
}

// A ring of five switches routed by SSSP on one VL deadlocks under uniform
// traffic at full load; the reported cycle is a chain of switch buffers
// each waiting for credits from the next. DFSSSP breaks the cycles with
// virtual lanes and completes the exchange.
func TestRingDeadlock(t *testing.T) {
	net, tab := build(t, "torus:dims=5,hcas=50", "sssp")
	r := run(t, net, tab, params(traffic.Uniform))
	require.Equal(t, sim.Deadlock, r.Verdict)
	require.GreaterOrEqual(t, len(r.DeadlockCycle), 2)
	byName := net.ByName()
	for i, b := range r.DeadlockCycle {
		next := r.DeadlockCycle[(i+1)%len(r.DeadlockCycle)]
		assert.Equal(t, b.Node, next.From, "buffer %d waits for credits of buffer %d, fed by its node", i, i+1)
		assert.True(t, net.IsSwitch(byName[b.Node]))
		assert.True(t, net.IsSwitch(byName[b.From]))
		e, ok := net.Peer(byName[b.Node], b.Port)
		require.True(t, ok)
		assert.Equal(t, b.From, net.Nodes[e.Node].Name)
		assert.Equal(t, b.FromPort, int(e.Port))
	}
	assert.Positive(t, r.FlitsStuck)
	assert.Equal(t, r.FlitsInjected-r.FlitsConsumed, r.FlitsStuck)

	net, tab = build(t, "torus:dims=5,hcas=50", "dfsssp")
	require.Greater(t, tab.MaxVL(net), 0, "DFSSSP needs more than one VL on the ring")
	r = run(t, net, tab, params(traffic.Exchange))
	require.Equal(t, sim.Completed, r.Verdict)
	assert.Equal(t, int64(50*49), r.Messages)
	assert.Equal(t, int64(50*49*mtu), r.FlitsConsumed)
	assert.Empty(t, r.DeadlockCycle)
}

// The all-to-all exchange on a 16-HCA fat tree delivers every message, each
// terminal sending one to every other; messages of 5,000 B are three
// packets of 2,048, 2,048 and 904 B: 33 + 33 + ⌈930/64⌉ = 81 flits.
func TestFatTreeExchange(t *testing.T) {
	net, tab := build(t, "kary-ntree:k=4,n=2", "minhop")
	p := params(traffic.Exchange)
	p.Traffic.MessageBytes = 5000
	r := run(t, net, tab, p)
	const n = 16
	require.Equal(t, sim.Completed, r.Verdict)
	assert.Equal(t, int64(n*(n-1)), r.Messages)
	assert.Equal(t, int64(3*n*(n-1)), r.Packets)
	assert.Equal(t, int64(81*n*(n-1)), r.FlitsInjected)
	assert.Equal(t, r.FlitsInjected, r.FlitsConsumed)
	assert.Equal(t, r.SimTimeNs, r.RuntimeNs)
	assert.InDelta(t, float64(n*(n-1)*5000)/r.RuntimeNs, r.ThroughputGBs, 1e-9)
	assert.InDelta(t, float64((n-1)*5000)/r.RuntimeNs, r.HCABandwidthGBs.Min, 1e-9)
	assert.InDelta(t, float64((n-1)*5000)/r.RuntimeNs, r.HCABandwidthGBs.Max, 1e-9)

	require.Len(t, r.Deliveries, 3*n*(n-1))
	pairs := map[[2]int32]int{}
	seqs := map[int32][]bool{}
	for i, d := range r.Deliveries {
		pairs[[2]int32{d.Src, d.Dst}]++
		if seqs[d.Src] == nil {
			seqs[d.Src] = make([]bool, 3*(n-1)+1)
		}
		require.True(t, d.Seq >= 1 && int(d.Seq) <= 3*(n-1))
		seqs[d.Src][d.Seq] = true
		// No packet beats the zero-load latency over one switch.
		assert.GreaterOrEqual(t, d.DonePs-d.InjectedPs, int64(2*(ft+cab)+15*ft))
		if i > 0 {
			assert.GreaterOrEqual(t, d.DonePs, r.Deliveries[i-1].DonePs, "deliveries in time order")
		}
	}
	assert.Len(t, pairs, n*(n-1))
	for pr, c := range pairs {
		assert.Equal(t, 3, c, "packets from %d to %d", pr[0], pr[1])
	}
	for src, s := range seqs {
		for q := 1; q < len(s); q++ {
			assert.True(t, s[q], "packet %d of %d", q, src)
		}
	}
}

// Two runs of the same inputs give the same result and deliveries; another
// seed gives other deliveries.
func TestDeterminism(t *testing.T) {
	net, tab := build(t, "kary-ntree:k=4,n=2", "minhop")
	p := params(traffic.Uniform)
	p.MaxTime = 30_000_000
	a := run(t, net, tab, p)
	b := run(t, net, tab, p)
	a.WallSeconds, a.FlitHopsPerS, b.WallSeconds, b.FlitHopsPerS = 0, 0, 0, 0
	require.NotEmpty(t, a.Deliveries)
	assert.Equal(t, a, b)

	p.Seed = 2
	c := run(t, net, tab, p)
	assert.NotEqual(t, a.Deliveries, c.Deliveries)
}

func TestRejects(t *testing.T) {
	net, tab := build(t, "torus:dims=5,hcas=50", "dfsssp")
	other, otherTab := build(t, "kary-ntree:k=4,n=2", "minhop")

	_, err := Run(net, otherTab, sim.DefaultParams())
	assert.ErrorContains(t, err, "do not fit")

	p := sim.DefaultParams()
	p.HW.VLs = 1
	_, err = Run(net, tab, p)
	assert.ErrorContains(t, err, "VL")

	p = sim.DefaultParams()
	p.Traffic.Load = 2
	_, err = Run(other, otherTab, p)
	assert.ErrorContains(t, err, "load")

	one, err := fabric.Build("mesh:dims=2,hcas=1")
	require.NoError(t, err)
	oneTab, err := routing.Compute("minhop", one, routing.DefaultOptions())
	require.NoError(t, err)
	_, err = Run(one, oneTab, sim.DefaultParams())
	assert.ErrorContains(t, err, "at least 2")

	bld := fabric.NewBuilder("loose")
	s := bld.AddSwitch("s", 4)
	for _, name := range []string{"a", "b"} {
		require.NoError(t, bld.Link(s, bld.AddHCA(name)))
	}
	bld.AddHCA("c") // not cabled
	loose, err := bld.Finish()
	require.NoError(t, err)
	looseTab := routing.NewTables(loose, "none")
	_, err = Run(loose, looseTab, sim.DefaultParams())
	assert.ErrorContains(t, err, "not cabled")
}

// The always-on checks report a violation as an error naming it.
func TestSelfChecks(t *testing.T) {
	net, tab := build(t, "mesh:dims=1,hcas=2", "minhop")
	p := noHiccups(params(traffic.Exchange))
	require.NoError(t, p.Normalize())
	fresh := func() *simulator {
		s, err := newSimulator(net, tab, p)
		require.NoError(t, err)
		return s
	}

	// A switch input buffer smaller than its sender believes. (The flits
	// cut through, one at a time: even one is too many for no room.)
	s := fresh()
	_, port := net.HCASwitch(net.NumSwitches)
	s.ports[0][port].in[0].cap = 0
	assert.ErrorContains(t, s.run(), "holds 1 flits, more than its 0")

	// A sender with one credit too many.
	s = fresh()
	s.hcas[0].port.credits[0]++
	assert.ErrorContains(t, s.run(), "more than the 128 places")

	// Flits not accounted for.
	s = fresh()
	require.NoError(t, s.run())
	s.flitsInjected++
	assert.ErrorContains(t, s.checkConservation(), "not conserved")
}

// BenchmarkExchange measures the reference on the all-to-all exchange of a
// 256-HCA fat tree (65,280 packets).
func BenchmarkExchange(b *testing.B) {
	net, err := fabric.Build("kary-ntree:k=16,n=2")
	require.NoError(b, err)
	tab, err := routing.Compute("minhop", net, routing.DefaultOptions())
	require.NoError(b, err)
	p := sim.DefaultParams()
	p.Traffic.Kind = traffic.Exchange
	for b.Loop() {
		r, err := Run(net, tab, p)
		require.NoError(b, err)
		b.ReportMetric(r.FlitHopsPerS, "flit-hops/s")
		b.ReportMetric(r.WallSeconds*1e9/float64(r.Events), "ns/event")
	}
}

// Short audited runs over varied topologies, routings (including
// Torus-2QoS, whose SL→VL tables change VLs at datelines) and hardware:
// switch latency with light load (heads wait to be routed while the
// crossbar is busy), one-packet buffers with multi-packet messages, and a
// crossbar no faster than the links with tiny packets. The audit finds any
// instant at which an output or HCA could have acted and did not; the
// self-checks find any broken capacity, credit or timing rule.
func TestDecisionsNotMissed(t *testing.T) {
	variants := []func(p *sim.Params){
		func(p *sim.Params) { p.HW.SwitchLatencyPs, p.Traffic.Load = 37_000, 0.6 },
		func(p *sim.Params) {
			p.HW.InputBufferFlits, p.HW.HCABufferFlits, p.HW.OutputBufferFlits = mtu, mtu, mtu
			p.Traffic.MessageBytes = 3000
		},
		func(p *sim.Params) { p.HW.CrossbarGbps, p.HW.HiccupPs, p.Traffic.MessageBytes = 32, 0, 100 },
	}
	for _, c := range []struct {
		spec, engine string
		kind         traffic.Kind
	}{
		{"torus:dims=4x4,hcas=32", "torus-2qos", traffic.Uniform},
		{"random:switches=10,hcas=30,links=20,seed=4", "nue", traffic.Permutation},
		{"kary-ntree:k=4,n=2", "ftree", traffic.HotSpot},
	} {
		net, tab := build(t, c.spec, c.engine)
		for i, v := range variants {
			p := params(c.kind)
			p.MaxTime = 8_000_000
			v(&p)
			_, err := runAudited(net, tab, p)
			assert.NoError(t, err, "%s %s variant %d", c.spec, c.engine, i)
		}
	}
}
