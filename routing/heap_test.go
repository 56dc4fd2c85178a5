package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// indexHeap pops what minHeap pops once the entries a later push made
// stale are skipped, as Nue's Dijkstra skips them: over random pushes
// (keys lowered and raised) and pops, and across resets.
func TestIndexHeapAsLazyHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const n = 50
	ih := newIndexHeap(n)
	for round := 0; round < 200; round++ {
		var lazy minHeap
		cur := map[int32]int64{} // node → its key now
		ih.reset()
		for op := 0; op < 300; op++ {
			if rng.IntN(3) > 0 || len(cur) == 0 {
				v, k := int32(rng.IntN(n)), int64(rng.IntN(40))
				cur[v] = k
				lazy.push(k, v)
				ih.push(k, v)
				continue
			}
			var wk int64
			var wv int32
			for {
				wk, wv = lazy.pop()
				if k, ok := cur[wv]; ok && k == wk {
					break
				}
			}
			// The least (key, node) now, found without a heap.
			mk, mv := int64(1<<62), int32(-1)
			for v, k := range cur {
				if k < mk || k == mk && v < mv {
					mk, mv = k, v
				}
			}
			require.Equal(t, [2]int64{mk, int64(mv)}, [2]int64{wk, int64(wv)}, "round %d op %d: the lazy heap's pop", round, op)
			delete(cur, wv)
			k, v := ih.pop()
			require.Equal(t, [2]int64{wk, int64(wv)}, [2]int64{k, int64(v)}, "round %d op %d", round, op)
		}
		if round%2 == 0 { // leave entries behind for reset
			continue
		}
		for len(cur) > 0 {
			k, v := ih.pop()
			require.Equal(t, cur[v], k)
			delete(cur, v)
		}
		require.Zero(t, ih.len())
	}
}
