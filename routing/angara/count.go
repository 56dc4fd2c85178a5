package angara

// Counter counts minimal routes from one source at a time (§4.3, Alg. 3
// step 1): a breadth-first search of the routing graph from begin(u) that
// keeps, per vertex, its hop distance and the number of minimal paths to it.
type Counter struct {
	g     *Graph
	dist  []int32
	count []uint64
	queue []int32
}

// NewCounter returns a counter on g.
func NewCounter(g *Graph) *Counter {
	v := g.T.N * g.States
	return &Counter{g: g, dist: make([]int32, v), count: make([]uint64, v)}
}

// From runs the search from switch u. Afterwards Hops and Paths answer for
// every destination.
func (c *Counter) From(u int) {
	g := c.g
	for i := range c.dist {
		c.dist[i] = -1
		c.count[i] = 0
	}
	src := int32(u * g.States)
	c.dist[src], c.count[src] = 0, 1
	c.queue = append(c.queue[:0], src)
	end := g.End()
	for i := 0; i < len(c.queue); i++ {
		x := int(c.queue[i])
		s, st := x/g.States, x%g.States
		dx, cx := c.dist[x], c.count[x]
		g.Succ(s, st, func(s2, st2 int, d Dir) {
			if st2 == end {
				return // ends are summed in Paths
			}
			y := s2*g.States + st2
			switch c.dist[y] {
			case -1:
				c.dist[y] = dx + 1
				c.count[y] = cx
				c.queue = append(c.queue, int32(y))
			case dx + 1:
				c.count[y] = satAdd(c.count[y], cx)
			}
		})
	}
}

func satAdd(a, b uint64) uint64 {
	if a+b < a {
		return ^uint64(0)
	}
	return a + b
}

// Paths returns the hop count of a minimal route from the last source to
// switch w and the number of minimal routing-graph paths (-1, 0: none).
func (c *Counter) Paths(w int) (hops int, paths uint64) {
	g := c.g
	hops = -1
	base := w * g.States
	for st := 0; st < g.End(); st++ {
		d := c.dist[base+st]
		if d < 0 || !g.endsAt(st) {
			continue
		}
		switch {
		case hops < 0 || int(d) < hops:
			hops, paths = int(d), c.count[base+st]
		case int(d) == hops:
			paths = satAdd(paths, c.count[base+st])
		}
	}
	return hops, paths
}

// endsAt reports whether state st has an edge to end.
func (g *Graph) endsAt(st int) bool {
	return !(g.Distinct && st >= 1 && st <= g.T.n)
}

// UniqueShare returns the share of ordered pairs of distinct switches of t
// with exactly one minimal route under graph g, and the number of pairs
// without any route.
func UniqueShare(g *Graph) (share float64, unrouted int) {
	c := NewCounter(g)
	unique, pairs := 0, 0
	for u := 0; u < g.T.N; u++ {
		c.From(u)
		for w := 0; w < g.T.N; w++ {
			if w == u {
				continue
			}
			pairs++
			h, p := c.Paths(w)
			switch {
			case h < 0:
				unrouted++
			case p == 1:
				unique++
			}
		}
	}
	if pairs == 0 {
		return 0, 0
	}
	return float64(unique) / float64(pairs), unrouted
}
