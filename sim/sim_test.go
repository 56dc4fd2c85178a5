package sim

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

func setup(t testing.TB, spec, engine string) (*fabric.Network, *routing.Tables) {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	tb, err := routing.Compute(engine, net, routing.DefaultOptions())
	require.NoError(t, err)
	return net, tb
}

func params(kind traffic.Kind) Params {
	p := DefaultParams()
	p.Traffic.Kind = kind
	p.Record = true
	p.TraceHash = true
	return p
}

// Zero-load latency of one packet over h switches, derived from the
// parameters: the packet starts at 0; its head needs one flit time plus one
// cable to reach the next node, and each switch forwards it on at once
// (cut-through, switch latency 0), so the head reaches the destination HCA
// at (h+1)(ft+prop); the flits follow at link rate and the host bus, as fast
// as the link, finishes the last one pf flit times after the head arrived.
func TestZeroLoadLatency(t *testing.T) {
	hw := fabric.DefaultHardware()
	ft, prop := hw.FlitPs(), hw.CablePs()
	require.Equal(t, int64(16000), ft, "64 B at 32 Gbit/s")
	require.Equal(t, int64(42700), prop, "7 m at 6.1 ns/m")
	for _, tc := range []struct {
		spec string
		h    int64
	}{
		{"torus:dims=1,hcas=2", 1},
		{"mesh:dims=3,hcas=2", 2},
		{"mesh:dims=4,hcas=2", 3},
		{"mesh:dims=8,hcas=2", 5}, // HCAs on switches 3 and 7
	} {
		for _, mode := range []Mode{Fast, Reference} {
			net, tb := setup(t, tc.spec, "minhop")
			p := params(traffic.Exchange)
			p.HW.HiccupPs = 0
			p.Mode = mode
			for _, size := range []int{2048, 100} {
				p.Traffic.MessageBytes = size
				r, err := Run(net, tb, p)
				require.NoError(t, err)
				require.Equal(t, Completed, r.Verdict)
				pf := int64(hw.PacketFlits(size))
				want := (tc.h+1)*(ft+prop) + pf*ft
				require.Len(t, r.Deliveries, 2)
				for _, d := range r.Deliveries {
					assert.Equal(t, int64(0), d.InjectedPs)
					assert.Equal(t, want, d.DonePs, "%s h=%d %d B mode %d", tc.spec, tc.h, size, mode)
				}
			}
		}
	}
}

// One long stream into a sink runs at the hiccup-limited host bus rate:
// the bus works 90 of every 100 ns at one 64-byte flit per 16 ns, i.e.
// 3.6 GB/s of flits, of which 2048 of every 33·64 = 2112 bytes are payload:
// 3.6 · 2048/2112 = 3.4909 GB/s.
func TestStreamRunsAtSinkRate(t *testing.T) {
	net, tb := setup(t, "torus:dims=1,hcas=2", "minhop")
	p := params(traffic.Shift)
	p.Record = false
	r, err := Run(net, tb, p)
	require.NoError(t, err)
	require.Equal(t, Steady, r.Verdict)
	want := 3.6 * 2048 / 2112
	assert.InEpsilon(t, want, r.HCABandwidthGBs.Min, 0.01)
	assert.InEpsilon(t, want, r.HCABandwidthGBs.Max, 0.01)
	assert.InEpsilon(t, 2*want, r.ThroughputGBs, 0.01)

	// Without hiccups the sink keeps up with the link: 4 GB/s of flits.
	p.HW.HiccupPs = 0
	r, err = Run(net, tb, p)
	require.NoError(t, err)
	assert.InEpsilon(t, 4*2048.0/2112, r.HCABandwidthGBs.Min, 0.01)
}

// The fast mode reproduces the per-flit reference exactly: the same packets
// delivered at the same picosecond, on a battery of scenarios.
func TestFastMatchesReference(t *testing.T) {
	for _, tc := range []struct {
		name, spec, engine string
		kind               traffic.Kind
		bytes              int
		hiccup             bool
		maxTime            int64
	}{
		{"contention fat tree", "kary-ntree:k=4,n=2", "minhop", traffic.Exchange, 4096, true, 0},
		{"hiccups, short messages", "kary-ntree:k=4,n=2", "sssp", traffic.Exchange, 700, true, 0},
		{"several VLs (dfsssp ring)", "torus:dims=5,hcas=10", "dfsssp", traffic.Exchange, 2048, true, 0},
		{"torus uniform", "torus:dims=3x3,hcas=18", "updn", traffic.Uniform, 2048, true, 30 * fabric.Microsecond},
		{"deadlock ring", "torus:dims=5,hcas=50", "sssp", traffic.Uniform, 2048, true, 200 * fabric.Microsecond},
		{"random lash", "random:switches=10,hcas=30,links=20,seed=4", "lash", traffic.Exchange, 2048, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			net, tb := setup(t, tc.spec, tc.engine)
			var res [2]*Result
			for i, mode := range []Mode{Fast, Reference} {
				p := params(tc.kind)
				p.Traffic.MessageBytes = tc.bytes
				p.Mode = mode
				if tc.maxTime > 0 {
					p.MaxTime = tc.maxTime
				}
				if !tc.hiccup {
					p.HW.HiccupPs = 0
				}
				r, err := Run(net, tb, p)
				require.NoError(t, err)
				res[i] = r
			}
			f, ref := res[0], res[1]
			assert.Equal(t, ref.Verdict, f.Verdict)
			if f.Verdict == NotConverged {
				// Compare what both consumed before the limit (the fast mode
				// also books packets whose head arrived in time).
				f.Deliveries = before(f.Deliveries, tc.maxTime)
				ref.Deliveries = before(ref.Deliveries, tc.maxTime)
			}
			sortDeliveries(f.Deliveries)
			sortDeliveries(ref.Deliveries)
			require.Equal(t, len(ref.Deliveries), len(f.Deliveries))
			assert.Equal(t, ref.Deliveries, f.Deliveries)
			if f.Verdict == Completed || f.Verdict == Deadlock {
				assert.Equal(t, ref.FlitHops, f.FlitHops)
				assert.Equal(t, ref.ThroughputGBs, f.ThroughputGBs)
				assert.Equal(t, ref.FlitsStuck, f.FlitsStuck)
			}
			assert.Less(t, f.Events, ref.Events, "the fast mode needs fewer events")
		})
	}
}

func sortDeliveries(d []Delivery) {
	sort.Slice(d, func(i, j int) bool { return d[i].Src < d[j].Src || (d[i].Src == d[j].Src && d[i].Seq < d[j].Seq) })
}

func before(d []Delivery, t int64) []Delivery {
	var out []Delivery
	for _, x := range d {
		if x.DonePs <= t {
			out = append(out, x)
		}
	}
	return out
}
