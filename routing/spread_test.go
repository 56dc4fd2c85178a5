package routing

import (
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
				ps := collectPaths(newGraph(net), want)
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
