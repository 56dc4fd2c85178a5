package difftest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

var simulators = []struct {
	name string
	run  pipeline.Simulator
}{{"fast", sim.Run}, {"reference", reference.Run}}

func jobParams(jobs ...traffic.Job) sim.Params {
	p := sim.DefaultParams()
	p.HW.HiccupPs = 0 // latencies the same at every instant
	p.Jobs = jobs
	return p
}

func job(id string, kind traffic.Kind, bytes, iterations int, ranks ...int) traffic.Job {
	return traffic.Job{ID: id, Ranks: ranks, Traffic: traffic.JobTraffic{Kind: kind, MessageBytes: bytes, Load: 1, Iterations: iterations}}
}

// Zero load, from first principles: two ranks that send one message each
// way at once take one one-way latency L; a ping-pong of k iterations is
// 2k such messages in turn, each created the instant the previous one is
// consumed, so it takes exactly 2kL. Both simulators.
func TestJobsPingPongLatency(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	for _, s := range simulators {
		t.Run(s.name, func(t *testing.T) {
			one, err := s.run(net, tb, jobParams(job("x", traffic.Exchange, 3000, 1, 1, 6)))
			require.NoError(t, err)
			require.Equal(t, sim.Completed, one.Verdict)
			L := one.Jobs[0].CompletionNs
			require.Greater(t, L, 0.0)
			pp, err := s.run(net, tb, jobParams(job("pp", traffic.PingPong, 3000, 7, 1, 6)))
			require.NoError(t, err)
			require.Equal(t, sim.Completed, pp.Verdict)
			assert.InDelta(t, 14*L, pp.Jobs[0].CompletionNs, 1e-6, "L = %g ns", L)
			assert.Equal(t, int64(14), pp.Jobs[0].Messages)
		})
	}
}

// Jobs that share no channel do not slow each other: on a 2-level fat
// tree with full bisection, exchanges confined to their own leaf switches
// complete exactly as alone (slowdown 1). On a ring, an all-to-all beside
// a noise job whose messages take the same cables is slowed. Both
// simulators.
func TestJobsInterference(t *testing.T) {
	build := func(spec string) (*fabric.Network, *routing.Tables) {
		net, err := fabric.Build(spec)
		require.NoError(t, err)
		tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
		require.NoError(t, err)
		return net, tb
	}
	onSwitch := func(net *fabric.Network, sw int) []int {
		var hs []int
		for h, s := range net.HCASwitches() {
			if s == sw {
				hs = append(hs, h)
			}
		}
		return hs
	}
	tree, ttb := build("kary-ntree:k=4,n=2") // 4 HCAs per leaf
	ring, rtb := build("torus:dims=6,hcas=12")
	for _, s := range simulators {
		t.Run(s.name, func(t *testing.T) {
			sw := tree.HCASwitches()
			a := job("a", traffic.Exchange, 4096, 2, onSwitch(tree, sw[0])...)
			b := job("b", traffic.Exchange, 4096, 2, onSwitch(tree, sw[4])...)
			p := jobParams(a, b)
			res, err := s.run(tree, ttb, p)
			require.NoError(t, err)
			require.NoError(t, pipeline.Slowdowns(res, tree, ttb, p, s.run))
			for _, j := range res.Jobs {
				assert.True(t, j.Completed)
				assert.Equal(t, 1.0, j.Slowdown, "job %s shares no channel", j.ID)
			}
			// The ring: the exchange on neighbouring switches, the noise on
			// the same switches' other HCAs.
			rs := ring.HCASwitches()
			var s0, s3 []int
			for h, x := range rs {
				switch x {
				case rs[0]:
					s0 = append(s0, h)
				case rs[2]: // the next switch: one shortest path
					s3 = append(s3, h)
				}
			}
			spread := job("spread", traffic.Exchange, 4096, 4, s0[0], s3[0])
			noise := traffic.Job{ID: "noise", Ranks: []int{s0[1], s3[1]},
				Traffic: traffic.JobTraffic{Kind: traffic.Noise, MessageBytes: 4096, Load: 1}}
			p = jobParams(spread, noise)
			p.MaxTime = 2000 * fabric.Microsecond
			res, err = s.run(ring, rtb, p)
			require.NoError(t, err)
			require.NoError(t, pipeline.Slowdowns(res, ring, rtb, p, s.run))
			assert.Equal(t, sim.Completed, res.Verdict, "the finite job ends the run")
			assert.Greater(t, res.Jobs[0].Slowdown, 1.05, "the exchange shares the ring's cables with the noise")
			assert.Greater(t, res.Jobs[1].ThroughputGBs, 0.0)
		})
	}
}

// MPICH's all-to-all of 257 B to 32 KiB waits for each batch of 32 sends
// and receives (traffic.AlgScattered): on 40 ranks two batches, beside
// noise on the other HCAs, the same in both simulators packet for packet,
// every message sent.
func TestScatteredAlltoallInBothSimulators(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=3") // 64 HCAs
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	var ranks, rest []int
	for h := range net.NumHCAs() {
		if h%8 < 5 {
			ranks = append(ranks, h)
		} else {
			rest = append(rest, h)
		}
	}
	require.Len(t, ranks, 40)
	a2a := traffic.Job{ID: "a2a", Ranks: ranks, Traffic: traffic.JobTraffic{Kind: traffic.Alltoall, Algorithm: traffic.AlgMPICH, MessageBytes: 1 << 10, Load: 1, Iterations: 2}}
	noise := traffic.Job{ID: "noise", Ranks: rest, Traffic: traffic.JobTraffic{Kind: traffic.Noise, MessageBytes: 4096, Load: 0.5}}
	p := jobParams(a2a, noise)
	r := bothSims(t, net, tb, p)
	require.True(t, r.Jobs[0].Completed)
	assert.EqualValues(t, 2*40*39, r.Jobs[0].Messages)
}
