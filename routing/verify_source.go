package routing

import (
	"fmt"
	"slices"

	"flitsim/routing/scc"
)

// verifySource checks source-routed tables: it follows every HCA pair's
// route (per source switch and destination LID: the route is the switch
// pair's, the service level the source's), counts the pairs it does not
// deliver and collects the dependencies of those it does.
func (vf *verifier) verifySource() {
	g := vf.g
	for i, lid := range g.dests {
		dst, dn := int(g.destSwitch[i]), g.destNode[i]
		for s := 0; s < g.S; s++ {
			k := g.sources(s, dst)
			if k <= 0 {
				continue
			}
			ok, loops := vf.walkSource(s, dst, lid, dn)
			if ok {
				continue
			}
			v := &vf.v
			v.Complete = false
			v.Unreachable += k
			what := "has no route"
			if loops {
				v.LoopFree = false
				v.Looping += k
				what = "loops"
			}
			if v.Problem == "" {
				v.Problem = fmt.Sprintf("traffic from %s to LID %d (%s) %s", g.net.Nodes[s].Name, lid, g.net.Nodes[dn].Name, what)
			}
		}
	}
}

// walkSource follows the route from switch s to lid (HCA node dn on switch
// dst) and reports whether it delivers, or else whether it circles; the
// dependencies of a delivered route join vf.deps.
func (vf *verifier) walkSource(s, dst int, lid uint16, dn int32) (ok, loops bool) {
	g, t := vf.g, vf.t
	sl := t.SL(s, lid)
	u, in, prev := s, 0, int32(-1)
	start := len(vf.deps)
	limit := g.S
	if r, routed := t.Source.Route(s, dst); routed {
		limit += len(r)
	}
	for hop := 0; ; hop++ {
		if hop > limit {
			vf.deps = vf.deps[:start]
			return false, true
		}
		p := t.Forward(s, dst, hop, u, lid)
		ch := int32(-1)
		if p != NoPath && p != 0 {
			ch = g.chans.At(u, int(p))
		}
		if ch < 0 {
			vf.deps = vf.deps[:start]
			return false, false
		}
		to := g.chans.To(ch)
		if int(to.Node) >= g.S {
			if to.Node != dn {
				vf.deps = vf.deps[:start]
				return false, false
			}
			if hop > 0 {
				vf.vlUsed[t.InjectVL(sl)] = true // as the forwarding-table walk counts
			}
			return true, false
		}
		vl := t.VL(u, in, int(p), sl)
		vf.vlUsed[vl] = true
		node := ch*MaxVLs + int32(vl)
		if prev >= 0 {
			vf.deps = append(vf.deps, edgeKey(prev, node))
		}
		prev = node
		u, in = int(to.Node), int(to.Port)
	}
}

// ringCycles looks at the cycles of the dependency graph deps (sorted,
// without duplicates; nodes channel·MaxVLs+VL) on a torus: it reports
// whether every strongly connected component lies within one ring (its
// channels of one ring, fabric.Network.Ring, on one VL) and the
// VLs those rings are on; otherwise it returns a cycle that leaves a ring.
func (g *graph) ringCycles(deps []uint64) (only bool, vls int, cycle []int32) {
	// Dense numbering of the nodes on edges.
	var nodes []int32
	for _, e := range deps {
		nodes = append(nodes, int32(e>>32), int32(uint32(e)))
	}
	slices.Sort(nodes)
	nodes = slices.Compact(nodes)
	idx := func(x int32) int32 { i, _ := slices.BinarySearch(nodes, x); return int32(i) }
	adj := make([][]int32, len(nodes))
	for _, e := range deps {
		a := idx(int32(e >> 32))
		adj[a] = append(adj[a], idx(int32(uint32(e))))
	}
	ring := func(i int32) int {
		ch := nodes[i] / MaxVLs
		from := g.chans.From(ch)
		d := g.net.Ring(int(from.Node), int(from.Port))
		if d < 0 {
			return -1
		}
		return d*MaxVLs + int(nodes[i]%MaxVLs)
	}
	comp := make([]int32, len(nodes))
	for c, vs := range scc.Components(adj) {
		for _, v := range vs {
			comp[v] = int32(c)
		}
	}
	for a := range adj {
		for _, b := range adj[a] {
			if comp[a] != comp[b] {
				continue
			}
			// a → b lies on a cycle: within one ring, or the cycle to report.
			if r := ring(int32(a)); r >= 0 && r == ring(b) {
				vls |= 1 << (nodes[a] % MaxVLs)
				continue
			}
			path := pathWithin(adj, comp, b, int32(a))
			cycle = []int32{nodes[a]}
			for _, v := range path[:len(path)-1] {
				cycle = append(cycle, nodes[v])
			}
			return false, 0, cycle
		}
	}
	return true, vls, nil
}

// pathWithin returns a shortest path from a to b (both included) through
// the vertices of a's component.
func pathWithin(adj [][]int32, comp []int32, a, b int32) []int32 {
	prev := map[int32]int32{a: -1}
	queue := []int32{a}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		if u == b {
			break
		}
		for _, w := range adj[u] {
			if _, seen := prev[w]; !seen && comp[w] == comp[a] {
				prev[w] = u
				queue = append(queue, w)
			}
		}
	}
	var path []int32
	for v := b; v >= 0; v = prev[v] {
		path = append(path, v)
	}
	slices.Reverse(path)
	return path
}
