package pipeline

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/reference"
)

const campaign = `
name = "p"
fault_seeds = [1, 2]

[[topology]]
spec = "torus:dims=4x4"

[faults]
kind = "links"
percent = [0, 10]

[[routing]]
engine = "dfsssp"

[[routing]]
engine = "minhop"

[[routing]]
engine = "torus-2qos"
vls = 1

[[traffic]]
kind = "exchange"
msg_bytes = "10MTU"
`

func points(t *testing.T) (*configs.Campaign, []configs.Point) {
	c, err := configs.Parse([]byte(campaign), "p.toml", ".")
	require.NoError(t, err)
	require.NoError(t, c.Check())
	pts, err := c.Points()
	require.NoError(t, err)
	return c, pts
}

// Every point gives a record that says what happened: completed,
// deadlock, or routing_failed with the reason; never an evaluation error.
func TestEvaluateEveryOutcome(t *testing.T) {
	c, pts := points(t)
	nets := NewNetworks()
	seen := map[results.Verdict]int{}
	for _, p := range pts {
		r := Evaluate(p, c.Hash(), nets)
		seen[r.Verdict]++
		assert.Equal(t, p.Key, r.Key)
		assert.Equal(t, p.FaultSeed, r.FaultSeed)
		assert.Equal(t, p.Params.Seed, r.TrafficSeed)
		assert.Empty(t, r.Error, p.Key)
		switch r.Verdict {
		case results.Completed:
			assert.True(t, r.RoutingOK, p.Key)
			assert.Greater(t, r.ThroughputGBs, 0.0, p.Key)
			assert.Greater(t, r.FlitHops, int64(0), p.Key)
		case results.Deadlock:
			assert.False(t, r.DeadlockFree, "%s: a deadlock on verified deadlock-free tables", p.Key)
			assert.Greater(t, r.DeadlockCycle, 0, p.Key)
		case results.RoutingFailed:
			assert.NotEmpty(t, r.RoutingError, p.Key)
		default:
			t.Errorf("%s: verdict %s", p.Key, r.Verdict)
		}
		if p.Percent == 0 {
			assert.Zero(t, r.FailedLinks, p.Key)
		} else {
			assert.Equal(t, 3, r.FailedLinks, "%s: ⌊10 %% of 32 cables⌋", p.Key)
		}
	}
	assert.Greater(t, seen[results.Completed], 0)
	assert.Greater(t, seen[results.Deadlock], 0, "minhop deadlocks the exchange on a 4x4 torus")
	assert.Greater(t, seen[results.RoutingFailed], 0, "torus-2qos needs more than one VL on a torus")
}

// The same point gives the same record twice, and the reference simulator
// agrees with the fast one on it.
func TestRunDeterministicAndReferenceAgrees(t *testing.T) {
	c, pts := points(t)
	p := pts[0]
	a := Evaluate(p, c.Hash(), NewNetworks())
	b := Evaluate(p, c.Hash(), NewNetworks())
	assert.Equal(t, a, b)
	ref := Run(p, c.Hash(), NewNetworks(), reference.Run)
	require.NoError(t, ref.Err)
	ref.Record.Events = a.Events // the reference counts an event per flit
	assert.Equal(t, a, ref.Record)
}

func TestUnbuildablePointIsAnErrorRecord(t *testing.T) {
	c, pts := points(t)
	p := pts[0]
	p.Topology.Spec = "hypercube:d=4"
	o := Run(p, c.Hash(), NewNetworks(), nil)
	require.Error(t, o.Err)
	assert.Equal(t, results.Failed, o.Record.Verdict)
	assert.Equal(t, o.Err.Error(), o.Record.Error)
}

func TestLoadRefusesDisconnectedAndUnknown(t *testing.T) {
	_, err := Load("no-such-kind")
	assert.ErrorContains(t, err, "neither a topology spec nor a readable file")
	net, err := Load("torus:dims=3x3")
	require.NoError(t, err)
	assert.Equal(t, 9, net.NumSwitches)
}

// Points whose draws fail nothing and that differ only in the fault seed
// share one run when sharing is on, and every record is the one the point
// makes alone; points whose draws fail something each run.
func TestTwinsShareTheirRun(t *testing.T) {
	c, err := configs.Parse([]byte(`
name = "twins"
fault_seeds = [1, 2, 3]
traffic_seeds = [1, 2]

[[topology]]
spec = "torus:dims=4x4"

[faults]
kind = "links"
percent = [0, 1, 10]    # 1 % of 32 cables fails none

[[routing]]
engine = "dfsssp"

[[routing]]
engine = "minhop"

[[traffic]]
kind = "uniform"
max_time = "60us"
`), "twins.toml", ".")
	require.NoError(t, err)
	require.NoError(t, c.Check())
	pts, err := c.Points()
	require.NoError(t, err)
	require.Len(t, pts, 3*3*2*2)

	alone := make([]results.Record, len(pts))
	for i, p := range pts {
		alone[i] = Evaluate(p, c.Hash(), NewNetworks())
	}
	var mu sync.Mutex
	runs := 0
	counting := func(n *fabric.Network, tb *routing.Tables, q sim.Params) (*sim.Result, error) {
		mu.Lock()
		runs++
		mu.Unlock()
		return sim.Run(n, tb, q)
	}
	nets := NewNetworks()
	nets.ShareTwins()
	shared := make([]results.Record, len(pts))
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ { // workers that meet twins under way
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(pts); i += 3 {
				shared[i] = Run(pts[i], c.Hash(), nets, counting).Record
			}
		}()
	}
	wg.Wait()
	for i := range pts {
		assert.Equal(t, alone[i], shared[i], pts[i].Key)
	}
	// 0 % and 1 %: one run per traffic seed and routing; 10 %: every point.
	assert.Equal(t, 2*2+2*2+3*2*2, runs)
	assert.Equal(t, 3, alone[len(pts)-1].FailedLinks, "10 %% of 32 cables")
	assert.NotEqual(t, alone[0].ThroughputGBs, alone[2].ThroughputGBs, "the traffic seeds give different runs")
}
