package fabric

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Group topologies carry each switch's group and chassis, from which every
// cable's class follows: the counts are those of the layouts (seeds/004
// §2.1 for Aries: per group 6 chassis × C(16,2) rank-1 cables and 16
// columns × C(6,2) × 3 rank-2 cables), and they survive failures.
func TestLinkClasses(t *testing.T) {
	for _, tc := range []struct {
		spec                string
		groups              int
		rank1, rank2, rank3 int
		hcas                int
	}{
		// Balanced dragonfly a = 2p = 2h: 33 groups of K8, one global cable per pair of groups.
		{"dragonfly:a=8,p=4,h=4,g=33", 33, 33 * 28, 0, 33 * 32 / 2, 1056},
		{"dragonfly:a=4,p=2,h=2,g=9", 9, 9 * 6, 0, 9 * 8 / 2, 72},
		{"aries:groups=2,h=2", 2, 2 * 6 * 120, 2 * 16 * 15 * 3, 192, 768},
		{"cascade:groups=3,h=1", 3, 3 * 6 * 120, 3 * 16 * 15 * 3, 3 * 48, 2304},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			net, err := Build(tc.spec)
			require.NoError(t, err)
			assert.Equal(t, tc.groups, net.Groups)
			assert.Equal(t, tc.hcas, net.NumHCAs())
			in := Summarize(net)
			assert.Equal(t, map[string]int{"hca": tc.hcas, "rank-1": tc.rank1, "rank-2": tc.rank2, "rank-3": tc.rank3},
				without0(in.Classes))
			perGroup := make([]int, net.Groups)
			for s := 0; s < net.NumSwitches; s++ {
				perGroup[net.Nodes[s].Group]++
			}
			for g := range perGroup {
				assert.Equal(t, net.NumSwitches/net.Groups, perGroup[g], "group %d", g)
			}
			// A failed cable and switch leave the others' classes alone.
			drop := make([]bool, len(net.Links))
			drop[0] = true
			node := make([]bool, len(net.Nodes))
			node[1] = true
			less, err := net.Without(drop, node)
			require.NoError(t, err)
			assert.Equal(t, net.Groups, less.Groups)
			for l, lk := range less.Links {
				a, b := less.Nodes[lk.A.Node].Name, less.Nodes[lk.B.Node].Name
				orig := findLink(t, net, a, b)
				assert.Equal(t, net.LinkClass(orig), less.LinkClass(l), "%s–%s", a, b)
			}
		})
	}
	net, err := Build("torus:dims=3x3")
	require.NoError(t, err)
	assert.Zero(t, net.Groups)
	assert.Equal(t, ClassSwitch, net.LinkClass(0))
	assert.Equal(t, "rank-3", ClassRank3.String())
}

func without0(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	if _, ok := out["rank-2"]; !ok {
		out["rank-2"] = 0
	}
	return out
}

// findLink returns a cable between the nodes named a and b.
func findLink(t *testing.T, net *Network, a, b string) int {
	t.Helper()
	for l, lk := range net.Links {
		x, y := net.Nodes[lk.A.Node].Name, net.Nodes[lk.B.Node].Name
		if (x == a && y == b) || (x == b && y == a) {
			return l
		}
	}
	t.Fatalf("no cable %s–%s", a, b)
	return -1
}
