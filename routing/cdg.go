package routing

import (
	"math/bits"
	"slices"
)

// cdg is a channel dependency graph (Definition 3.7): a node per channel
// (or per (channel, VL) pair), an edge x→y wherever a path takes channel y
// right after channel x. Every edge counts its uses, the paths that induce
// it, so that a dependency shared by many paths stays until the last one
// leaves.
//
// It is used in one of two ways:
//
//   - Kept acyclic (LASH, Nue): newOrderedCDG, then insert, which refuses an
//     edge that would close a cycle, and remove. A dynamic topological order
//     (Pearce and Kelly) answers the cycle question: an insertion that
//     respects the order costs O(1); otherwise only the nodes between the
//     two positions are searched and reordered.
//   - Built whole, then searched (DFSSSP's cycle breaking, Verify): use or
//     add every edge, layout, then searchCycles, whose callback may cut a
//     cycle by dropping uses of its edges (dropUse).
//
// Edges have ids, dense from 0 in order of creation; an edge keeps its id
// when its uses fall to 0 and come back.
type cdg struct {
	from, to []int32 // edge → its two nodes
	uses     []int32 // edge → paths inducing it, 0 = not in the graph
	index    edgeMap // from<<32 | to → edge
	// out and in list each node's successors and predecessors; in is kept
	// only in ordered graphs. In a laid-out graph outEdge[v][i] is the edge
	// to out[v][i].
	out, in [][]int32
	outEdge [][]int32

	// Ordered graphs: node holds every node's position in a topological
	// order and the reorder's mark (with stamp); fwd and bwd (the two
	// searches' queues, with their keys) and pos are the reorder's work
	// space.
	node             []orderedNode
	stamp            uint32
	fwd, bwd         []int32
	fwdKeys, bwdKeys []uint64
	radixTmp         []uint64
	pos              []int32

	// Search work space: per node its colour, its next out-entry and its
	// depth on the search path; the path's nodes and the edges that
	// reached them; the cycle handed to the callback.
	color          []uint8
	iter, depth    []int32
	path, pathEdge []int32
	cycle          []int32
}

// orderedNode is a node of an ordered graph: its position in the
// topological order and the reorder's mark, side by side because a search
// reads both of every node it meets.
type orderedNode struct {
	ord  int32
	mark uint32
}

// edgeKey packs the dependency a→b into one map key.
func edgeKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// newOrderedCDG returns an empty acyclic graph on the given number of
// nodes, for insert and remove.
func newOrderedCDG(nodes int) *cdg {
	c := &cdg{out: make([][]int32, nodes), in: make([][]int32, nodes), node: make([]orderedNode, nodes)}
	for i := range c.node {
		c.node[i].ord = int32(i)
	}
	return c
}

// newOrderedCDGFrom is newOrderedCDG starting from the given topological
// order of the nodes (a permutation; order[i] is the node at position i).
// Whether an insertion closes a cycle does not depend on the order, only
// how much reordering it costs: an order that most dependencies to come
// already respect saves that work.
func newOrderedCDGFrom(order []int32) *cdg {
	c := newOrderedCDG(len(order))
	for pos, v := range order {
		c.node[v].ord = int32(pos)
	}
	return c
}

// edge returns the id of the edge x→y, or -1 if it was never added.
func (c *cdg) edge(x, y int32) int32 {
	if e, ok := c.index.get(edgeKey(x, y)); ok {
		return e
	}
	return -1
}

// newEdge gives x→y an id with no uses yet.
func (c *cdg) newEdge(x, y int32) int32 {
	e := int32(len(c.from))
	c.from, c.to, c.uses = append(c.from, x), append(c.to, y), append(c.uses, 0)
	return e
}

// insert adds one use of x→y to an ordered graph unless the edge would
// close a cycle; it reports whether it did.
func (c *cdg) insert(x, y int32) bool {
	k := edgeKey(x, y)
	e, ok := c.index.get(k)
	if ok && c.uses[e] > 0 {
		c.uses[e]++
		return true
	}
	if x == y || (c.node[x].ord > c.node[y].ord && !c.reorder(x, y)) {
		return false
	}
	if !ok {
		e = c.newEdge(x, y)
		c.index.put(k, e)
	}
	c.uses[e] = 1
	c.out[x] = append(c.out[x], y)
	c.in[y] = append(c.in[y], x)
	return true
}

// insertPath adds the dependencies of a channel path to an ordered graph,
// all of them or, if one would close a cycle, none.
func (c *cdg) insertPath(path []int32) bool {
	for k := 1; k < len(path); k++ {
		if !c.insert(path[k-1], path[k]) {
			for j := k - 1; j >= 1; j-- {
				c.remove(path[j-1], path[j])
			}
			return false
		}
	}
	return true
}

// removePath drops one use of each dependency of a channel path
// insertPath added.
func (c *cdg) removePath(path []int32) {
	for k := 1; k < len(path); k++ {
		c.remove(path[k-1], path[k])
	}
}

// remove drops one use of x→y from an ordered graph; the edge leaves the
// graph with its last use.
func (c *cdg) remove(x, y int32) {
	e := c.edge(x, y)
	if e < 0 || c.uses[e] == 0 {
		return
	}
	c.uses[e]--
	if c.uses[e] == 0 {
		c.out[x] = dropNode(c.out[x], y)
		c.in[y] = dropNode(c.in[y], x)
	}
}

// dropNode removes node v from a list (order is not kept: nothing reads
// an ordered graph's lists in order).
func dropNode(s []int32, v int32) []int32 {
	for i, w := range s {
		if w == v {
			s[i] = s[len(s)-1]
			return s[:len(s)-1]
		}
	}
	return s
}

// nextStamp starts a new marking of the nodes.
func (c *cdg) nextStamp() uint32 {
	c.stamp++
	if c.stamp == 0 {
		for i := range c.node {
			c.node[i].mark = 0
		}
		c.stamp = 1
	}
	return c.stamp
}

// reorder makes room for x→y when ord[x] > ord[y]: the nodes reachable from
// y (up to ord[x]) move after those reaching x (down to ord[y]), both
// groups keeping their order and together taking the positions they held.
// It fails if x is reachable from y (the edge would close a cycle).
func (c *cdg) reorder(x, y int32) bool {
	lb, ub := c.node[y].ord, c.node[x].ord
	if !c.regions(x, y, lb, ub) {
		return false
	}
	c.bwdKeys = c.byPosition(c.bwd, c.bwdKeys, lb)
	c.fwdKeys = c.byPosition(c.fwd, c.fwdKeys, lb)
	bwd, fwd := c.bwdKeys, c.fwdKeys
	// The positions the two groups held, in ascending order.
	c.pos = c.pos[:0]
	i, j := 0, 0
	for i < len(bwd) || j < len(fwd) {
		if j == len(fwd) || i < len(bwd) && bwd[i] < fwd[j] {
			c.pos = append(c.pos, int32(bwd[i]>>32))
			i++
		} else {
			c.pos = append(c.pos, int32(fwd[j]>>32))
			j++
		}
	}
	for k, key := range bwd {
		c.node[int32(uint32(key))].ord = c.pos[k]
	}
	for k, key := range fwd {
		c.node[int32(uint32(key))].ord = c.pos[len(bwd)+k]
	}
	return true
}

// byPosition refills keys with the nodes as position<<32 | node, sorted
// (by position: positions are distinct); every position is lo or more.
// A reorder's regions hold hundreds of nodes in Nue on a fat tree, where
// a comparison sort was a sixth of the routing's time: beyond
// radixMin keys they are sorted by the digits of their position above lo
// (radixSort), the same order.
func (c *cdg) byPosition(nodes []int32, keys []uint64, lo int32) []uint64 {
	keys = keys[:0]
	top := int32(0)
	for _, u := range nodes {
		o := c.node[u].ord
		top = max(top, o-lo)
		keys = append(keys, uint64(o)<<32|uint64(u))
	}
	if len(keys) < radixMin {
		slices.Sort(keys)
		return keys
	}
	c.radixTmp = radixSort(keys, c.radixTmp, uint64(lo)<<32, bits.Len32(uint32(top)))
	return keys
}

// radixMin is the fewest keys byPosition sorts by radix.
const radixMin = 64

// radixSort sorts keys, each base plus a value below 2^width in its high
// 32 bits (the low 32 ride along), least significant digit first, 8 bits
// a pass, through tmp (returned, grown as needed).
func radixSort(keys, tmp []uint64, base uint64, width int) []uint64 {
	if cap(tmp) < len(keys) {
		tmp = make([]uint64, len(keys))
	}
	tmp = tmp[:len(keys)]
	src, dst := keys, tmp
	for shift := 32; shift < 32+width; shift += 8 {
		var count [257]int
		for _, k := range src {
			count[((k-base)>>shift)&0xff+1]++
		}
		for i := 1; i < 257; i++ {
			count[i] += count[i-1]
		}
		for _, k := range src {
			d := ((k - base) >> shift) & 0xff
			dst[count[d]] = k
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
	return tmp
}

// regions fills fwd with the nodes reachable from y and bwd with those
// reaching x, among the nodes whose position lies in lo..hi (a path from y
// to x lies there, the order being topological); it reports false, with
// the two lists partial, as soon as the searches meet: y reaches x.
//
// The two searches are breadth-first and take turns, a node each, so a
// cycle is found near the middle of the shortest path from y to x, not
// wherever one search alone happens to reach its end (in Nue most
// insertions that need a search are refused). Without a cycle both regions
// are searched whole, as the reorder needs them; whether the edge closes a
// cycle and the new order do not depend on how they are searched. The
// lists are the searches' queues.
func (c *cdg) regions(x, y, lo, hi int32) bool {
	sf, sb := c.nextStamp(), c.nextStamp()
	if sf > sb { // the second stamp wrapped and cleared the marks
		sf = c.nextStamp()
	}
	span := uint32(hi - lo) // ord[v]-lo within 0..span: one comparison
	fwd, bwd := append(c.fwd[:0], y), append(c.bwd[:0], x)
	c.node[y].mark, c.node[x].mark = sf, sb
	met := false
	// One head for both queues: a queue that ran out never grows again.
	for h := 0; !met && (h < len(fwd) || h < len(bwd)); h++ {
		if h < len(fwd) {
			fwd, met = c.expand(fwd, h, c.out, sf, sb, lo, span)
		}
		if h < len(bwd) && !met {
			bwd, met = c.expand(bwd, h, c.in, sb, sf, lo, span)
		}
	}
	c.fwd, c.bwd = fwd, bwd
	return !met
}

// expand is one step of a search of regions: the neighbours over adj of
// node q[h] that lie in the window (ord in lo..lo+span) and are not marked
// own yet join the queue q marked own; it reports true, stopping, when one
// is marked other (the other search's).
func (c *cdg) expand(q []int32, h int, adj [][]int32, own, other uint32, lo int32, span uint32) ([]int32, bool) {
	node := c.node
	for _, v := range adj[q[h]] {
		nv := &node[v]
		if uint32(nv.ord-lo) > span || nv.mark == own {
			continue
		}
		if nv.mark == other {
			return q, true
		}
		nv.mark = own
		q = append(q, v)
	}
	return q, false
}

// reset empties a graph to be built whole, keeping its storage.
func (c *cdg) reset() {
	c.index.reset()
	c.from, c.to, c.uses = c.from[:0], c.to[:0], c.uses[:0]
}

// use adds one use of x→y to a graph built whole (no cycle check) and
// returns the edge.
func (c *cdg) use(x, y int32) int32 {
	k := edgeKey(x, y)
	e, ok := c.index.get(k)
	if !ok {
		e = c.newEdge(x, y)
		c.index.put(k, e)
	}
	c.uses[e]++
	return e
}

// reserve makes room for n more edges.
func (c *cdg) reserve(n int) {
	c.from, c.to, c.uses = slices.Grow(c.from, n), slices.Grow(c.to, n), slices.Grow(c.uses, n)
}

// add adds the edge x→y, with one use, to a graph built whole, without
// looking for it first: the caller knows it is new. Edges added this way
// cannot be looked up (edge).
func (c *cdg) add(x, y int32) {
	e := c.newEdge(x, y)
	c.uses[e] = 1
}

// dropUse drops one use of edge e of a laid-out graph. The edge stays in
// the lists, so that a search in progress is not disturbed; searches skip
// edges without uses.
func (c *cdg) dropUse(e int32) { c.uses[e]-- }

// layout builds the edge lists of a graph built whole: every node's
// outgoing edges in the order they were created, all in one array.
func (c *cdg) layout() {
	n := int32(0)
	for e := range c.from {
		n = max(n, c.from[e]+1, c.to[e]+1)
	}
	start := make([]int32, n+1)
	for _, f := range c.from {
		start[f+1]++
	}
	for i := int32(1); i <= n; i++ {
		start[i] += start[i-1]
	}
	nodes, edges := make([]int32, len(c.from)), make([]int32, len(c.from))
	c.out, c.outEdge = make([][]int32, n), make([][]int32, n)
	for v := range c.out {
		c.out[v] = nodes[start[v]:start[v]:start[v+1]]
		c.outEdge[v] = edges[start[v]:start[v]:start[v+1]]
	}
	for e, f := range c.from {
		c.out[f] = append(c.out[f], c.to[e])
		c.outEdge[f] = append(c.outEdge[f], int32(e))
	}
	c.color = make([]uint8, n)
	c.iter = make([]int32, n)
	c.depth = make([]int32, n)
}

// Node colours of the depth-first search.
const (
	white uint8 = iota // not yet visited
	gray               // on the search path
	black              // done: no cycle through it left
)

// searchCycles runs a depth-first search over the edges in use of a
// laid-out graph, from every node in index order and every node's edges in
// list order, and calls found with each cycle it closes: the edges along
// the search path, then the edge that closes it. found may cut the cycle by
// dropping uses of edges; the search then backs up to before the first edge
// on its path left without uses and goes on, until no cycle is left. It
// stops when found returns false.
func (c *cdg) searchCycles(found func(cycle []int32) bool) {
	clear(c.color)
	// Backing up turns nodes white again, possibly below the current
	// root: sweep until a pass starts no search.
	for again := true; again; {
		again = false
		for r := range c.out {
			if c.color[r] == white && len(c.out[r]) > 0 {
				again = true
				if !c.searchFrom(int32(r), found) {
					return
				}
			}
		}
	}
}

// searchFrom is one depth-first search of searchCycles, from root r; it
// reports false when found asked to stop.
func (c *cdg) searchFrom(r int32, found func(cycle []int32) bool) bool {
	c.color[r], c.depth[r], c.iter[r] = gray, 0, 0
	path, pathEdge := append(c.path[:0], r), append(c.pathEdge[:0], -1)
	for len(path) > 0 {
		u := path[len(path)-1]
		if int(c.iter[u]) == len(c.out[u]) {
			c.color[u] = black
			path, pathEdge = path[:len(path)-1], pathEdge[:len(pathEdge)-1]
			continue
		}
		v, e := c.out[u][c.iter[u]], c.outEdge[u][c.iter[u]]
		c.iter[u]++
		if c.uses[e] == 0 {
			continue
		}
		switch c.color[v] {
		case white:
			c.color[v], c.depth[v], c.iter[v] = gray, int32(len(path)), 0
			path, pathEdge = append(path, v), append(pathEdge, e)
		case gray:
			// The cycle is path[depth[v]] → … → u → v.
			c.cycle = append(append(c.cycle[:0], pathEdge[c.depth[v]+1:]...), e)
			if !found(c.cycle) {
				c.path, c.pathEdge = path, pathEdge
				return false
			}
			// Back up to before the first edge that lost its last use.
			for j := 1; j < len(path); j++ {
				if c.uses[pathEdge[j]] == 0 {
					for _, n := range path[j:] {
						c.color[n] = white
					}
					path, pathEdge = path[:j], pathEdge[:j]
					break
				}
			}
		}
	}
	c.path, c.pathEdge = path, pathEdge
	return true
}

// findCycle returns the nodes of the first cycle searchCycles meets in a
// laid-out graph, in order, or nil if the graph is acyclic.
func (c *cdg) findCycle() []int32 {
	var nodes []int32
	c.searchCycles(func(cycle []int32) bool {
		for _, e := range cycle {
			nodes = append(nodes, c.from[e])
		}
		return false
	})
	return nodes
}
