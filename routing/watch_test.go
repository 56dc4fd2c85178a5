package routing

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A watched routing tells how far it has come, stage by stage, each stage
// counting up to its total, and its tables (or its failure: DFSSSP needs
// more than 8 VLs on the torus, after cutting cycles) are those of the
// routing unwatched.
func TestWatchSeesEveryStageToItsEnd(t *testing.T) {
	for _, tc := range []struct {
		spec, engine string
		brk          string   // Options.Break
		stages       []string // in the order they start
	}{
		{"kary-ntree:k=8,n=3", "sssp", "", []string{"shortest-path trees"}},
		{"kary-ntree:k=8,n=3", "sar", "", []string{"shortest-path trees", "layer 1: dependencies of destinations"}},
		{"kary-ntree:k=8,n=3", "nue", "", []string{"destinations"}},
		{"kary-ntree:k=8,n=3", "lash", "", []string{"source switches"}},
		// The first layer along the tables, the paths it moves on listed
		// and layered from the second on.
		{"torus:dims=6x6x6,hcas=432", "dfsssp", "", []string{"shortest-path trees", "layer 1: dependencies of destinations", "layer 1: cycles cut", "layer 2: cycles cut"}},
		{"torus:dims=4x4x4,hcas=256", "dfsssp", "online", []string{"shortest-path trees", "paths placed"}},
	} {
		t.Run(tc.engine+tc.brk+"/"+tc.spec, func(t *testing.T) {
			net := build(t, tc.spec)
			type call struct{ done, total int }
			seen := map[string][]call{}
			var order []string
			e, ok := Lookup(tc.engine)
			require.True(t, ok)
			o := Options{VLs: 8, Break: tc.brk}
			watched, werr := e.RouteWatched(net, o, func(stage string, done, total int) {
				if _, ok := seen[stage]; !ok {
					order = append(order, stage)
				}
				seen[stage] = append(seen[stage], call{done, total})
			})
			require.Subset(t, order, tc.stages)
			var starts []string
			for _, s := range order {
				for _, want := range tc.stages {
					if s == want {
						starts = append(starts, s)
					}
				}
			}
			require.Equal(t, tc.stages, starts, "stages in the order they start")
			for stage, calls := range seen {
				for i := 1; i < len(calls); i++ {
					require.LessOrEqual(t, calls[i-1].done, calls[i].done, "%s counts up", stage)
				}
				if last := calls[len(calls)-1]; last.total > 0 {
					require.Equal(t, last.total, last.done, "%s ends at its total", stage)
				}
			}
			if c := seen["shortest-path trees"]; c != nil {
				require.Equal(t, net.NumHCAs(), c[len(c)-1].total, "one tree per HCA")
				require.GreaterOrEqual(t, len(c), net.NumHCAs()/watchEvery, "one call every %d trees", watchEvery)
			}
			plain, err := e.Route(net, o)
			require.Equal(t, err, werr, "the same failure watched or not")
			if err == nil {
				sameTables(t, net, plain, watched)
			}
		})
	}
}
