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
	fail := func(format string, v ...any) error {
		return &Failure{Engine: "ftree", Reason: fmt.Sprintf(format, v...)}
	}
	level := make([]int32, g.S)
	for i := range level {
		level[i] = -1
	}
	var queue []int32
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) > 0 {
			level[s] = 0
			queue = append(queue, int32(s))
		}
	}
	if len(queue) == 0 {
		return nil, fail("no switch carries an HCA")
	}
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, a := range g.out[u] {
			if level[a.to] < 0 {
				level[a.to] = level[u] + 1
				queue = append(queue, a.to)
			}
		}
	}
	for s := 0; s < g.S; s++ {
		if level[s] < 0 {
			return nil, fail("switch %s is not connected", g.net.Nodes[s].Name)
		}
		for _, a := range g.out[s] {
			if d := level[a.to] - level[s]; d != 1 && d != -1 {
				return nil, fail("not a fat tree: cable %s–%s joins levels %d and %d", g.net.Nodes[s].Name, g.net.Nodes[a.to].Name, level[s], level[a.to])
			}
		}
	}
	if roots, err := g.resolveRoots("ftree", o.Roots); err != nil {
		return nil, err
	} else if len(roots) > 0 {
		top := level[roots[0]]
		for _, r := range roots {
			if level[r] != top {
				return nil, fail("roots %s and %s are on different levels", g.net.Nodes[roots[0]].Name, g.net.Nodes[r].Name)
			}
		}
	}
	t := NewTables(g.net, "ftree")
	g.setHCAPorts(t)
	down := make([][]int32, g.S) // per switch and port: down-going routes assigned
	up := make([][]int32, g.S)   // per switch and port: up-going routes assigned
	for s := range down {
		down[s] = make([]int32, g.net.Nodes[s].Radix+1)
		up[s] = make([]int32, g.net.Nodes[s].Radix+1)
	}
	routed := func(s int32, lid uint16) bool { return t.Port(int(s), lid) != NoPath }
	isDown := make([]bool, g.S) // switches whose route to the current destination goes down
	byLevel := make([]int32, g.S)
	for i := range byLevel {
		byLevel[i] = int32(i)
	}
	sort.SliceStable(byLevel, func(i, j int) bool { return level[byLevel[i]] < level[byLevel[j]] })

	// upDescend routes every switch below p that has no route yet up to p.
	var upDescend func(p int32, lid uint16)
	upDescend = func(p int32, lid uint16) {
		for _, a := range g.out[p] {
			c := a.to
			if level[c] != level[p]-1 || routed(c, lid) {
				continue
			}
			// c's up-ports to p: the least loaded (parallel cables).
			best := int32(-1)
			for _, b := range g.out[c] {
				if b.to == p && (best < 0 || up[c][b.port] < up[c][best]) {
					best = b.port
				}
			}
			t.SetPort(int(c), lid, int(best))
			up[c][best]++
			upDescend(c, lid)
		}
	}
	// downAscend extends the down-going routes of lid from s upwards. On the
	// main path the least loaded up-link carries lid's down-going route and
	// counts as load, and every switch below it is routed up to it; every
	// other parent of s that has no route to lid yet gets a secondary route
	// down to s (not counted, the least loaded of its cables to s, parents
	// taken least loaded first), as OpenSM's ftree routes secondary paths.
	var downAscend func(s int32, lid uint16, main bool)
	var parents []*arc
	downAscend = func(s int32, lid uint16, main bool) {
		start := len(parents)
		for i := range g.out[s] {
			a := &g.out[s][i]
			if level[a.to] == level[s]+1 && !routed(a.to, lid) {
				parents = append(parents, a)
			}
		}
		cand := parents[start:]
		// Least loaded first; ties by port, so the order is the tables'.
		sort.SliceStable(cand, func(i, j int) bool { return down[cand[i].to][cand[i].in] < down[cand[j].to][cand[j].in] })
		for i, a := range cand {
			p := a.to
			if routed(p, lid) {
				continue // reached through another parent meanwhile, or a parallel cable
			}
			t.SetPort(int(p), lid, int(a.in))
			isDown[p] = true
			if main && i == 0 {
				down[p][a.in]++
				upDescend(p, lid)
			}
			downAscend(p, lid, main && i == 0)
		}
		parents = parents[:start]
	}
	for s := int32(0); s < int32(g.S); s++ {
		if level[s] != 0 {
			continue
		}
		for _, h := range g.hcas[s] {
			lid := g.net.Nodes[h].LID
			clear(isDown)
			isDown[s] = true
			downAscend(s, lid, true)
			// Switches off every path (other roots, and what failures cut
			// off from the chosen ancestors) go down to a switch that does.
			for _, u := range byLevel {
				if routed(u, lid) || u == s {
					continue
				}
				// These routes carry no HCA traffic (nothing is routed up
				// to u for this destination), so they do not count as load.
				for _, a := range g.out[u] {
					if level[a.to] == level[u]-1 && isDown[a.to] {
						t.SetPort(int(u), lid, int(a.port))
						isDown[u] = true
						break
					}
				}
			}
			// Switches a failed cable cut off from the main path go up
			// through the least loaded of their parents that route lid
			// (top down, so parents are routed first); OpenSM sends them
			// all up the first secondary path instead, which piles a
			// leaf's orphaned destinations onto one up-link.
			for i := len(byLevel) - 1; i >= 0; i-- {
				u := byLevel[i]
				if routed(u, lid) || u == s {
					continue
				}
				best := int32(-1)
				for _, a := range g.out[u] {
					if level[a.to] == level[u]+1 && routed(a.to, lid) && (best < 0 || up[u][a.port] < up[u][best]) {
						best = a.port
					}
				}
				if best >= 0 {
					t.SetPort(int(u), lid, int(best))
					up[u][best]++
				}
			}
		}
	}
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		for s := 0; s < g.S; s++ {
			if s != dst && g.numHCAs(s) > 0 && t.Port(s, lid) == NoPath {
				return nil, fail("no up/down path from %s to %s (the failures broke the tree)", g.net.Nodes[s].Name, g.net.Nodes[g.destNode[i]].Name)
			}
		}
	}
	g.routeSwitchLIDs(t, g.hopDistances())
	spreadVLs(g, t, o.VLs)
	return t, nil
}
