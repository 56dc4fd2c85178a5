package routing

import (
	"fmt"
	"strings"

	"flitsim/fabric"
)

// routeUpDn is Up*/Down* (see routeUpDown).
func routeUpDn(g *graph, o Options) (*Tables, error) { return routeUpDown(g, o, false) }

// routeDnUp is Down*/Up* (see routeUpDown).
func routeDnUp(g *graph, o Options) (*Tables, error) { return routeUpDown(g, o, true) }

// routeUpDown is Up*/Down* (§3.3.4), or Down*/Up* when reverse is set.
//
// Switches get BFS ranks from the roots; a channel u→v goes up when v has a
// lower rank, or the same rank and a lower GUID. A legal path is some up
// channels followed by some down channels (Down*/Up*: the other way round).
// For destination-based tables the route from a switch that has an all-down
// path to the destination is its shortest all-down path, and every other
// switch climbs on a shortest legal path; a packet that has taken a down
// channel therefore only meets switches that route down, so no path ever
// turns down→up and the CDG is acyclic. Among equally good next hops the
// port with the fewest destinations so far wins, as in MinHop.
func routeUpDown(g *graph, o Options, reverse bool) (*Tables, error) {
	name := "updn"
	if reverse {
		name = "dnup"
	}
	roots, err := g.resolveRoots(name, o.Roots)
	if err != nil {
		return nil, err
	}
	how := "given"
	if len(roots) == 0 {
		roots, how = g.autoRoots(reverse), "chosen"
	}
	rank, err := g.bfsRanks(name, roots)
	if err != nil {
		return nil, err
	}
	t, err := g.upDown(name, reverse, rank, roots)
	if err == nil {
		t.Notes = append(t.Notes, fmt.Sprintf("%d roots %s: %s", len(roots), how, abbreviate(g.nodeNames(roots), 8)))
		return t, nil
	}
	if how == "given" {
		return nil, err
	}
	// The chosen roots left an HCA pair without a legal path (Down*/Up* on
	// a direct network, where every switch carries HCAs and only the GUID
	// order is left). Rank from the most central switch c instead: every
	// switch climbs to c (Up*/Down*: c is the one root; Down*/Up*: rank is
	// the distance from c subtracted from the largest, so the path towards
	// c comes first) and descends from it, so every pair has a legal path.
	c, dist := g.center()
	far := int16(0)
	for _, d := range dist {
		far = max(far, d)
	}
	for v := range rank {
		rank[v] = int32(dist[v])
		if reverse {
			rank[v] = int32(far - dist[v])
		}
	}
	t, err2 := g.upDown(name, reverse, rank, []int{c})
	if err2 != nil {
		return nil, err // the first reason is the telling one
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d roots chosen (%s) left HCA pairs without a legal path; ranked from the central switch %s instead",
		len(roots), abbreviate(g.nodeNames(roots), 4), g.net.Nodes[c].Name))
	return t, nil
}

// bfsRanks returns every switch's hop distance from the nearest root.
func (g *graph) bfsRanks(name string, roots []int) ([]int32, error) {
	src := make([]int32, len(roots))
	for i, r := range roots {
		src[i] = int32(r)
	}
	rank := g.hopsFrom(src)
	for s := 0; s < g.S; s++ {
		if rank[s] < 0 {
			return nil, &Failure{Engine: name, Reason: fmt.Sprintf("switch %q is not connected to the roots", g.net.Nodes[s].Name)}
		}
	}
	return rank, nil
}

// center returns the switch with the smallest eccentricity (the lowest
// index among equals) and its hop distances to every switch.
func (g *graph) center() (int, []int16) {
	dist := g.hopDistances()
	best, bestEcc := 0, int16(-1)
	for s := 0; s < g.S; s++ {
		ecc := int16(0)
		for _, d := range dist[s] {
			ecc = max(ecc, d)
		}
		if bestEcc < 0 || ecc < bestEcc {
			best, bestEcc = s, ecc
		}
	}
	return best, dist[best]
}

// upDown routes with the given ranks: a channel u→v goes up when v has a
// lower rank, or the same rank and a lower GUID.
func (g *graph) upDown(name string, reverse bool, rank []int32, roots []int) (*Tables, error) {
	queue := make([]int32, 0, g.S)
	guid := func(n int32) uint64 { return g.net.Nodes[n].GUID }
	isUp := func(u int32, a arc) bool {
		up := rank[a.to] < rank[u] || (rank[a.to] == rank[u] && guid(a.to) < guid(u))
		return up != reverse
	}
	t := NewTables(g.net, name)
	g.setHCAPorts(t)
	// up[u][k] is isUp for arc out[u][k], decided once.
	up := make([][]bool, g.S)
	for u := range g.out {
		up[u] = make([]bool, len(g.out[u]))
		for k, a := range g.out[u] {
			up[u][k] = isUp(int32(u), a)
		}
	}
	in := g.incoming()
	load := g.portCounters()
	// Per destination switch: down[u] = hops of the shortest all-down path
	// (-1 none); total[u] = hops of the route u takes.
	down := make([][]int32, g.S)
	total := make([][]int32, g.S)
	var h minHeap
	route := func(dst int) {
		if down[dst] != nil {
			return
		}
		dn, tot := make([]int32, g.S), make([]int32, g.S)
		for i := range dn {
			dn[i], tot[i] = -1, -1
		}
		dn[dst] = 0
		q := append(queue[:0], int32(dst))
		for k := 0; k < len(q); k++ {
			v := q[k]
			for _, ia := range in[v] {
				u := ia.from
				if dn[u] < 0 && !up[u][ia.idx] {
					dn[u] = dn[v] + 1
					q = append(q, u)
				}
			}
		}
		h.reset()
		for _, v := range q {
			tot[v] = dn[v]
			h.push(int64(dn[v]), v)
		}
		for h.len() > 0 {
			d, v := h.pop()
			if int32(d) != tot[v] {
				continue
			}
			for _, ia := range in[v] {
				u := ia.from
				if dn[u] < 0 && up[u][ia.idx] && (tot[u] < 0 || tot[v]+1 < tot[u]) {
					tot[u] = tot[v] + 1
					h.push(int64(tot[u]), u)
				}
			}
		}
		down[dst], total[dst] = dn, tot
	}
	cands := newCandidates(g.S)
	w := newColumnWriter(t)
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		if dst != cands.dst {
			route(dst)
			dn, tot := down[dst], total[dst]
			err := cands.list(dst, func(u int, ports []int32) ([]int32, error) {
				if u == dst {
					return ports, nil
				}
				if tot[u] < 0 {
					if g.numHCAs(u) > 0 {
						return nil, &Failure{Engine: name, Reason: fmt.Sprintf("no legal path from %s to %s with these roots (%s)",
							g.net.Nodes[u].Name, g.net.Nodes[dst].Name, abbreviate(g.nodeNames(roots), 4))}
					}
					return ports, nil
				}
				for k, a := range g.out[u] {
					if dn[u] >= 0 && !up[u][k] && dn[a.to] == dn[u]-1 || dn[u] < 0 && up[u][k] && tot[a.to] == tot[u]-1 {
						ports = append(ports, a.port)
					}
				}
				return ports, nil
			})
			if err != nil {
				return nil, err
			}
		}
		col := w.column(lid)
		col[dst] = uint8(g.hcaPort[int(g.destNode[i])-g.S])
		cands.route(col, load)
	}
	w.flush()
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}

func (g *graph) nodeNames(idx []int) []string {
	var names []string
	for _, r := range idx {
		names = append(names, g.net.Nodes[r].Name)
	}
	return names
}

func abbreviate(s []string, n int) string {
	if len(s) <= n {
		return strings.Join(s, ",")
	}
	return strings.Join(s[:n], ",") + fmt.Sprintf(",… (%d more)", len(s)-n)
}

// AutoRoots returns the root switches Up*/Down* (reverse=false) or
// Down*/Up* (reverse=true) chooses when none are given.
func AutoRoots(net *fabric.Network, reverse bool) []int {
	return newGraph(net).autoRoots(reverse)
}

// autoRoots picks the roots when none are given. Up*/Down*: the switches
// whose farthest HCA-carrying switch is nearest; in a fat tree these are the
// top-level switches, all of which become roots, and in a direct network
// (where the best switches carry HCAs themselves) only the first of them is
// taken, which makes every pair routable. Down*/Up* ranks from the
// HCA-carrying switches, as OpenSM's dnup does, so paths first leave the
// leaves and then return to them; on a direct network where every switch
// carries HCAs this leaves only the GUID order, which may leave pairs
// without a legal path, and routeUpDown then ranks from the central switch
// (OpenSM's dnup instead treats every channel out of a rank-0 switch as
// down, which makes it exactly MinHop and cyclic on tori).
func (g *graph) autoRoots(reverse bool) []int {
	if reverse {
		var leaves []int
		for s := 0; s < g.S; s++ {
			if g.numHCAs(s) > 0 {
				leaves = append(leaves, s)
			}
		}
		return leaves
	}
	dist := g.hopDistances()
	best, worst := int16(-1), make([]int16, g.S)
	for s := 0; s < g.S; s++ {
		for t := 0; t < g.S; t++ {
			if g.numHCAs(t) > 0 && dist[t][s] > worst[s] {
				worst[s] = dist[t][s]
			}
		}
		if best < 0 || worst[s] < best {
			best = worst[s]
		}
	}
	var roots []int
	direct := false
	for s := 0; s < g.S; s++ {
		if worst[s] == best {
			roots = append(roots, s)
			direct = direct || g.numHCAs(s) > 0
		}
	}
	if direct {
		roots = roots[:1]
	}
	return roots
}
