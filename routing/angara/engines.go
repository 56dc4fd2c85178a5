package angara

import (
	"cmp"
	"slices"
	"sort"
)

// search walks the routing graph level by level from one begin vertex,
// keeping per vertex its level, its parent and (for SSSP) its cost.
type search struct {
	g      *Graph
	level  []int32
	parent []int32
	cost   []int64
	queue  []int32
	next   []int32
	keyed  []keyedVertex // bfs: a level with its sort keys
}

// keyedVertex is a vertex and the weight of its outgoing channels.
type keyedVertex struct {
	key int64
	v   int32
}

func newSearch(g *Graph) *search {
	v := g.T.N * g.States
	return &search{g: g, level: make([]int32, v), parent: make([]int32, v), cost: make([]int64, v)}
}

func (x *search) reset(src int) int32 {
	for i := range x.level {
		x.level[i] = -1
		x.parent[i] = -1
	}
	v := int32(src * x.g.States)
	x.level[v], x.cost[v] = 0, 0
	return v
}

// bfs is Alg. 2's search: level by level, each level's vertices taken in
// ascending order of the weights of their outgoing edges (then by
// vertex), the first vertex to reach another becoming its parent.
func (x *search) bfs(src int, weight []int64) {
	g := x.g
	x.queue = append(x.queue[:0], x.reset(src))
	key := func(v int32) int64 {
		if weight == nil {
			return 0
		}
		var k int64
		g.Succ(int(v)/g.States, int(v)%g.States, func(s2, st2 int, d Dir) {
			if d != noStep {
				k += weight[(int(v)/g.States)*2*g.T.n+int(d)]
			}
		})
		return k
	}
	for len(x.queue) > 0 {
		if weight != nil {
			x.keyed = x.keyed[:0]
			for _, v := range x.queue {
				x.keyed = append(x.keyed, keyedVertex{key(v), v})
			}
			slices.SortFunc(x.keyed, func(a, b keyedVertex) int {
				return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.v, b.v))
			})
			for i, k := range x.keyed {
				x.queue[i] = k.v
			}
		}
		x.next = x.next[:0]
		for _, u := range x.queue {
			lu := x.level[u]
			g.Succ(int(u)/g.States, int(u)%g.States, func(s2, st2 int, d Dir) {
				v := int32(s2*g.States + st2)
				if x.level[v] < 0 {
					x.level[v], x.parent[v] = lu+1, u
					x.next = append(x.next, v)
				}
			})
		}
		x.queue, x.next = x.next, x.queue
	}
}

// sssp is Alg. 4 with the relaxation its text describes: level by level,
// a vertex's cost the least over its parents on the previous level of
// parent cost + |N|² + the channel's weight (hops dominate, so the level
// order settles each cost), ties to the first parent found.
func (x *search) sssp(src int, weight []int64, base int64) {
	g := x.g
	x.queue = append(x.queue[:0], x.reset(src))
	for len(x.queue) > 0 {
		x.next = x.next[:0]
		for _, u := range x.queue {
			lu, cu := x.level[u], x.cost[u]
			s := int(u) / g.States
			g.Succ(s, int(u)%g.States, func(s2, st2 int, d Dir) {
				v := int32(s2*g.States + st2)
				c := cu
				if d != noStep {
					c += base + weight[s*2*g.T.n+int(d)]
				}
				switch x.level[v] {
				case -1:
					x.level[v], x.parent[v], x.cost[v] = lu+1, u, c
					x.next = append(x.next, v)
				case lu + 1:
					if c < x.cost[v] {
						x.parent[v], x.cost[v] = u, c
					}
				}
			})
		}
		x.queue, x.next = x.next, x.queue
	}
}

// path returns the hops from the search's source to switch w (through
// end(w)) and whether the first is a first step and the last a last step;
// ok is false when end(w) was not reached.
func (x *search) path(w int, hops []Dir) (_ []Dir, fs, ls, ok bool) {
	g := x.g
	v := int32(w*g.States + g.End())
	if x.level[v] < 0 {
		return hops[:0], false, false, false
	}
	hops = hops[:0]
	st := -1
	for p := x.parent[v]; p >= 0; v, p = p, x.parent[p] {
		if int(v)%g.States == g.End() {
			st = int(p) % g.States // the state the route ends in
			continue
		}
		s, s2 := int(p)/g.States, int(v)/g.States
		hops = append(hops, x.hop(s, s2, int(v)%g.States))
		if x.parent[p] < 0 { // p is begin: v is the first hop's vertex
			fs = int(v)%g.States >= 1 && int(v)%g.States <= g.T.n
		}
	}
	slices.Reverse(hops)
	ls = st >= g.T.n+g.p3 && st < g.End()
	return hops, fs, ls, true
}

// hop returns the direction of the step from switch s to its neighbour s2
// into state st2.
func (x *search) hop(s, s2, st2 int) Dir {
	t := x.g.T
	for d := Dir(0); int(d) < 2*t.n; d++ {
		if t.Next(s, d) == s2 { // a size-2 dimension is a line: one direction per neighbour
			return d
		}
	}
	panic("angara: hop between non-neighbours")
}

// Options select an engine's graph and node set.
type Options struct {
	// Turns selects the out-of-order turns (default UsableTurns).
	Turns TurnSet
	// Nodes restricts routing to pairs of these switches (nil: all;
	// indices outside the torus are ignored).
	Nodes []int
}

func (o Options) nodes(t *Torus) []int {
	if o.Nodes != nil {
		n := slices.DeleteFunc(slices.Clone(o.Nodes), func(v int) bool { return v < 0 || v >= t.N })
		slices.Sort(n)
		return slices.Compact(n)
	}
	n := make([]int, t.N)
	for i := range n {
		n[i] = i
	}
	return n
}

// DOR routes every pair by direction order with direction bits alone (no
// first or last step): a breadth-first search of that routing graph, so a
// failed channel is avoided when an in-order route remains; a tie (half
// way round an even ring) goes the positive way.
func DOR(t *Torus, o Options) *Routes {
	g := NewGraph(t, t.Augment(NoTurns), true)
	g.NoSteps = true
	return routeEach(g, o.nodes(t), func(x *search, s int) { x.bfs(s, nil) })
}

// routeEach runs search from every source and records its paths.
func routeEach(g *Graph, nodes []int, run func(x *search, s int)) *Routes {
	r := newRoutes(g.T, nodes)
	x := newSearch(g)
	var hops []Dir
	for _, s := range nodes {
		run(x, s)
		hops = r.record(x, s, nil, hops)
	}
	return r
}

// record sets the routes from s to every other node as search x found
// them; with weight, each route's channels gain 1. It returns the hop
// buffer for reuse.
func (r *Routes) record(x *search, s int, weight []int64, hops []Dir) []Dir {
	for _, w := range r.Nodes {
		if w == s {
			continue
		}
		var fs, ls, ok bool
		if hops, fs, ls, ok = x.path(w, hops); ok {
			r.set(s, w, hops, fs, ls)
			if weight != nil {
				addWeight(r.T, weight, s, hops)
			}
		}
	}
	return hops
}

// BFS is Alg. 1 and 2: sources one at a time, the next the unprocessed node
// farthest from the last; from each a breadth-first search of the routing
// graph whose levels are visited in ascending order of their vertices'
// outgoing edge weights; every channel of a chosen route gains weight 1.
func BFS(t *Torus, o Options) *Routes {
	g := NewGraph(t, t.Augment(o.Turns), false)
	nodes := o.nodes(t)
	r := newRoutes(t, nodes)
	if len(nodes) == 0 {
		return r
	}
	x := newSearch(g)
	weight := make([]int64, len(t.nb))
	done := make([]bool, t.N)
	var hops []Dir
	src := nodes[0]
	for range nodes {
		x.bfs(src, weight)
		hops = r.record(x, src, weight, hops)
		done[src] = true
		// GET_MAX_REMOTE: the unprocessed node with the longest route
		// from src (the first of equals; unreachable ones last).
		next, far := -1, -2
		for _, w := range nodes {
			if done[w] {
				continue
			}
			l := -1
			if h, ok := r.Hops(src, w); ok {
				l = len(h)
			}
			if l > far {
				next, far = w, l
			}
		}
		if next < 0 {
			break
		}
		src = next
	}
	return r
}

func addWeight(t *Torus, weight []int64, s int, hops []Dir) {
	for _, d := range hops {
		weight[s*2*t.n+int(d)]++
		s = t.Next(s, d)
	}
}

// SSSP is Alg. 3 and 4: first every pair with a single minimal route takes
// it; then the other pairs, sorted by the turns of a minimal route, its
// length and the source, are routed per (turns, length, source) group by
// shortest paths on channel weights |N|² + routes carried, the paths of a
// group that share no channel applied together before the next search.
func SSSP(t *Torus, o Options) *Routes {
	x := t.Augment(o.Turns)
	g := NewGraph(t, x, false)
	nodes := o.nodes(t)
	r := newRoutes(t, nodes)
	weight := make([]int64, len(t.nb))
	search := newSearch(g)
	c := NewCounter(NewGraph(t, x, true)) // counts each minimal route once
	type pair struct{ turns, hops, src, dst int }
	var rest []pair
	var hops []Dir
	for _, s := range nodes {
		c.From(s)
		search.bfs(s, nil)
		for _, w := range nodes {
			if w == s {
				continue
			}
			var fs, ls, ok bool
			if hops, fs, ls, ok = search.path(w, hops); !ok {
				continue
			}
			if h, p := c.Paths(w); h == len(hops) && p == 1 {
				r.set(s, w, hops, fs, ls)
				addWeight(t, weight, s, hops)
				continue
			}
			rest = append(rest, pair{turns: t.turns(s, w), hops: len(hops), src: s, dst: w})
		}
	}
	sort.SliceStable(rest, func(i, j int) bool {
		a, b := rest[i], rest[j]
		if a.turns != b.turns {
			return a.turns < b.turns
		}
		if a.hops != b.hops {
			return a.hops < b.hops
		}
		return a.src < b.src
	})
	base := int64(len(nodes)) * int64(len(nodes))
	used := make([]bool, len(t.nb))
	for i := 0; i < len(rest); {
		j := i
		for j < len(rest) && rest[j].turns == rest[i].turns && rest[j].hops == rest[i].hops && rest[j].src == rest[i].src {
			j++
		}
		s := rest[i].src
		left := make([]int, 0, j-i)
		for _, p := range rest[i:j] {
			left = append(left, p.dst)
		}
		for len(left) > 0 {
			search.sssp(s, weight, base)
			clear(used)
			var applied [][]Dir
			kept := left[:0]
			for _, w := range left {
				var fs, ls bool
				hops, fs, ls, _ = search.path(w, hops)
				if crosses(t, used, s, hops) {
					kept = append(kept, w)
					continue
				}
				mark(t, used, s, hops)
				r.set(s, w, hops, fs, ls)
				applied = append(applied, slices.Clone(hops))
			}
			for _, h := range applied {
				addWeight(t, weight, s, h)
			}
			left = kept
		}
		i = j
	}
	return r
}

func crosses(t *Torus, used []bool, s int, hops []Dir) bool {
	for _, d := range hops {
		if used[s*2*t.n+int(d)] {
			return true
		}
		s = t.Next(s, d)
	}
	return false
}

func mark(t *Torus, used []bool, s int, hops []Dir) {
	for _, d := range hops {
		used[s*2*t.n+int(d)] = true
		s = t.Next(s, d)
	}
}

// turns returns the turns of a direction-order route from a to b: the
// dimensions they differ in, less one.
func (t *Torus) turns(a, b int) int {
	k := 0
	for i := range t.Dims {
		if t.Coord(a, i) != t.Coord(b, i) {
			k++
		}
	}
	return max(k-1, 0)
}
