package routing

import (
	"fmt"

	"flitsim/fabric"
)

// maxLayers bounds the virtual layers cycle breaking may open while it
// counts how many an engine needs (more than the 16 SLs cannot be used,
// but the count tells a user how far off the topology is).
const maxLayers = 64

// pathSet holds the HCA paths of destination-based tables at switch
// granularity: one path per (source switch with HCAs, destination HCA LID),
// as the list of inter-switch channels it crosses. weight is the number of
// HCA pairs the path stands for.
type pathSet struct {
	off    []int32 // path p's channels are ch[off[p]:off[p+1]]
	ch     []int32
	weight []int64
	src    []int32
	lid    []uint16
}

func (ps *pathSet) len() int { return len(ps.src) }

func (ps *pathSet) channels(p int) []int32 { return ps.ch[ps.off[p]:ps.off[p+1]] }

// collectPaths walks the tables from every switch with HCAs to every HCA
// destination. Paths that cross fewer than two inter-switch channels induce
// no dependency and are left out; broken paths are left to verification.
func collectPaths(g *graph, t *Tables) *pathSet {
	ps := &pathSet{off: []int32{0}}
	for i, lid := range g.dests {
		dn := int(g.destNode[i])
		dst := int(g.hcaSwitch[dn-g.S])
		for s := 0; s < g.S; s++ {
			if w := int64(g.numHCAs(s)); s != dst && w > 0 {
				ps.add(g, t, s, dst, lid, w)
			}
		}
	}
	return ps
}

// add appends the path from switch s to lid (on switch dst) standing for w
// HCA pairs, and reports whether it did: a broken path, or one crossing
// fewer than two inter-switch channels, is left out.
func (ps *pathSet) add(g *graph, t *Tables, s, dst int, lid uint16, w int64) bool {
	start := len(ps.ch)
	u := s
	for steps := 0; u != dst; steps++ {
		p := t.Port(u, lid)
		ch := int32(-1)
		if p != NoPath && p != 0 {
			ch = g.channelAt(u, int(p))
		}
		if ch < 0 || steps > g.S || !g.isSwitchChannel(ch) {
			ps.ch = ps.ch[:start]
			return false
		}
		ps.ch = append(ps.ch, ch)
		to, _ := g.chTo(ch)
		u = int(to)
	}
	if len(ps.ch)-start < 2 {
		ps.ch = ps.ch[:start]
		return false
	}
	ps.off = append(ps.off, int32(len(ps.ch)))
	ps.weight = append(ps.weight, w)
	ps.src = append(ps.src, int32(s))
	ps.lid = append(ps.lid, lid)
	return true
}

// apply writes each path's layer as its service level.
func (ps *pathSet) apply(t *Tables, layer []uint8) {
	for p := range ps.src {
		t.SetSL(int(ps.src[p]), ps.lid[p], layer[p])
	}
}

// breakCycles is the offline cycle breaking of Alg. 3.6 (seeds/000 Alg. 2):
// all paths start in layer 0; while the layer's CDG has a cycle, the cycle's
// weakest edge (fewest HCA pairs) is cut by moving every path that induces
// it to the next layer; the search resumes where it stopped. It returns each
// path's layer and the number of layers needed.
func breakCycles(ps *pathSet, limit int) ([]uint8, int, error) {
	layer := make([]uint8, ps.len())
	cur := make([]int32, ps.len())
	for i := range cur {
		cur[i] = int32(i)
	}
	var c cdg
	for L := 0; ; L++ {
		if len(cur) == 0 {
			return layer, max(L, 1), nil
		}
		if L >= limit {
			return nil, 0, fmt.Errorf("needs more than %d virtual layers", limit)
		}
		cur = c.breakLayer(ps, cur, layer, uint8(L))
	}
}

// cdg is the channel dependency graph of one layer, with the paths that
// induce each edge.
type cdg struct {
	index    map[uint64]int32
	from, to []int32
	weight   []int64
	alive    []int32 // paths of this layer still inducing the edge
	paths    [][]int32
	adjStart []int32
	adj      []int32
	color    []uint8
	iter     []int32
	pos      []int32
	// DFS stack of channels and the edges that reached them.
	stack, stackEdge []int32
}

func edgeKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// breakLayer makes layer L acyclic and returns the paths moved to L+1.
func (c *cdg) breakLayer(ps *pathSet, cur []int32, layer []uint8, L uint8) []int32 {
	c.build(ps, cur)
	var moved []int32
	nodes := len(c.adjStart) - 1
	// Unwinding after a cut turns nodes white again, possibly below the
	// current root: sweep until a pass starts no search.
	for again := true; again; {
		again = false
		for r := 0; r < nodes; r++ {
			if c.color[r] == white && c.adjStart[r] != c.adjStart[r+1] {
				again = true
				moved = c.search(ps, int32(r), layer, L, moved)
			}
		}
	}
	return moved
}

const (
	white uint8 = iota
	gray
	black
)

// search runs one depth-first search from root r, cutting every cycle it
// meets; the paths it moves to layer L+1 are appended to moved.
func (c *cdg) search(ps *pathSet, r int32, layer []uint8, L uint8, moved []int32) []int32 {
	c.color[r], c.pos[r], c.iter[r] = gray, 0, c.adjStart[r]
	stack, stackEdge := append(c.stack[:0], r), append(c.stackEdge[:0], -1)
	for len(stack) > 0 {
		u := stack[len(stack)-1]
		if c.iter[u] == c.adjStart[u+1] {
			c.color[u] = black
			stack, stackEdge = stack[:len(stack)-1], stackEdge[:len(stackEdge)-1]
			continue
		}
		e := c.adj[c.iter[u]]
		c.iter[u]++
		if c.alive[e] == 0 {
			continue
		}
		v := c.to[e]
		switch c.color[v] {
		case white:
			c.color[v], c.pos[v], c.iter[v] = gray, int32(len(stack)), c.adjStart[v]
			stack, stackEdge = append(stack, v), append(stackEdge, e)
		case gray:
			// The cycle is stack[pos[v]] → … → u → v; cut its weakest edge.
			weakest := e
			for j := int(c.pos[v]) + 1; j < len(stack); j++ {
				if f := stackEdge[j]; c.weight[f] < c.weight[weakest] {
					weakest = f
				}
			}
			moved = c.move(ps, weakest, layer, L, moved)
			// Resume: unwind the stack to below its first dead edge.
			for j := 1; j < len(stack); j++ {
				if c.alive[stackEdge[j]] == 0 {
					for _, n := range stack[j:] {
						c.color[n] = white
					}
					stack, stackEdge = stack[:j], stackEdge[:j]
					break
				}
			}
		}
	}
	c.stack, c.stackEdge = stack, stackEdge
	return moved
}

// move takes every path of layer L that induces edge e to layer L+1.
func (c *cdg) move(ps *pathSet, e int32, layer []uint8, L uint8, moved []int32) []int32 {
	for _, p := range c.paths[e] {
		if layer[p] != L {
			continue
		}
		layer[p] = L + 1
		moved = append(moved, p)
		ch := ps.channels(int(p))
		for k := 1; k < len(ch); k++ {
			f := c.index[edgeKey(ch[k-1], ch[k])]
			c.alive[f]--
			c.weight[f] -= ps.weight[p]
		}
	}
	return moved
}

// build makes the CDG of the given paths (in path order, so the result is
// deterministic).
func (c *cdg) build(ps *pathSet, cur []int32) {
	if c.index == nil {
		c.index = map[uint64]int32{}
	}
	clear(c.index)
	c.from, c.to, c.weight, c.alive, c.paths = c.from[:0], c.to[:0], c.weight[:0], c.alive[:0], c.paths[:0]
	nodes := int32(0)
	for _, p := range cur {
		ch := ps.channels(int(p))
		for k := 1; k < len(ch); k++ {
			key := edgeKey(ch[k-1], ch[k])
			e, ok := c.index[key]
			if !ok {
				e = int32(len(c.from))
				c.index[key] = e
				c.from, c.to = append(c.from, ch[k-1]), append(c.to, ch[k])
				c.weight, c.alive = append(c.weight, 0), append(c.alive, 0)
				c.paths = append(c.paths, nil)
				nodes = max(nodes, ch[k-1]+1, ch[k]+1)
			}
			c.weight[e] += ps.weight[p]
			c.alive[e]++
			c.paths[e] = append(c.paths[e], p)
		}
	}
	n := int(nodes)
	c.adjStart = make([]int32, n+1)
	for _, f := range c.from {
		c.adjStart[f+1]++
	}
	for i := 1; i <= n; i++ {
		c.adjStart[i] += c.adjStart[i-1]
	}
	c.adj = make([]int32, len(c.from))
	fill := append([]int32(nil), c.adjStart[:n]...)
	for e, f := range c.from {
		c.adj[fill[f]] = int32(e)
		fill[f]++
	}
	c.color = make([]uint8, n)
	c.iter = make([]int32, n)
	c.pos = make([]int32, n)
}

// balanceLayers spreads the paths of the n needed layers over all k
// available ones: the unused layers are dealt round-robin to the used ones,
// and each used layer's paths are dealt round-robin over itself and its
// extras. A subset of an acyclic layer is acyclic, so deadlock-freedom
// holds. It returns the number of layers in use.
func balanceLayers(ps *pathSet, layer []uint8, n, k int) int {
	if n >= k || ps.len() == 0 {
		return n
	}
	groups := make([][]uint8, n)
	for i := range groups {
		groups[i] = []uint8{uint8(i)}
	}
	for x := n; x < k; x++ {
		groups[(x-n)%n] = append(groups[(x-n)%n], uint8(x))
	}
	next := make([]int, n)
	used := make([]bool, k)
	for p := range layer {
		g := groups[layer[p]]
		layer[p] = g[next[g[0]]%len(g)]
		next[g[0]]++
		used[layer[p]] = true
	}
	c := 0
	for _, u := range used {
		if u {
			c++
		}
	}
	return max(c, 1)
}

// AssignLayers gives tables computed elsewhere (an OpenSM dump, say) a
// deadlock-free virtual layering of their paths with DFSSSP's cycle
// breaking, balanced over the vls available, and records the VLs needed
// and used. Tables whose CDG is acyclic stay on one VL.
func AssignLayers(net *fabric.Network, t *Tables, vls int) error {
	if err := t.check(net); err != nil {
		return err
	}
	g := newGraph(net)
	ps := collectPaths(g, t)
	layer, n, err := breakCycles(ps, maxLayers)
	if err != nil {
		return &Failure{Engine: t.Engine, Reason: err.Error()}
	}
	t.VLsNeeded = n
	if n > vls {
		return needsVLs(t.Engine, n, vls)
	}
	t.VLsUsed = balanceLayers(ps, layer, n, vls)
	t.sl = nil
	t.sl2vl = nil
	ps.apply(t, layer)
	return nil
}

// AutoRoots returns the root switches Up*/Down* (reverse=false) or
// Down*/Up* (reverse=true) chooses when none are given.
func AutoRoots(net *fabric.Network, reverse bool) []int {
	return newGraph(net).autoRoots(reverse)
}
