package routing

import (
	"math/rand/v2"
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

func inUse(c *cdg, x, y int32) bool { return c.has(x, y) }

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

// On a larger graph, where reorders span wide windows and move regions of
// many nodes, insert still refuses exactly the cycles, keeps every edge in
// order and the labels increasing along the order's list. Once from
// labels spread as newOrderedCDG does, once from labels two apart, so
// that every move finds its gap too narrow and relabels around it.
func TestCDGLargeRegions(t *testing.T) {
	for _, tight := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(5, 6))
		const n = 400
		c := newOrderedCDG(n)
		if tight {
			for v := range c.node {
				c.node[v].ord = int64(2 * v)
			}
		}
		var edges [][2]int32
		big, moved := 0, 0
		for op := 0; op < 2500; op++ {
			x, y := int32(rng.IntN(n)), int32(rng.IntN(n))
			want := x != y && !reachable(edges, y, x)
			if c.node[x].ord > c.node[y].ord && want {
				moved++
				if posOf(c, x)-posOf(c, y) > 100 {
					big++
				}
			}
			require.Equal(t, want, c.insert(x, y), "op %d: %d→%d", op, x, y)
			if want {
				edges = append(edges, [2]int32{x, y})
			}
			requireLabelled(t, c, n)
		}
		for _, e := range edges {
			require.Less(t, c.node[e[0]].ord, c.node[e[1]].ord, "%d→%d out of order", e[0], e[1])
		}
		assert.Positive(t, big, "no reorder spanned a wide window")
		t.Logf("tight=%v: %d reorders, %d across more than 100 nodes", tight, moved, big)
	}
}

// posOf is v's position in c's order, counted along the list.
func posOf(c *cdg, v int32) int {
	p := 0
	for u := c.first; u != v; u = c.next[u] {
		p++
	}
	return p
}

// requireLabelled checks that c's list holds its n nodes, linked both
// ways, with labels increasing along it within 0..labelSpan.
func requireLabelled(t *testing.T, c *cdg, n int) {
	t.Helper()
	count, last, prev := 0, int64(-1), int32(-1)
	for v := c.first; v >= 0; v = c.next[v] {
		if c.prev[v] != prev || c.node[v].ord <= last || c.node[v].ord >= labelSpan {
			t.Fatalf("node %d: back link %d (want %d), label %d after %d", v, c.prev[v], prev, c.node[v].ord, last)
		}
		last, prev = c.node[v].ord, v
		count++
	}
	require.Equal(t, n, count, "nodes on the list")
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
