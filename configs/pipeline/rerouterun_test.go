package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/difftest"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// A reroute under traffic: one cable of a 4-ary 2-tree (routed by
// DFSSSP) fails 30 µs into uniform traffic at load 0.7; the subnet
// manager starts writing 10 µs later, one block a microsecond (five
// switches have a block that differs: the last write at 45 µs). Nothing
// differs from the intact run before the failure; packets are lost and
// every one is sent again; the throughput recovers after the last write;
// and the reference simulator agrees packet for packet.
func TestRerouteRun(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	p := sim.DefaultParams()
	p.Traffic = traffic.Spec{Kind: traffic.Uniform, JobTraffic: traffic.JobTraffic{MessageBytes: p.HW.MTU, Load: 0.7}}
	rr := RerouteRun{
		Reroute: SMReroute{Net: net, Engine: "dfsssp", Options: routing.DefaultOptions(), Faults: faults.Spec{LinkPercent: 10, Seed: 1},
			DetectS: 5e-6, RouteS: 5e-6, MADRate: 1e6},
		Params: p, FailAtPs: 30 * fabric.Microsecond, RetryPs: 20 * fabric.Microsecond, WindowPs: 5 * fabric.Microsecond,
	}
	out, err := rr.Run()
	require.NoError(t, err)
	assert.Equal(t, 5, out.Reroute.Blocks)
	assert.Equal(t, 10, out.Writes, "a block and an SL→VL table per switch")
	assert.InDelta(t, 45_000.0, out.TablesNs, 1e-9)
	res := out.Result
	assert.False(t, out.Deadlock)
	assert.Greater(t, res.PacketsLost, int64(0))
	assert.Equal(t, res.PacketsLost, res.PacketsResent, "every lost packet sent again within the run")
	for i, w := range out.Windows[:6] { // windows ending by the failure
		assert.Equal(t, out.Base[i], w, "window %d", i)
	}
	assert.NotEqual(t, out.Base[6], out.Windows[6], "the failure's window")
	assert.GreaterOrEqual(t, out.RecoveredNs, out.TablesNs)

	rr.Sim = reference.Run
	ref, err := rr.Run()
	require.NoError(t, err)
	assert.Empty(t, difftest.Compare(res, ref.Result))
}
