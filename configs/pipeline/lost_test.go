package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
)

// TestLostPaths checks Props. 4.1/4.2 on a 4-ary 3-tree from first
// principles. Of its 64·63 ordered HCA pairs, 64·12 cross a pod's two
// cables (leaf, level 2, leaf) and 64·48 four (through the top), so the
// 128 inter-switch cables carry 13,824 routes, 108 per cable; the 32
// switches without HCAs see 768 routes once and 3,072 three times, 312
// per switch. One failed switch breaks exactly the routes entering it.
func TestLostPaths(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=3")
	require.NoError(t, err)
	l := Lost{Net: net, Engines: []string{"dfsssp", "updn"}, Options: routing.DefaultOptions(), Counts: []int{1, 2, 3, 6}, Draws: 12, Workers: 1}
	out, err := l.Run()
	require.NoError(t, err)
	require.Len(t, out, 2)
	for _, e := range out {
		assert.Equal(t, 64*63, e.Pairs, e.Engine)
		assert.InDelta(t, 108, e.PerFailure, 1e-9, "%s: Prop. 4.1, every shortest-path routing", e.Engine)
		for li, lv := range e.Levels {
			assert.InDelta(t, 100*float64(lv.Count)*108/4032, lv.Prop42, 1e-9)
			for d, v := range lv.Draws {
				if e.Engine == "dfsssp" {
					assert.Greater(t, v, 0.0, "%d failures, draw %d: DFSSSP uses every cable of a tree", lv.Count, d+1)
				}
				if li > 0 {
					// A draw's n+1 failures hold its n (without replacement,
					// from the same stream), so it never loses fewer pairs.
					assert.GreaterOrEqual(t, v, e.Levels[li-1].Draws[d], "%s: draw %d", e.Engine, d+1)
				}
			}
		}
	}
	// DFSSSP spreads the tree's routes evenly over the cables, Up*/Down*
	// does not (some carry none): its losses vary more.
	assert.Less(t, out[0].Levels[0].Percent.Max-out[0].Levels[0].Percent.Min, out[1].Levels[0].Percent.Max-out[1].Levels[0].Percent.Min)

	l.Workers = 3
	again, err := l.Run()
	require.NoError(t, err)
	assert.Equal(t, out, again, "results do not depend on the workers")

	// Switches: Prop. 4.1 is 312 routes; one failed switch loses exactly
	// the routes that enter it.
	l = Lost{Net: net, Engines: []string{"dfsssp"}, Options: routing.DefaultOptions(), Switches: true, Counts: []int{1}, Draws: 5, Workers: 2}
	sw, err := l.Run()
	require.NoError(t, err)
	assert.InDelta(t, 312, sw[0].PerFailure, 1e-9)
	r, err := Route(net, "dfsssp", routing.DefaultOptions())
	require.NoError(t, err)
	loads, err := routing.ChannelLoads(net, r.Tables)
	require.NoError(t, err)
	chans := fabric.NewChannels(net)
	for d, v := range sw[0].Levels[0].Draws {
		_, rec, err := faults.Inject(net, faults.Spec{SwitchPercent: 100.0 / float64(net.NumSwitches), Seed: uint64(d + 1)})
		require.NoError(t, err)
		require.Len(t, rec.Switches, 1)
		var into int64
		for ch := range int32(chans.Len()) {
			if net.Nodes[chans.To(ch).Node].Name == rec.Switches[0] {
				into += loads[ch]
			}
		}
		assert.InDelta(t, 100*float64(into)/4032, v, 1e-9, "draw %d: switch %s", d+1, rec.Switches[0])
	}

	_, err = Lost{Net: net, Engines: []string{"dfsssp"}, Counts: []int{1}}.Run()
	assert.Error(t, err, "no draws")
}
