package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
)

// One failed up cable of a 4-ary 3-tree, rerouted by DFSSSP with the
// times declared: the pairs lost at the failure are the cable's routes
// (its two channels' forwarding indices) until the subnet manager has
// routed (0.1 s + 0.5 s); then each switch with new blocks has them
// written a millisecond each (its 112 LIDs, switches' and HCAs', span two
// blocks), and every pair is delivered again by the last write at the
// latest.
func TestSMReroute(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=3")
	require.NoError(t, err)
	l := -1
	for i := range net.Links {
		if net.IsSwitchLink(i) {
			l = i
			break
		}
	}
	lk := net.Links[l]
	spec := faults.Spec{Fixed: []faults.Fixed{{Node: net.Nodes[lk.A.Node].Name, Port: int(lk.A.Port)}}}
	r := SMReroute{Net: net, Engine: "dfsssp", Options: routing.DefaultOptions(), Faults: spec, DetectS: 0.1, RouteS: 0.5, MADRate: 1000}
	rep, err := r.Run()
	require.NoError(t, err)
	require.Len(t, rep.Failed.Links, 1)

	old, err := Route(net, "dfsssp", routing.DefaultOptions())
	require.NoError(t, err)
	loads, err := routing.ChannelLoads(net, old.Tables)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(rep.Steps), 3)
	assert.Equal(t, 64*63, rep.Pairs)
	assert.Equal(t, int(loads[2*l]+loads[2*l+1]), rep.Steps[0].Broken+rep.Steps[0].Looping, "the failed cable's routes")
	assert.Equal(t, rep.Steps[0].Broken, rep.Steps[1].Broken, "nothing changes until the new tables are written")
	assert.InDelta(t, 0.6, rep.Steps[1].AtS, 1e-12)
	assert.Equal(t, rep.Switches, len(rep.Steps)-2)
	assert.GreaterOrEqual(t, rep.Blocks, rep.Switches)
	assert.LessOrEqual(t, rep.Blocks, 2*rep.Switches, "two blocks per switch at most")
	last := rep.Steps[len(rep.Steps)-1]
	assert.InDelta(t, 0.6+float64(rep.Blocks)/1000, last.AtS, 1e-9)
	assert.Zero(t, last.Broken+last.Looping, "the new tables alone deliver every pair")
	assert.Greater(t, rep.ReachableS, 0.6)
	assert.LessOrEqual(t, rep.ReachableS, last.AtS)
	assert.GreaterOrEqual(t, rep.PairSeconds, 0.6*float64(rep.Steps[0].Broken))

	r.Faults = faults.Spec{SwitchPercent: 5, Seed: 1}
	_, err = r.Run()
	assert.ErrorContains(t, err, "cable failures only")
}
