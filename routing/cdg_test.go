package routing

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An ordered graph refuses exactly the edges that close a cycle, and a
// dependency with several uses stays until its last use is removed.
func TestCDGInsertRemove(t *testing.T) {
	c := newOrderedCDG(4)
	require.True(t, c.insert(0, 1))
	require.True(t, c.insert(1, 2))
	assert.False(t, c.insert(2, 0), "2→0 closes 0→1→2→0")
	assert.False(t, c.insert(3, 3), "a self-loop is a cycle")
	require.True(t, c.insert(0, 1), "a second use")
	c.remove(0, 1)
	assert.False(t, c.insert(2, 0), "0→1 still has a use")
	c.remove(0, 1)
	assert.True(t, c.insert(2, 0), "0→1 is gone")
	assert.False(t, c.insert(0, 1))
}

// insertPath adds all of a path's dependencies or none.
func TestCDGInsertPath(t *testing.T) {
	c := newOrderedCDG(5)
	require.True(t, c.insertPath([]int32{0, 1, 2}))
	assert.False(t, c.insertPath([]int32{3, 4, 2, 0}), "2→0 closes a cycle")
	assert.False(t, inUse(c, 3, 4), "3→4 was taken back")
	assert.False(t, inUse(c, 4, 2), "4→2 was taken back")
	assert.True(t, c.insertPath([]int32{3, 4, 0}))
	assert.True(t, inUse(c, 3, 4))
}

func inUse(c *cdg, x, y int32) bool {
	e := c.edge(x, y)
	return e >= 0 && c.uses[e] > 0
}

// The dynamic topological order answers as a search over the whole graph
// would, over random insertions and removals, from the identity order
// (even rounds) or a random one (odd rounds: newOrderedCDGFrom, as Nue
// starts its layers), and keeps every edge in order.
func TestCDGAgainstSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 12
	for round := 0; round < 40; round++ {
		c := newOrderedCDG(n)
		if round%2 == 1 {
			order := make([]int32, n)
			for i, v := range rng.Perm(n) {
				order[i] = int32(v)
			}
			c = newOrderedCDGFrom(order)
		}
		var edges [][2]int32
		for op := 0; op < 300; op++ {
			if len(edges) > 0 && rng.IntN(3) == 0 {
				i := rng.IntN(len(edges))
				c.remove(edges[i][0], edges[i][1])
				edges = append(edges[:i], edges[i+1:]...)
				continue
			}
			x, y := int32(rng.IntN(n)), int32(rng.IntN(n))
			want := x != y && !reachable(edges, y, x)
			require.Equal(t, want, c.insert(x, y), "round %d op %d: %d→%d with %v", round, op, x, y, edges)
			if want {
				edges = append(edges, [2]int32{x, y})
			}
			for _, e := range edges {
				require.Less(t, c.node[e[0]].ord, c.node[e[1]].ord, "round %d op %d: %d→%d out of order", round, op, e[0], e[1])
			}
		}
	}
}

// radixSort orders keys as a comparison sort does, whatever the width of
// their positions above the base and however many digits that takes.
func TestRadixSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var tmp []uint64
	for _, width := range []int{1, 7, 8, 9, 16, 17, 24, 31} {
		for _, n := range []int{1, 2, 63, 64, 65, 500, 3000} {
			base := uint64(rng.IntN(1000)) << 32
			seen := map[uint64]bool{}
			keys := make([]uint64, 0, n)
			for len(keys) < n && len(seen) < 1<<width {
				k := base + uint64(rng.Uint32()&(1<<width-1))<<32 | uint64(rng.Uint32())
				if !seen[k>>32] { // distinct positions, as in a reorder
					seen[k>>32] = true
					keys = append(keys, k)
				}
			}
			want := slices.Clone(keys)
			slices.Sort(want)
			tmp = radixSort(keys, tmp, base, width)
			require.Equal(t, want, keys, "width %d, %d keys", width, len(keys))
		}
	}
}

// On a larger graph, where a reorder's regions exceed radixMin nodes and
// are sorted by radix, insert still refuses exactly the cycles and keeps
// every edge in order.
func TestCDGLargeRegions(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 400
	c := newOrderedCDG(n)
	var edges [][2]int32
	big := 0
	for op := 0; op < 2500; op++ {
		x, y := int32(rng.IntN(n)), int32(rng.IntN(n))
		want := x != y && !reachable(edges, y, x)
		if c.node[x].ord > c.node[y].ord && want {
			if d := c.node[x].ord - c.node[y].ord; d > 2*radixMin {
				big++
			}
		}
		require.Equal(t, want, c.insert(x, y), "op %d: %d→%d", op, x, y)
		if want {
			edges = append(edges, [2]int32{x, y})
		}
	}
	for _, e := range edges {
		require.Less(t, c.node[e[0]].ord, c.node[e[1]].ord, "%d→%d out of order", e[0], e[1])
	}
	assert.Positive(t, big, "no reorder spanned a wide window")
	assert.GreaterOrEqual(t, cap(c.radixTmp), radixMin, "no region was sorted by radix")
}

// reachable reports whether to can be reached from from over edges.
func reachable(edges [][2]int32, from, to int32) bool {
	seen := map[int32]bool{from: true}
	stack := []int32{from}
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if u == to {
			return true
		}
		for _, e := range edges {
			if e[0] == u && !seen[e[1]] {
				seen[e[1]] = true
				stack = append(stack, e[1])
			}
		}
	}
	return false
}

// searchCycles meets every cycle, in search order, and resumes after a
// cut; findCycle reports the nodes of the first.
func TestCDGSearchCycles(t *testing.T) {
	var c cdg
	c.reset()
	for _, e := range [][2]int32{{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 2}, {3, 4}} {
		c.use(e[0], e[1])
	}
	c.layout()
	assert.Equal(t, []int32{0, 1, 2}, c.findCycle())
	var cycles [][2]int32 // each cycle's first and closing edge, as nodes
	c.searchCycles(func(cycle []int32) bool {
		first, last := cycle[0], cycle[len(cycle)-1]
		cycles = append(cycles, [2]int32{c.from[first], c.from[last]})
		c.dropUse(last) // cut the closing edge
		return true
	})
	assert.Equal(t, [][2]int32{{0, 2}, {2, 3}}, cycles)
	assert.Nil(t, c.findCycle(), "both cycles are cut")
}
