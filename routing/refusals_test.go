package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRefusalMemoAnswersAsInsertions runs the same random steps, removals
// and single insertions on two ordered graphs, one remembering its refused
// steps and one not: every step must get the same answer, and the graphs
// must stay equal. Small graphs with few nodes make cycles, repeated steps
// and cut witnesses frequent; the test also asserts that the memo answered
// steps and that removals made some of its refusals stale, so a memo that
// never answers, or ignores its witnesses, fails it.
func TestRefusalMemoAnswersAsInsertions(t *testing.T) {
	hits, stale, grown := 0, 0, 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		const nodes = 9
		memo, plain := newOrderedCDG(nodes), newOrderedCDG(nodes)
		memo.refusals = &refusalMemo{}
		var inserted []uint64 // one entry per use inserted
		// A few steps recur, as Nue's backtracking moves do; the last
		// seed's many steps make the memo's table grow.
		nSteps := 40
		if seed == 20 {
			nSteps = 3000
		}
		steps := make([][]uint64, nSteps)
		for i := range steps {
			for range 1 + rng.IntN(4) {
				steps[i] = append(steps[i], edgeKey(rng.Int32N(nodes), rng.Int32N(nodes)))
			}
		}
		for op := 0; op < 4000; op++ {
			switch r := rng.IntN(10); {
			case r < 6:
				step := steps[rng.IntN(len(steps))]
				before := memo.refusedBefore(step)
				if r := memo.refusals.lookup(hashStep(step)); r != nil && !before && r.at < memo.cuts {
					stale++
				}
				got, want := memo.insertStep(step), plain.insertStep(step)
				require.Equal(t, want, got, "seed %d op %d: step %v", seed, op, step)
				if before {
					hits++
				}
				if got {
					inserted = append(inserted, step...)
				}
			case r < 9 && len(inserted) > 0:
				i := rng.IntN(len(inserted))
				e := inserted[i]
				inserted[i] = inserted[len(inserted)-1]
				inserted = inserted[:len(inserted)-1]
				memo.remove(int32(e>>32), int32(uint32(e)))
				plain.remove(int32(e>>32), int32(uint32(e)))
			default:
				x, y := rng.Int32N(nodes), rng.Int32N(nodes)
				got, want := memo.insert(x, y), plain.insert(x, y)
				require.Equal(t, want, got, "seed %d op %d: insert %d→%d", seed, op, x, y)
				if got {
					inserted = append(inserted, edgeKey(x, y))
				}
			}
		}
		grown = len(memo.refusals.slots)
		for v := range memo.succ {
			for _, s := range memo.succ[v] {
				require.Equal(t, s.uses, plain.succ[v][plain.find(int32(v), s.to)].uses, "seed %d: uses of %d→%d", seed, v, s.to)
			}
			require.Len(t, memo.succ[v], len(plain.succ[v]), "seed %d: successors of %d", seed, v)
		}
	}
	require.Greater(t, hits, 1000, "steps the memo refused without inserting")
	require.Greater(t, grown, 1024, "slots of the last seed's memo")
	require.Greater(t, stale, 100, "remembered refusals whose witness a removal may have cut")
}
