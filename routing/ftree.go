package routing

import (
	"fmt"
	"sort"

	"flitsim/fabric/invariants"
)

// routeFatTree is Zahavi's fat-tree routing (§3.3.5, Alg. 3.2-3.4) as
// OpenSM's ftree does it: leaf by leaf and HCA by HCA, each destination gets
// a down-going path chosen while ascending (at every level the up-link whose
// far port carries the fewest down-going routes), and every switch below
// each switch of that path is routed up towards it (the least loaded of its
// up-ports to it); the other parents on the way get secondary routes, so
// the switches a failed cable cut off from the main path go up through the
// least loaded of their parents that route the destination. Levels are
// distances from the HCA-carrying switches (leaves); a cable between
// switches of the same level, or one that skips a level, means the network
// is no fat tree and the engine fails. Unlike
// OpenSM, which refuses a tree whose switches of one level differ in their
// number of up-port groups (ERR AB09, so any single-cable tree with a failed
// cable), flitsim routes trees that lost cables or switches.
func routeFatTree(g *graph, o Options) (*Tables, error) {
	level, err := g.fatTreeLevels()
	if err != nil {
		return nil, err
	}
	if err := g.checkFatTreeRoots(level, o.Roots); err != nil {
		return nil, err
	}
	f := newFatTree(g, level)
	for s := int32(0); s < int32(g.S); s++ {
		if level[s] != 0 {
			continue
		}
		for _, h := range g.hcas[s] {
			f.routeDestination(s, h)
		}
	}
	f.w.flush()
	if err := f.checkComplete(); err != nil {
		return nil, err
	}
	g.routeSwitchLIDs(f.t, g.hopDistances())
	spreadVLs(g, f.t, o.VLs)
	return f.t, nil
}

func ftreeFail(format string, v ...any) error {
	return &Failure{Engine: "ftree", Reason: fmt.Sprintf(format, v...)}
}

// fatTreeLevels returns every switch's level, its distance from the
// nearest HCA-carrying switch (leaf), or fails if a cable joins switches
// whose levels are not adjacent (no fat tree) or a switch is cut off.
func (g *graph) fatTreeLevels() ([]int32, error) {
	var leaves []int32
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) > 0 {
			leaves = append(leaves, int32(s))
		}
	}
	if len(leaves) == 0 {
		return nil, ftreeFail("no switch carries an HCA")
	}
	level := g.hopsFrom(leaves)
	for s := 0; s < g.S; s++ {
		if level[s] < 0 {
			return nil, ftreeFail("switch %s is not connected", g.net.Nodes[s].Name)
		}
		for _, a := range g.out[s] {
			if d := level[a.to] - level[s]; d != 1 && d != -1 {
				return nil, ftreeFail("not a fat tree: cable %s–%s joins levels %d and %d", g.net.Nodes[s].Name, g.net.Nodes[a.to].Name, level[s], level[a.to])
			}
		}
	}
	return level, nil
}

// checkFatTreeRoots fails unless the given roots, if any, are switches of
// one level.
func (g *graph) checkFatTreeRoots(level []int32, names []string) error {
	roots, err := g.resolveRoots("ftree", names)
	if err != nil {
		return err
	}
	for _, r := range roots {
		if level[r] != level[roots[0]] {
			return ftreeFail("roots %s and %s are on different levels", g.net.Nodes[roots[0]].Name, g.net.Nodes[r].Name)
		}
	}
	return nil
}

// fatTree is one fat-tree routing in progress.
type fatTree struct {
	g     *graph
	t     *Tables
	level []int32
	// down and up count, per switch and port, the down-going and up-going
	// routes assigned.
	down, up [][]int32
	// isDown marks the switches whose route to the current destination
	// goes down.
	isDown []bool
	// byLevel lists the switches leaves first.
	byLevel []int32
	// upArcs and downArcs are each switch's arcs one level up and one
	// level down, in the graph's order.
	upArcs, downArcs [][]arc
	// upPorts[p][i] are the ports of downArcs[p][i]'s far switch that lead
	// up to p (parallel cables), in that switch's arc order.
	upPorts [][][]int32
	// downs lists the switches that route the destination down, in the
	// order they were set (isDown). cand is routeOffPath's candidates, then
	// routeCutOff's stuck switches; mark and stamp dedupe the candidates,
	// then mark the children of stuck switches.
	downs   []int32
	downsBy [][]int32 // downs by level
	cand    []int32
	mark    []uint32
	stamp   uint32
	// parents is the stack of candidate up-links of downAscend.
	parents []*arc
	// col is every switch's output port for the destination being routed,
	// a column of w.
	col []uint8
	// minArc and minLoad are leastUp's hint per switch: no up-arc before
	// upArcs[minArc] carries minLoad routes or fewer, and none fewer than
	// minLoad (up-going loads only grow, so this stays true).
	minArc, minLoad []int32
	w               *columnWriter
}

func newFatTree(g *graph, level []int32) *fatTree {
	f := &fatTree{g: g, t: NewTables(g.net, "ftree"), level: level, down: g.portCounters(), up: g.portCounters(),
		isDown: make([]bool, g.S), byLevel: make([]int32, g.S)}
	g.setHCAPorts(f.t)
	f.w = newColumnWriter(f.t)
	for i := range f.byLevel {
		f.byLevel[i] = int32(i)
	}
	f.upArcs, f.downArcs, f.mark = make([][]arc, g.S), make([][]arc, g.S), make([]uint32, g.S)
	top := int32(0)
	for _, l := range level {
		top = max(top, l)
	}
	f.downsBy = make([][]int32, top+1)
	f.minArc, f.minLoad = make([]int32, g.S), make([]int32, g.S)
	for s := range g.out {
		for _, a := range g.out[s] {
			switch level[a.to] - level[s] {
			case 1:
				f.upArcs[s] = append(f.upArcs[s], a)
			case -1:
				f.downArcs[s] = append(f.downArcs[s], a)
			}
		}
	}
	f.upPorts = make([][][]int32, g.S)
	for p := range f.downArcs {
		f.upPorts[p] = make([][]int32, len(f.downArcs[p]))
		for i, a := range f.downArcs[p] {
			for _, b := range f.upArcs[a.to] {
				if b.to == int32(p) {
					f.upPorts[p][i] = append(f.upPorts[p][i], b.port)
				}
			}
		}
	}
	sort.SliceStable(f.byLevel, func(i, j int) bool { return level[f.byLevel[i]] < level[f.byLevel[j]] })
	return f
}

// routed reports whether switch s has a route to the destination being
// routed (lid).
func (f *fatTree) routed(s int32, lid uint16) bool { return f.col[s] != NoPath }

// set routes the destination being routed at switch s through port.
func (f *fatTree) set(s int32, port int32) {
	invariants.Checkf(f.col[s] == NoPath, "ftree: switch %d routed twice to one destination", s)
	f.col[s] = uint8(port)
}

// routeDestination routes HCA h, on leaf s, from every switch.
func (f *fatTree) routeDestination(s, h int32) {
	g := f.g
	lid := g.net.Nodes[h].LID
	f.col = f.w.column(lid)
	f.col[s] = uint8(g.hcaPort[int(h)-g.S])
	clear(f.isDown)
	f.isDown[s] = true
	f.downs = append(f.downs[:0], s)
	f.downAscend(s, lid, true)
	f.routeOffPath(s, lid)
	f.routeCutOff(s, lid)
}

// upDescend routes every switch below p that has no route yet up to p.
func (f *fatTree) upDescend(p int32, lid uint16) {
	for i, a := range f.downArcs[p] {
		c := a.to
		if f.routed(c, lid) {
			continue
		}
		// c's up-ports to p: the least loaded (parallel cables).
		best := int32(-1)
		for _, port := range f.upPorts[p][i] {
			if best < 0 || f.up[c][port] < f.up[c][best] {
				best = port
			}
		}
		f.set(c, best)
		f.up[c][best]++
		f.upDescend(c, lid)
	}
}

// downAscend extends the down-going routes of lid from s upwards. On the
// main path the least loaded up-link carries lid's down-going route and
// counts as load, and every switch below it is routed up to it; every
// other parent of s that has no route to lid yet gets a secondary route
// down to s (not counted, the least loaded of its cables to s, parents
// taken least loaded first), as OpenSM's ftree routes secondary paths.
func (f *fatTree) downAscend(s int32, lid uint16, main bool) {
	start := len(f.parents)
	for i := range f.upArcs[s] {
		a := &f.upArcs[s][i]
		if !f.routed(a.to, lid) {
			f.parents = append(f.parents, a)
		}
	}
	cand := f.parents[start:]
	// Least loaded first; ties by port, so the order is the tables'
	// (a stable insertion sort: few parents, often in order already).
	load := func(a *arc) int32 { return f.down[a.to][a.in] }
	for i := 1; i < len(cand); i++ {
		for j := i; j > 0 && load(cand[j]) < load(cand[j-1]); j-- {
			cand[j], cand[j-1] = cand[j-1], cand[j]
		}
	}
	for i, a := range cand {
		p := a.to
		if f.routed(p, lid) {
			continue // reached through another parent meanwhile, or a parallel cable
		}
		f.set(p, a.in)
		f.isDown[p] = true
		f.downs = append(f.downs, p)
		if main && i == 0 {
			f.down[p][a.in]++
			f.upDescend(p, lid)
		}
		f.downAscend(p, lid, main && i == 0)
	}
	f.parents = f.parents[:start]
}

// routeOffPath sends the switches off every path to lid (on leaf s) down
// to a switch that routes it down: other roots, and what failures cut off
// from the chosen ancestors. These routes carry no HCA traffic (nothing
// is routed up to them for this destination), so they count as no load.
func (f *fatTree) routeOffPath(s int32, lid uint16) {
	// Level by level upwards, the unrouted parents of switches that route
	// down take the first of their down-links to one; a switch set here
	// routes down too, for the level above.
	for l := range f.downsBy {
		f.downsBy[l] = f.downsBy[l][:0]
	}
	for _, d := range f.downs {
		f.downsBy[f.level[d]] = append(f.downsBy[f.level[d]], d)
	}
	f.stamp++
	for l := 0; l+1 < len(f.downsBy); l++ {
		f.cand = f.cand[:0]
		for _, d := range f.downsBy[l] {
			for _, a := range f.upArcs[d] {
				if u := a.to; !f.routed(u, lid) && f.mark[u] != f.stamp {
					f.mark[u] = f.stamp
					f.cand = append(f.cand, u)
				}
			}
		}
		for _, u := range f.cand {
			for _, a := range f.downArcs[u] {
				if f.isDown[a.to] {
					f.set(u, a.port)
					f.isDown[u] = true
					f.downsBy[l+1] = append(f.downsBy[l+1], u)
					break
				}
			}
		}
	}
}

// routeCutOff sends the switches a failed cable cut off from the main
// path to lid (on leaf s) up through the least loaded of their parents
// that route lid (top down, so parents are routed first); OpenSM sends
// them all up the first secondary path instead, which piles a leaf's
// orphaned destinations onto one up-link.
func (f *fatTree) routeCutOff(s int32, lid uint16) {
	// A switch all of whose parents route lid (most of them: without
	// failures every switch off the main path comes here) takes its least
	// loaded up-link from leastUp instead of testing every parent. The
	// others are the children of the switches one level up left without
	// a route (stuck), marked on entering their level.
	f.stamp++
	stuck, cur := f.cand[:0], int32(-1)
	for i := len(f.byLevel) - 1; i >= 0; i-- {
		u := f.byLevel[i]
		if l := f.level[u]; l != cur {
			for _, p := range stuck {
				for _, a := range f.downArcs[p] {
					f.mark[a.to] = f.stamp
				}
			}
			stuck, cur = stuck[:0], l
		}
		if f.routed(u, lid) || u == s {
			continue
		}
		best := int32(-1)
		if f.mark[u] != f.stamp {
			if len(f.upArcs[u]) > 0 {
				best = f.upArcs[u][f.leastUp(u)].port
			}
		} else {
			for _, a := range f.upArcs[u] {
				if f.routed(a.to, lid) && (best < 0 || f.up[u][a.port] < f.up[u][best]) {
					best = a.port
				}
			}
		}
		if best < 0 {
			stuck = append(stuck, u)
			continue
		}
		f.set(u, best)
		f.up[u][best]++
	}
	f.cand = stuck
}

// leastUp returns the index in upArcs[u] of the first up-arc with the
// fewest up-going routes. Loads only grow, so the cached arc's
// predecessors stay above the cached minimum: while the cached arc keeps
// it, it is still the answer; otherwise the first later arc at the
// minimum is, and only when none is left is the minimum found afresh.
func (f *fatTree) leastUp(u int32) int32 {
	arcs, load := f.upArcs[u], f.up[u]
	i, m := f.minArc[u], f.minLoad[u]
	if load[arcs[i].port] == m {
		return i
	}
	for j := i + 1; j < int32(len(arcs)); j++ {
		if load[arcs[j].port] == m {
			f.minArc[u] = j
			return j
		}
	}
	best := int32(0)
	for j := int32(1); j < int32(len(arcs)); j++ {
		if load[arcs[j].port] < load[arcs[best].port] {
			best = j
		}
	}
	f.minArc[u], f.minLoad[u] = best, load[arcs[best].port]
	return best
}

// checkComplete fails when an HCA-carrying switch has no route to an HCA
// destination (the failures broke the tree).
func (f *fatTree) checkComplete() error {
	g, S := f.g, f.g.S
	ports := make([]uint8, columnBlock*S)
	for lo := 0; lo < len(g.dests); lo += columnBlock {
		lids := g.dests[lo:min(lo+columnBlock, len(g.dests))]
		f.t.columns(lids, ports, nil)
		for j := range lids {
			i, dst := lo+j, int(g.destSwitch[lo+j])
			for s := 0; s < S; s++ {
				if s != dst && g.numHCAs(s) > 0 && ports[j*S+s] == NoPath {
					return ftreeFail("no up/down path from %s to %s (the failures broke the tree)", g.net.Nodes[s].Name, g.net.Nodes[g.destNode[i]].Name)
				}
			}
		}
	}
	return nil
}
