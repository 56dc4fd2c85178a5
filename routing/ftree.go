package routing

import (
	"fmt"
	"sort"
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
			f.routeDestination(s, g.net.Nodes[h].LID)
		}
	}
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
	// parents is the stack of candidate up-links of downAscend.
	parents []*arc
}

func newFatTree(g *graph, level []int32) *fatTree {
	f := &fatTree{g: g, t: NewTables(g.net, "ftree"), level: level, down: g.portCounters(), up: g.portCounters(),
		isDown: make([]bool, g.S), byLevel: make([]int32, g.S)}
	g.setHCAPorts(f.t)
	for i := range f.byLevel {
		f.byLevel[i] = int32(i)
	}
	sort.SliceStable(f.byLevel, func(i, j int) bool { return level[f.byLevel[i]] < level[f.byLevel[j]] })
	return f
}

// routed reports whether switch s has a route to lid.
func (f *fatTree) routed(s int32, lid uint16) bool { return f.t.Port(int(s), lid) != NoPath }

// routeDestination routes lid, an HCA on leaf s, from every switch.
func (f *fatTree) routeDestination(s int32, lid uint16) {
	clear(f.isDown)
	f.isDown[s] = true
	f.downAscend(s, lid, true)
	f.routeOffPath(s, lid)
	f.routeCutOff(s, lid)
}

// upDescend routes every switch below p that has no route yet up to p.
func (f *fatTree) upDescend(p int32, lid uint16) {
	g := f.g
	for _, a := range g.out[p] {
		c := a.to
		if f.level[c] != f.level[p]-1 || f.routed(c, lid) {
			continue
		}
		// c's up-ports to p: the least loaded (parallel cables).
		best := int32(-1)
		for _, b := range g.out[c] {
			if b.to == p && (best < 0 || f.up[c][b.port] < f.up[c][best]) {
				best = b.port
			}
		}
		f.t.SetPort(int(c), lid, int(best))
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
	g := f.g
	start := len(f.parents)
	for i := range g.out[s] {
		a := &g.out[s][i]
		if f.level[a.to] == f.level[s]+1 && !f.routed(a.to, lid) {
			f.parents = append(f.parents, a)
		}
	}
	cand := f.parents[start:]
	// Least loaded first; ties by port, so the order is the tables'.
	sort.SliceStable(cand, func(i, j int) bool { return f.down[cand[i].to][cand[i].in] < f.down[cand[j].to][cand[j].in] })
	for i, a := range cand {
		p := a.to
		if f.routed(p, lid) {
			continue // reached through another parent meanwhile, or a parallel cable
		}
		f.t.SetPort(int(p), lid, int(a.in))
		f.isDown[p] = true
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
	for _, u := range f.byLevel {
		if f.routed(u, lid) || u == s {
			continue
		}
		for _, a := range f.g.out[u] {
			if f.level[a.to] == f.level[u]-1 && f.isDown[a.to] {
				f.t.SetPort(int(u), lid, int(a.port))
				f.isDown[u] = true
				break
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
	for i := len(f.byLevel) - 1; i >= 0; i-- {
		u := f.byLevel[i]
		if f.routed(u, lid) || u == s {
			continue
		}
		best := int32(-1)
		for _, a := range f.g.out[u] {
			if f.level[a.to] == f.level[u]+1 && f.routed(a.to, lid) && (best < 0 || f.up[u][a.port] < f.up[u][best]) {
				best = a.port
			}
		}
		if best >= 0 {
			f.t.SetPort(int(u), lid, int(best))
			f.up[u][best]++
		}
	}
}

// checkComplete fails when an HCA-carrying switch has no route to an HCA
// destination (the failures broke the tree).
func (f *fatTree) checkComplete() error {
	g := f.g
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		for s := 0; s < g.S; s++ {
			if s != dst && g.numHCAs(s) > 0 && f.t.Port(s, lid) == NoPath {
				return ftreeFail("no up/down path from %s to %s (the failures broke the tree)", g.net.Nodes[s].Name, g.net.Nodes[g.destNode[i]].Name)
			}
		}
	}
	return nil
}
