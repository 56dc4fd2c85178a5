package sim

import (
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/traffic"
)

// The theory of a balanced dragonfly (a = 2p = 2h, one global cable
// between every two groups; Kim et al. 2008), issue 16 item 4, at offered
// load 1 without PCIe hiccups, as a fraction of one link's payload rate
// per node:
//   - min under the group shift (every node of group i sends to group i+1)
//     saturates the one cable between the groups: 1/(a·p), within 10 %;
//   - valiant crosses two global cables per packet: at most 1/2, and at
//     least 40 % under both patterns;
//   - ugal keeps 90 % of valiant under the group shift and 90 % of min
//     under uniform traffic.
//
// The default suite runs p = 2 (9 groups, 72 nodes); FLITSIM_LONG=1 adds
// p = 4 (33 groups, 1,056 nodes).
func TestDragonflyTheory(t *testing.T) {
	cases := []struct {
		a, p, h, g int
		maxTime    int64
	}{{4, 2, 2, 9, 200 * fabric.Microsecond}}
	if os.Getenv("FLITSIM_LONG") != "" {
		cases = append(cases, struct {
			a, p, h, g int
			maxTime    int64
		}{8, 4, 4, 33, 100 * fabric.Microsecond})
	}
	for _, tc := range cases {
		spec := fmt.Sprintf("dragonfly:a=%d,p=%d,h=%d,g=%d", tc.a, tc.p, tc.h, tc.g)
		t.Run(spec, func(t *testing.T) {
			frac := map[string]float64{}
			for _, engine := range []string{"min", "valiant", "ugal"} {
				net, tb := setup(t, spec, engine)
				for _, pat := range []string{"uniform", "group-shift"} {
					p := DefaultParams()
					p.HW.HiccupPs = 0
					p.MaxTime = tc.maxTime
					p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 1}}
					if pat == "group-shift" {
						p.Traffic.Kind, p.Traffic.Distance = traffic.Shift, tc.a*tc.p
					}
					res, err := Run(net, tb, p)
					require.NoError(t, err)
					require.NotEqual(t, Deadlock, res.Verdict)
					hw := p.HW
					link := hw.LinkGbps / 8 * float64(hw.MTU) / float64(hw.PacketFlits(hw.MTU)*hw.FlitBytes)
					f := res.ThroughputGBs / float64(net.NumHCAs()) / link
					frac[engine+"/"+pat] = f
					t.Logf("%-8s %-11s %7.2f GB/s, %.3f of a link per node", engine, pat, res.ThroughputGBs, f)
				}
			}
			assert.InEpsilon(t, 1/float64(tc.a*tc.p), frac["min/group-shift"], 0.10, "min under the group shift")
			for _, pat := range []string{"uniform", "group-shift"} {
				v := frac["valiant/"+pat]
				assert.GreaterOrEqual(t, v, 0.40, "valiant, %s", pat)
				assert.LessOrEqual(t, v, 0.50, "valiant, %s", pat)
			}
			assert.GreaterOrEqual(t, frac["ugal/group-shift"], 0.9*frac["valiant/group-shift"], "ugal against valiant, group shift")
			assert.GreaterOrEqual(t, frac["ugal/uniform"], 0.9*frac["min/uniform"], "ugal against min, uniform")
		})
	}
}

// A rank-3 cable of its own rate r carries the group shift under min
// routing: r/(a·p) of an HCA's link rate per node, within 10 %, whether
// the global cables are slower than the HCAs' (packets cut through onto
// them) or faster (switches store packets before them).
func TestDragonflyClassRates(t *testing.T) {
	const a, pp = 4, 2
	net, tb := setup(t, fmt.Sprintf("dragonfly:a=%d,p=%d,h=2,g=9", a, pp), "min")
	for _, r := range []float64{16, 64} {
		p := DefaultParams()
		p.HW.HiccupPs = 0
		p.HW.Rank3Gbps = r
		p.MaxTime = 200 * fabric.Microsecond
		p.Traffic = traffic.Spec{Kind: traffic.Shift, JobTraffic: traffic.JobTraffic{Distance: a * pp, MessageBytes: p.HW.MTU, Load: 1}}
		res, err := Run(net, tb, p)
		require.NoError(t, err)
		hw := p.HW
		link := hw.LinkGbps / 8 * float64(hw.MTU) / float64(hw.PacketFlits(hw.MTU)*hw.FlitBytes)
		f := res.ThroughputGBs / float64(net.NumHCAs()) / link
		t.Logf("rank3_gbps %g: %.3f of a link per node", r, f)
		assert.InEpsilon(t, r/hw.LinkGbps/(a*pp), f, 0.10, "rank3_gbps %g", r)
	}
}

// A job's own mode routes its packets as the engine of that mode would:
// one job on every node with routing "min" under the ugal engine runs
// packet for packet as under the min engine, and differently from ugal.
func TestJobRoutingMode(t *testing.T) {
	spec := "dragonfly:a=4,p=2,h=2,g=9"
	run := func(engine, mode string) *Result {
		net, tb := setup(t, spec, engine)
		p := DefaultParams()
		p.MaxTime = 30 * fabric.Microsecond
		p.Record = true
		ranks := make([]int, net.NumHCAs())
		for i := range ranks {
			ranks[i] = i
		}
		p.Jobs = []traffic.Job{{ID: "shift", Ranks: ranks, Routing: mode,
			Traffic: traffic.JobTraffic{Kind: traffic.Shift, Distance: 8, Load: 1}}}
		res, err := Run(net, tb, p)
		require.NoError(t, err)
		return res
	}
	asMin, underMin, ugal := run("ugal", "min"), run("min", ""), run("ugal", "")
	require.NotEmpty(t, asMin.Deliveries)
	assert.Equal(t, underMin.Deliveries, asMin.Deliveries)
	assert.NotEqual(t, ugal.Deliveries, asMin.Deliveries)

	net, tb := setup(t, spec, "dfsssp")
	p := DefaultParams()
	p.Jobs = []traffic.Job{{ID: "a", Ranks: []int{0, 1}, Routing: "ugal", Traffic: traffic.JobTraffic{Kind: traffic.Shift, Distance: 1, Load: 1}}}
	_, err := Run(net, tb, p)
	assert.ErrorContains(t, err, "needs an adaptive engine")
}

// An adaptive engine on a network of one switch needs no VL beyond VL 0
// (its dragonfly's diameter, and so its VL count, is 0); the simulator still
// keeps VL 0, on which HCAs inject. Regression: lanes sized by the VLs the
// tables report left none, and the first injection indexed an empty slice.
func TestAdaptiveOneSwitch(t *testing.T) {
	for _, engine := range []string{"min", "ugal"} {
		net, tb := setup(t, "dragonfly:a=1,p=2,h=0,g=1", engine)
		p := DefaultParams()
		p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 2 * p.HW.MTU}}
		res, err := Run(net, tb, p)
		require.NoError(t, err, engine)
		assert.Equal(t, Completed, res.Verdict, engine)
		assert.EqualValues(t, 2, res.Messages, engine)
	}
}

// seeds/004 Fig. 7 in kind (issue 16 item 5), on the Aries machine of
// docs/jobs/aries with Aries' rates (NIC 80 Gbit/s, tiles 42 and 37.6) and
// no noise: two 4 MiB ping-pongs, one inside a group and one between two
// groups. Inside the group high bias keeps the transfer on its one
// minimal path of tiles, which the faster NIC overruns (it stalls), so
// ugal, which spreads it, is much faster. Between the groups the minimal
// paths through the 48 global cables carry it; ugal still detours packets
// on the congestion the transfer's own packets make at the source
// router's outputs (the paper's phantom congestion), so high bias
// finishes first, at a lower packet latency, with fewer hops.
func TestAriesFig7InKind(t *testing.T) {
	type run struct {
		done, latency, stalls map[string]float64
		hops                  int64
	}
	measure := func(engine string) run {
		net, tb := setup(t, "aries:groups=3,h=1,hcas=384", engine)
		byName := net.ByName()
		rank := func(name string) int {
			i, ok := byName[name]
			require.True(t, ok, name)
			return i - net.NumSwitches
		}
		p := DefaultParams()
		p.HW.PCIeGbps, p.HW.HiccupPs = 128, 0
		p.HW.LinkGbps, p.HW.Rank1Gbps, p.HW.Rank2Gbps, p.HW.Rank3Gbps = 80, 42, 42, 37.6
		p.Counters = true
		pp := traffic.JobTraffic{Kind: traffic.PingPong, MessageBytes: 4 << 20, Iterations: 1}
		p.Jobs = []traffic.Job{
			{ID: "intra", Ranks: []int{rank("h-a0-r0-c0-0"), rank("h-a0-r5-c15-0")}, Traffic: pp},
			{ID: "inter", Ranks: []int{rank("h-a1-r0-c0-0"), rank("h-a2-r5-c15-0")}, Traffic: pp},
		}
		res, err := Run(net, tb, p)
		require.NoError(t, err)
		r := run{done: map[string]float64{}, latency: map[string]float64{}, stalls: map[string]float64{}, hops: res.FlitHops}
		for _, j := range res.Jobs {
			require.True(t, j.Completed, "%s: %s", engine, j.ID)
			require.NotNil(t, j.Counters)
			r.done[j.ID], r.latency[j.ID], r.stalls[j.ID] = j.CompletionNs, j.Counters.Latency.MeanNs, j.Counters.StallsPerFlit
			t.Logf("%-9s %-5s %8.1f µs, latency %.2f µs, %.3f stalls per flit", engine, j.ID, j.CompletionNs/1000, j.Counters.Latency.MeanNs/1000, j.Counters.StallsPerFlit)
		}
		return r
	}
	ugal, high := measure("ugal"), measure("ugal-high")
	assert.Greater(t, high.done["intra"], 1.5*ugal.done["intra"], "inside a group adaptive routing is faster")
	assert.Greater(t, high.stalls["intra"], 0.5, "high bias stalls on its one path")
	assert.Less(t, high.done["inter"], ugal.done["inter"], "between groups high bias is faster")
	assert.Less(t, high.latency["inter"], ugal.latency["inter"], "at a lower packet latency")
	assert.Zero(t, high.stalls["inter"])
	assert.Less(t, high.hops, ugal.hops, "ugal detours")
}
