package routing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// Layering along the tables (treeLayers) is DFSSSP's cycle breaking with no
// path list: on the property networks and every cut rule, its first layer
// keeps exactly the paths breakCyclesBy keeps there (same graph, same
// weights, same search, same moves); the default (layerAuto: the moved
// paths listed in breakCyclesBy's order) gives the listed layering's tables
// byte for byte everywhere; along the tables throughout, where no layer
// past the first has a cycle (two layers or fewer) the tables are alike,
// and everywhere deadlock-free with its own count of layers.
func TestTreeLayers(t *testing.T) {
	same, differ := 0, 0
	for _, net := range propertyNets(t) {
		for _, rule := range []breakRule{{}, {strongest: true}, {first: true}} {
			name := fmt.Sprintf("%s rule %+v", net.Name, rule)
			g := newGraph(net)
			sssp := func() *Tables {
				tb, err := routeSSSP(g, Options{VLs: 8})
				require.NoError(t, err, name)
				return tb
			}
			base := sssp()

			// Layer 0 alone.
			ps, err := collectPaths(g, base)
			require.NoError(t, err)
			layer := make([]uint8, ps.len())
			cur := make([]int32, ps.len())
			for i := range cur {
				cur[i] = int32(i)
			}
			cb := cycleBreaker{rule: rule}
			cb.breakLayer(ps, cur, layer, 0)
			tb := sssp()
			tb.sl = make([]uint8, len(tb.lft))
			b := newTreeBreaker(g, tb, rule)
			b.record = true
			b.breakLayer(0)
			b.writeSLs()
			var hops int64
			for p := range ps.len() {
				require.Equal(t, layer[p], tb.SL(int(ps.src[p]), ps.lid[p]), "%s: path %d (switch %d to LID %d)", name, p, ps.src[p], ps.lid[p])
				if layer[p] == 1 {
					hops += int64(len(ps.channels(p)))
				}
			}
			require.Equal(t, hops, b.movedHops, "%s: the moved paths' channels, counted as they move", name)
			require.Equal(t, len(cb.weight), len(b.weight), "%s: edges of layer 0", name)

			// Whole: listed, along the tables after the first layer
			// (layerAuto, the default), along the tables throughout.
			o := Options{VLs: 8, Break: ruleName(rule)}
			want, err := layerDFSSSP(g, sssp(), o, "dfsssp", layerListed)
			if err != nil {
				continue // needs more than 8 VLs
			}
			auto, err := layerDFSSSP(g, sssp(), o, "dfsssp", layerAuto)
			require.NoError(t, err, name)
			require.Equal(t, want.VLsNeeded, auto.VLsNeeded, name)
			require.Equal(t, want.VLsUsed, auto.VLsUsed, name)
			require.Equal(t, want.sl, auto.sl, name)
			got, err := layerDFSSSP(g, sssp(), o, "dfsssp", layerTrees)
			require.NoError(t, err, name)
			v, err := Verify(net, got)
			require.NoError(t, err)
			require.True(t, v.DeadlockFree, "%s: %s", name, v.Problem)
			if want.VLsNeeded <= 2 {
				require.Equal(t, want.VLsNeeded, got.VLsNeeded, name)
				require.Equal(t, want.VLsUsed, got.VLsUsed, name)
				require.Equal(t, want.sl, got.sl, name)
				same++
			} else {
				require.InDelta(t, want.VLsNeeded, got.VLsNeeded, 1, name)
				differ++
			}
		}
	}
	t.Logf("along the tables throughout: %d layerings alike byte for byte, %d with three or more layers deadlock-free", same, differ)
	require.Greater(t, same, 20)
}

// ruleName is the Options.Break spelling of a rule.
func ruleName(r breakRule) string {
	switch {
	case r.strongest:
		return "strongest"
	case r.first:
		return "first"
	}
	return ""
}

// DFSSSP past its path list's limit layers along the tables, deadlock-free,
// and says so; the online layering cannot.
func TestDFSSSPPastThePathList(t *testing.T) {
	net := build(t, "torus:dims=4x4,hcas=32")
	g := newGraph(net)
	want, err := routeDFSSSP(g, Options{VLs: 8})
	require.NoError(t, err)
	g.maxPathHops = 10
	got, err := routeDFSSSP(g, Options{VLs: 8})
	require.NoError(t, err)
	require.Contains(t, got.Notes, "paths past the first layer layered along the tables (too many to list)")
	require.InDelta(t, want.VLsNeeded, got.VLsNeeded, 1)
	v, err := Verify(net, got)
	require.NoError(t, err)
	require.True(t, v.DeadlockFree, v.Problem)
	t.Logf("listed: %d layers; along the tables: %d", want.VLsNeeded, got.VLsNeeded)
	_, err = routeDFSSSP(g, Options{VLs: 8, Break: "online"})
	require.ErrorContains(t, err, "the online layering needs it")
}

// Along the tables, a layering that needs more layers than VLs stops
// there and says so (a lower bound), where the listed one counts on.
func TestTreeLayersStopCounting(t *testing.T) {
	net := build(t, "torus:dims=6x6,hcas=36")
	g := newGraph(net)
	tb, err := routeSSSP(g, Options{VLs: 2})
	require.NoError(t, err)
	_, err = layerDFSSSP(g, tb, Options{VLs: 2}, "dfsssp", layerListed)
	var listed *Failure
	require.ErrorAs(t, err, &listed)
	require.Greater(t, listed.VLsNeeded, 2)
	require.False(t, listed.AtLeast)
	tb, err = routeSSSP(g, Options{VLs: 2})
	require.NoError(t, err)
	_, err = layerDFSSSP(g, tb, Options{VLs: 2}, "dfsssp", layerTrees)
	var trees *Failure
	require.ErrorAs(t, err, &trees)
	require.Equal(t, 3, trees.VLsNeeded)
	require.True(t, trees.AtLeast)
	require.Contains(t, trees.Reason, "needs more than 2 VLs (counted no further")
	require.Nil(t, tb.sl, "a failed layering leaves no SLs behind")
}
