package fabric

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomMultigraph draws a symmetric switch adjacency of n nodes with
// parallel cables.
func randomMultigraph(r *rand.Rand, n int, p float64) [][]Neighbor {
	adj := make([][]Neighbor, n)
	for u := 0; u < n; u++ {
		for v := u + 1; v < n; v++ {
			if r.Float64() < p {
				c := 1 + r.IntN(3)
				adj[u] = append(adj[u], Neighbor{Node: v, Cables: c})
				adj[v] = append(adj[v], Neighbor{Node: u, Cables: c})
			}
		}
	}
	return adj
}

// connectedWithout reports whether the nodes outside the bit set gone are
// connected (fewer than two of them count as not separated).
func connectedWithout(adj [][]Neighbor, gone uint) (connected bool, left int) {
	n := len(adj)
	start := -1
	for u := 0; u < n; u++ {
		if gone&(1<<u) == 0 {
			left++
			if start < 0 {
				start = u
			}
		}
	}
	if left < 2 {
		return true, left
	}
	seen := gone | 1<<start
	queue := []int{start}
	for h := 0; h < len(queue); h++ {
		for _, nb := range adj[queue[h]] {
			if seen&(1<<nb.Node) == 0 {
				seen |= 1 << nb.Node
				queue = append(queue, nb.Node)
			}
		}
	}
	return bits.OnesCount(seen) == n, left
}

// bruteKappa is the least number of nodes whose removal leaves a
// disconnected graph of at least two nodes (n−1 if none does).
func bruteKappa(adj [][]Neighbor) int {
	n := len(adj)
	best := n - 1
	for gone := uint(0); gone < 1<<n; gone++ {
		if c := bits.OnesCount(gone); c < best {
			if ok, left := connectedWithout(adj, gone); !ok && left >= 2 {
				best = c
			}
		}
	}
	return best
}

// bruteLambda is the lightest cut over every bipartition.
func bruteLambda(adj [][]Neighbor) int {
	n := len(adj)
	best := -1
	for side := uint(1); side < 1<<(n-1); side++ { // node n−1 always outside
		cut := 0
		for u := 0; u < n; u++ {
			for _, nb := range adj[u] {
				if side&(1<<u) != 0 && side&(1<<nb.Node) == 0 {
					cut += nb.Cables
				}
			}
		}
		if best < 0 || cut < best {
			best = cut
		}
	}
	return best
}

// The flow-based κ and λ agree with exhaustive search on small random
// multigraphs, sparse (often disconnected or with cut vertices) to dense.
func TestConnectivityAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for i := 0; i < 600; i++ {
		n := 2 + r.IntN(9)
		p := []float64{0.2, 0.4, 0.6, 0.9}[i%4]
		adj := randomMultigraph(r, n, p)
		require.Equal(t, bruteKappa(adj), VertexConnectivity(adj), "κ of graph %d: %v", i, adj)
		require.Equal(t, bruteLambda(adj), EdgeConnectivity(adj), "λ of graph %d: %v", i, adj)
	}
}
