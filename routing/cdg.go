package routing

import (
	"cmp"
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
//   - Kept acyclic (LASH, Nue, DFSSSP's online layering): newOrderedCDG,
//     then insert, which refuses an edge that would close a cycle, and
//     remove. A dynamic topological order (after Pearce and Kelly) answers
//     the cycle question: an insertion that respects the order costs a scan
//     of the tail's successors; otherwise only nodes between the two
//     positions are searched, and one region of them is moved (reorder).
//   - Built whole, then searched (DFSSSP's cycle breaking, Verify): use or
//     add every edge, layout, then searchCycles, whose callback may cut a
//     cycle by dropping uses of its edges (dropUse).
//
// The edges of a graph built whole have ids, dense from 0 in order of
// creation; an edge keeps its id when its uses fall to 0 and come back.
// An ordered graph keeps its edges in the successor lists alone.
type cdg struct {
	from, to []int32 // edge → its two nodes
	uses     []int32 // edge → paths inducing it, 0 = not in the graph
	index    edgeMap // from<<32 | to → edge
	// A laid-out graph lists each node's successors in out, and in
	// outEdge[v][i] the edge to out[v][i]. An ordered graph lists them in
	// succ, each with its edge's uses (its edges are not in the arrays
	// above), and its predecessors in in.
	out, in [][]int32
	outEdge [][]int32
	succ    [][]successor
	// blocked, if not nil, holds edges of an ordered graph its user
	// refuses (Nue: dependencies once found to close a cycle). An edge of
	// the graph that is in blocked carries blockedUse in its successor's
	// uses, so insertUnblocked answers for an edge already there without
	// a lookup in that set.
	blocked *edgeSet
	// refusals, if not nil, remembers the all-or-nothing insertions the
	// graph refused (refusals.go); cuts counts the edges removed so far,
	// and each node's cut is that count when it last lost an out-edge.
	refusals *refusalMemo
	cuts     uint32

	// Ordered graphs: node holds every node's label, its position in a
	// topological order, and the reorder's mark (with stamp); prev and
	// next link the nodes in that order (-1 at the ends); fwd and bwd
	// (the two searches' queues) and moving are the reorder's work space.
	node       []orderedNode
	parent     []int32  // per node met by the reorder's searches: the node it was met from
	met        [2]int32 // the last refusal's meeting edge (met[0] reached from y, met[1] reaching x)
	prev, next []int32
	first      int32
	stamp      uint32
	fwd, bwd   []int32
	moving     []orderedKey

	// Search work space: per node its colour, its next out-entry and its
	// depth on the search path; the path's nodes and the edges that
	// reached them; the cycle handed to the callback.
	color          []uint8
	iter, depth    []int32
	path, pathEdge []int32
	cycle          []int32
}

// orderedNode is a node of an ordered graph: its label (labels grow
// along the topological order, with gaps between them) and the reorder's
// mark, side by side because a search reads both of every node it meets.
type orderedNode struct {
	ord  int64
	mark uint32
	cut  uint32 // cuts when the node last lost an out-edge (refusals.go)
}

// successor is an edge of an ordered graph: the node it leads to and the
// paths inducing it (plus blockedUse if the edge is in the graph's
// blocked set), side by side because insert reads both.
type successor struct {
	to, uses int32
}

// blockedUse marks, in a successor's uses, an edge in the blocked set of
// a graph that has one (Nue's layers, where a dependency is used at most
// once per destination and escape path, far fewer than 2³⁰ times). Other
// graphs count every bit of uses.
const blockedUse = 1 << 30

// orderedKey is a node with its label, for sorting a region by label.
type orderedKey struct {
	ord  int64
	node int32
}

// labelSpan is the range labels are spread over when (re)labelled.
const labelSpan = int64(1) << 62

// edgeKey packs the dependency a→b into one map key.
func edgeKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// newOrderedCDG returns an empty acyclic graph on the given number of
// nodes, for insert and remove.
func newOrderedCDG(nodes int) *cdg {
	order := make([]int32, nodes)
	for i := range order {
		order[i] = int32(i)
	}
	return newOrderedCDGFrom(order)
}

// newOrderedCDGFrom is newOrderedCDG starting from the given topological
// order of the nodes (a permutation; order[i] is the node at position i).
// Whether an insertion closes a cycle does not depend on the order, only
// how much reordering it costs: an order that most dependencies to come
// already respect saves that work.
func newOrderedCDGFrom(order []int32) *cdg {
	n := len(order)
	c := &cdg{succ: make([][]successor, n), in: make([][]int32, n), node: make([]orderedNode, n),
		parent: make([]int32, n), prev: make([]int32, n), next: make([]int32, n), first: -1}
	last := int32(-1)
	for _, v := range order {
		c.prev[v], c.next[v] = last, -1
		if last < 0 {
			c.first = v
		} else {
			c.next[last] = v
		}
		last = v
	}
	c.relabel(c.first, -1, n)
	return c
}

// relabel spreads the labels of the count nodes from a on evenly over the
// gap between the labels of the nodes around them (the ends of the order
// stand for 0 and labelSpan); b is the node after them, -1 at the end.
func (c *cdg) relabel(a, b int32, count int) {
	lo, hi := int64(0), labelSpan
	if p := c.prevOf(a, b); p >= 0 {
		lo = c.node[p].ord
	}
	if b >= 0 {
		hi = c.node[b].ord
	}
	step := (hi - lo) / int64(count+1)
	v := a
	for i := 1; i <= count; i++ {
		c.node[v].ord = lo + int64(i)*step
		v = c.next[v]
	}
}

// prevOf is the node before a, or before b when a is -1 (the run is
// empty), or the last node when both are -1.
func (c *cdg) prevOf(a, b int32) int32 {
	if a >= 0 {
		return c.prev[a]
	}
	if b >= 0 {
		return c.prev[b]
	}
	return -1
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
//
// An ordered graph keeps each edge's uses beside it in the successor list
// (succ), not in the edge arrays: a channel has at most a switch's
// ports as successors, and scanning that short list is cheaper than a
// lookup in a table of every edge, which Nue did for nearly every one of
// its insertions (most of them add a use to an edge already there).
func (c *cdg) insert(x, y int32) bool {
	succ := c.succ[x]
	for i := range succ {
		if succ[i].to == y {
			succ[i].uses++
			return true
		}
	}
	return c.insertNew(x, y)
}

// insertNew adds the edge x→y, which the graph does not hold, with one
// use, unless it would close a cycle; it reports whether it did.
func (c *cdg) insertNew(x, y int32) bool {
	if x == y {
		c.met = [2]int32{-1, -1}
		return false
	}
	if c.node[x].ord > c.node[y].ord && !c.reorder(x, y) {
		return false
	}
	uses := int32(1)
	if c.blocked != nil && c.blocked.has(edgeKey(x, y)) {
		uses |= blockedUse
	}
	c.succ[x] = append(c.succ[x], successor{y, uses})
	c.in[y] = append(c.in[y], x)
	return true
}

// insertUnblocked is insert for a graph with a blocked set: it refuses
// an edge in that set, and an edge it refuses for closing a cycle joins
// the set. It reports whether it added the use.
func (c *cdg) insertUnblocked(x, y int32) bool {
	succ := c.succ[x]
	for i := range succ {
		if succ[i].to == y {
			if succ[i].uses&blockedUse != 0 {
				return false
			}
			succ[i].uses++
			return true
		}
	}
	key := edgeKey(x, y)
	if c.blocked.has(key) {
		return false
	}
	if !c.insertNew(x, y) {
		c.blocked.add(key)
		return false
	}
	return true
}

// has reports whether the ordered graph holds x→y.
func (c *cdg) has(x, y int32) bool { return c.find(x, y) >= 0 }

// find returns the index of x→y in x's successors, -1 if it is not there.
func (c *cdg) find(x, y int32) int {
	for i, s := range c.succ[x] {
		if s.to == y {
			return i
		}
	}
	return -1
}

// insertPath adds the dependencies of a channel path to an ordered graph,
// all of them or, if one would close a cycle, none.
func (c *cdg) insertPath(path []int32) bool {
	for k := 1; k < len(path); k++ {
		if !c.insert(path[k-1], path[k]) {
			for j := k - 1; j >= 1; j-- {
				c.undo(path[j-1], path[j])
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
func (c *cdg) remove(x, y int32) { c.dropOne(x, y, true) }

// undo drops one use of x→y that the caller inserted in an all-or-nothing
// step it is taking back: the graph returns to what it was before that
// step, so the removal is not a cut (refusals.go).
func (c *cdg) undo(x, y int32) { c.dropOne(x, y, false) }

// dropOne is remove, counting the edge's removal as a cut or not.
func (c *cdg) dropOne(x, y int32, cut bool) {
	i := c.find(x, y)
	if i < 0 {
		return
	}
	succ := c.succ[x]
	succ[i].uses--
	if left := succ[i].uses; left > 0 && (c.blocked == nil || left&^blockedUse > 0) {
		return
	}
	if cut {
		c.cut(x)
	}
	last := len(succ) - 1
	succ[i] = succ[last]
	c.succ[x] = succ[:last]
	c.in[y] = dropNode(c.in[y], x)
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

// reorder makes room for x→y when ord[x] > ord[y]: it searches the nodes
// reachable from y (forward, up to ord[x]) and those reaching x (backward,
// down to ord[y]) together until one of the two regions is complete, and
// moves that one past the other end: the forward region, keeping its
// order, to just after x, or the backward region to just before y. A node
// of the forward region has its predecessors before x or in the region,
// its successors in the region or after x (the order being topological),
// so the order stays topological; the backward region likewise. Pearce
// and Kelly move both regions, which needs both searched whole; moving
// one needs only the smaller searched, at the price of labels with gaps
// (relabelled locally when a gap runs out). It fails if x is reachable
// from y (the edge would close a cycle).
func (c *cdg) reorder(x, y int32) bool {
	lb, ub := c.node[y].ord, c.node[x].ord
	region, forward, ok := c.regions(x, y, lb, ub)
	if !ok {
		return false
	}
	keys := c.moving[:0]
	for _, v := range region {
		keys = append(keys, orderedKey{c.node[v].ord, v})
	}
	slices.SortFunc(keys, func(a, b orderedKey) int { return cmp.Compare(a.ord, b.ord) })
	c.moving = keys
	// Unlink the region, then link it in, in order, after x or before y.
	for _, k := range keys {
		v := k.node
		p, n := c.prev[v], c.next[v]
		if p >= 0 {
			c.next[p] = n
		} else {
			c.first = n
		}
		if n >= 0 {
			c.prev[n] = p
		}
	}
	var after int32 // the node the region follows, -1 at the front
	if forward {
		after = x
	} else {
		after = c.prev[y]
	}
	before := c.first
	if after >= 0 {
		before = c.next[after]
	}
	p := after
	for _, k := range keys {
		v := k.node
		c.prev[v], c.next[v] = p, before
		if p >= 0 {
			c.next[p] = v
		} else {
			c.first = v
		}
		p = v
	}
	if before >= 0 {
		c.prev[before] = p
	}
	c.label(keys[0].node, before, len(keys))
	return true
}

// label gives the count nodes from a on (b after them, -1 at the end)
// labels between those of their neighbours. Where the gap is too narrow,
// the run grows over its neighbours on both sides, doubling, until its
// labels are spread at least minGap apart on average (or it is the whole
// order), and is relabelled evenly.
func (c *cdg) label(a, b int32, count int) {
	for grow := 1; ; grow *= 2 {
		lo, hi := int64(0), labelSpan
		if p := c.prev[a]; p >= 0 {
			lo = c.node[p].ord
		}
		if b >= 0 {
			hi = c.node[b].ord
		}
		if (hi-lo)/int64(count+1) >= minGap || c.prev[a] < 0 && b < 0 {
			c.relabel(a, b, count)
			return
		}
		for i := 0; i < grow && c.prev[a] >= 0; i++ {
			a = c.prev[a]
			count++
		}
		for i := 0; i < grow && b >= 0; i++ {
			b = c.next[b]
			count++
		}
	}
}

// minGap is the least average distance label leaves between labels it
// spreads; it leaves room for about log2(minGap) insertions into one gap
// before that gap needs relabelling again.
const minGap = 1 << 16

// regions searches the nodes reachable from y and those reaching x, among
// the nodes whose label lies in lo..hi (a path from y to x lies there, the
// order being topological), until one of the two is complete: it returns
// that region and whether it is the forward one (from y), or ok = false
// as soon as the searches meet: y reaches x.
//
// The two searches are breadth-first, and each step expands the one with
// fewer nodes waiting (the forward one among equals): a cycle is found
// between the two ends, not wherever one search alone happens to reach its
// end (in Nue most insertions that need a search are refused), and the
// search stops when the smaller region is known. Whether the edge closes a
// cycle does not depend on how the regions are searched.
func (c *cdg) regions(x, y int32, lo, hi int64) (region []int32, forward, ok bool) {
	sf, sb := c.nextStamp(), c.nextStamp()
	if sf > sb { // the second stamp wrapped and cleared the marks
		sf = c.nextStamp()
	}
	span := uint64(hi - lo) // ord[v]-lo within 0..span: one comparison
	fwd, bwd := append(c.fwd[:0], y), append(c.bwd[:0], x)
	c.node[y].mark, c.node[x].mark = sf, sb
	c.parent[y], c.parent[x] = -1, -1
	met := false
	hf, hb := 0, 0
	for !met && hf < len(fwd) && hb < len(bwd) {
		if len(fwd)-hf <= len(bwd)-hb {
			fwd, met = c.expandForward(fwd, hf, sf, sb, lo, span)
			hf++
		} else {
			bwd, met = c.expandBackward(bwd, hb, sb, sf, lo, span)
			hb++
		}
	}
	c.fwd, c.bwd = fwd, bwd
	if met {
		return nil, false, false
	}
	if hf == len(fwd) {
		return fwd, true, true
	}
	return bwd, false, true
}

// expandBackward is one step of the backward search of regions: the
// predecessors of node q[h] that lie in the window (ord in lo..lo+span)
// and are not marked own yet join the queue q marked own; it reports true,
// stopping, when one is marked other (the forward search's).
func (c *cdg) expandBackward(q []int32, h int, own, other uint32, lo int64, span uint64) ([]int32, bool) {
	node := c.node
	for _, v := range c.in[q[h]] {
		nv := &node[v]
		if uint64(nv.ord-lo) > span || nv.mark == own {
			continue
		}
		if nv.mark == other {
			c.met = [2]int32{v, q[h]}
			return q, true
		}
		nv.mark = own
		c.parent[v] = q[h]
		q = append(q, v)
	}
	return q, false
}

// expandForward is expandBackward over the successors of q[h].
func (c *cdg) expandForward(q []int32, h int, own, other uint32, lo int64, span uint64) ([]int32, bool) {
	node := c.node
	for _, s := range c.succ[q[h]] {
		nv := &node[s.to]
		if uint64(nv.ord-lo) > span || nv.mark == own {
			continue
		}
		if nv.mark == other {
			c.met = [2]int32{q[h], s.to}
			return q, true
		}
		nv.mark = own
		c.parent[s.to] = q[h]
		q = append(q, s.to)
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
