package routing

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/faults"
)

// spreadVLs deals the same SLs as dealing collectPaths' paths round-robin
// with balanceLayers, which keeps every path's channels: on fat trees
// whole and with failed cables and switches, and on several VL counts.
func TestSpreadVLsMatchesPathSet(t *testing.T) {
	for _, spec := range []string{"kary-ntree:k=4,n=3", "xgft:m=8x6,w=4x3,hcas=150"} {
		for _, fs := range []faults.Spec{{}, {LinkPercent: 5, Seed: 3}, {SwitchPercent: 5, Seed: 4}} {
			net := build(t, spec)
			if fs.LinkPercent+fs.SwitchPercent > 0 {
				var err error
				net, _, err = faults.Inject(net, fs)
				require.NoError(t, err)
			}
			for _, vls := range []int{2, 3, 8} {
				got, err := routeFatTree(newGraph(net), Options{VLs: vls})
				require.NoError(t, err, "%s %+v", spec, fs)
				want, err := routeFatTree(newGraph(net), Options{VLs: 1})
				require.NoError(t, err)
				ps, err := collectPaths(newGraph(net), want)
				require.NoError(t, err)
				layer := make([]uint8, ps.len())
				want.VLsUsed = balanceLayers(ps, layer, 1, vls)
				ps.apply(want, layer)
				require.Equal(t, want.VLsUsed, got.VLsUsed, "%s %+v vls=%d", spec, fs, vls)
				require.Equal(t, want.sl, got.sl, "%s %+v vls=%d", spec, fs, vls)
				require.NotNil(t, got.sl, "the spread must use SLs")
			}
		}
	}
}

// DFSSSP's online layering fails at once, saying why, when its path list
// would not fit, and the count it gives is the hops collectPaths would
// keep; collectPaths fails likewise within its walk. (The offline layering
// goes on along the tables: TestDFSSSPPastThePathList.)
func TestPathListLimit(t *testing.T) {
	net := build(t, "torus:dims=4x4,hcas=32")
	g := newGraph(net)
	tb, err := routeSSSP(g, Options{VLs: 8})
	require.NoError(t, err)
	ps, err := collectPaths(g, tb)
	require.NoError(t, err)
	hops := int64(len(ps.ch))
	require.Equal(t, hops, g.pathHops(tb))
	require.Equal(t, hops, g.minimalPathHops(g.hopDistances()), "SSSP's paths are minimal")

	g.maxPathHops = hops - 1
	_, err = routeDFSSSP(g, Options{VLs: 8, Break: "online"})
	var f *Failure
	require.ErrorAs(t, err, &f)
	require.Contains(t, f.Reason, fmt.Sprintf("would hold %d channel hops, more than the %d", hops, hops-1))
	g.maxPathHops = int64(g.S*g.S) + hops/2 // past the limit within the walk
	_, err = collectPaths(g, tb)
	require.ErrorContains(t, err, fmt.Sprintf("would hold %d channel hops", hops))
	g.maxPathHops = hops + int64(g.S*g.S)
	_, err = routeDFSSSP(g, Options{VLs: 8})
	require.NoError(t, err)
}
