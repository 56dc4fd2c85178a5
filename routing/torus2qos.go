package routing

import (
	"fmt"
	"strings"
)

// routeTorus2QoS is a Torus-2QoS-style routing (§3.3.7) for generated 1-3
// dimensional meshes and tori: dimension-order routing (dimension 0 first)
// on shortest paths, ties in a ring going the + way.
//
// Deadlock-freedom in the rings comes from datelines: a path's service level
// carries, per dimension, one bit saying whether its segment in that
// dimension crosses the ring's wrap-around cable (between coordinates d−1
// and 0), and every switch's SL→VL table puts a hop in dimension k on VL =
// bit k of the SL. VL 0 then never holds the wrap-around cable, and VL 1
// only holds segments that cross it; with minimal paths (at most d/2 hops)
// no VL-1 segment reaches the middle of the ring, so neither VL closes a
// cycle, and dimension order rules out cycles across dimensions.
//
// A ring that lost every cable between one pair of neighbours is a line:
// paths that would cross the gap go the other way round (no cycle is
// possible in a line).
//
// A failed switch is routed around locally: the switches whose
// dimension-order path would run into it take the shortest way to a switch
// whose path does not, with turns against dimension order where needed.
// Those detoured paths get one more SL bit (bit n for n dimensions), which
// the SL→VL tables turn into VL bit 1, so they live on VLs 2-3 apart from
// the dimension-order paths (whose subset on VLs 0-1 stays acyclic). The
// engine checks the detours' dependency graph and fails rather than return
// a credit loop. HCAs inject on VL 0 whatever the SL, as Torus-2QoS's
// channel adapters do.
//
// Two failures in one ring (cables or switches), a failed cable in a mesh
// line, or a switch the detours cannot reach, make the engine fail cleanly.
func routeTorus2QoS(g *graph, o Options) (*Tables, error) {
	net := g.net
	fail := func(format string, v ...any) error {
		return &Failure{Engine: "torus-2qos", Reason: fmt.Sprintf(format, v...)}
	}
	dims, wrap := net.Dims, net.Wrap
	if dims == nil {
		return nil, fail("needs a generated mesh or torus (switch coordinates)")
	}
	nd := len(dims)
	if nd > 3 {
		return nil, fail("routes 1-3 dimensions, not %d", nd)
	}
	total := 1
	for _, d := range dims {
		total *= d
	}
	// Switch by coordinates (-1: failed), and per switch/dimension/direction
	// its cables.
	key := func(c []int) int {
		k := 0
		for i := nd - 1; i >= 0; i-- {
			k = k*dims[i] + c[i]
		}
		return k
	}
	coordOf := func(k int) []int {
		c := make([]int, nd)
		for i := 0; i < nd; i++ {
			c[i] = k % dims[i]
			k /= dims[i]
		}
		return c
	}
	at := make([]int32, total)
	for i := range at {
		at[i] = -1
	}
	for s := 0; s < g.S; s++ {
		c := net.Nodes[s].Coord
		if len(c) != nd {
			return nil, fail("switch %s has no coordinates", net.Nodes[s].Name)
		}
		at[key(c)] = int32(s)
	}
	nameOf := func(k int) string { // the switch at coordinate key k, or its coordinates
		if s := at[k]; s >= 0 {
			return net.Nodes[s].Name
		}
		return fmt.Sprintf("%v (failed)", coordOf(k))
	}
	var dead []int
	for k, s := range at {
		if s < 0 {
			dead = append(dead, k)
		}
	}
	step := func(c []int, k, dir int) (int, bool) { // neighbour coordinate in dimension k
		x := c[k] + dir
		if x < 0 || x >= dims[k] {
			if !wrap[k] {
				return 0, false
			}
			x = (x + dims[k]) % dims[k]
		}
		return x, true
	}
	nbr := make([]int, nd)
	// cables[s][k*2+di] lists the arcs from s to its neighbour in dimension
	// k, direction + (di 0) or − (di 1); next[s][k*2+di] is that neighbour's
	// coordinate key (-1 none), alive or not.
	cables := make([][][]arc, g.S)
	next := make([][]int, g.S)
	for s := 0; s < g.S; s++ {
		cables[s] = make([][]arc, 2*nd)
		next[s] = make([]int, 2*nd)
		c := net.Nodes[s].Coord
		for k := 0; k < nd; k++ {
			for di, dir := range []int{1, -1} {
				next[s][2*k+di] = -1
				x, ok := step(c, k, dir)
				if !ok || x == c[k] {
					continue
				}
				copy(nbr, c)
				nbr[k] = x
				next[s][2*k+di] = key(nbr)
				n := at[key(nbr)]
				for _, a := range g.out[s] {
					if n >= 0 && a.to == n {
						cables[s][2*k+di] = append(cables[s][2*k+di], a)
					}
				}
			}
		}
	}
	lineOf := func(c []int, k int) int {
		copy(nbr, c)
		nbr[k] = 0
		return key(nbr)
	}
	// Failures per ring or line (identified by its coordinate-0 switch key):
	// gap[k][line] = the coordinate x whose cables to x+1 all failed (both
	// switches alive); down[k][line] = the coordinate of a failed switch.
	gap := make([]map[int]int, nd)
	down := make([]map[int]int, nd)
	for k := 0; k < nd; k++ {
		gap[k], down[k] = map[int]int{}, map[int]int{}
		for _, dk := range dead {
			c := coordOf(dk)
			line := lineOf(c, k)
			if prev, dup := down[k][line]; dup && dims[k] > 1 {
				return nil, fail("two failed switches in the dimension-%d ring through %s (coordinates %d and %d)",
					k, nameOf(line), prev, c[k])
			}
			down[k][line] = c[k]
		}
		for s := 0; s < g.S; s++ {
			c := net.Nodes[s].Coord
			if next[s][2*k] < 0 || at[next[s][2*k]] < 0 || len(cables[s][2*k]) > 0 || (dims[k] == 2 && c[k] == 1) {
				continue
			}
			line := lineOf(c, k)
			if !wrap[k] || dims[k] <= 2 {
				return nil, fail("a failed cable splits the dimension-%d line through %s", k, net.Nodes[s].Name)
			}
			if prev, dup := gap[k][line]; dup {
				return nil, fail("two failed cables in the dimension-%d ring through %s (after coordinates %d and %d)",
					k, nameOf(line), prev, c[k])
			}
			if x, dup := down[k][line]; dup {
				return nil, fail("a failed cable (after coordinate %d) and a failed switch (coordinate %d) in the dimension-%d ring through %s",
					c[k], x, k, nameOf(line))
			}
			gap[k][line] = c[k]
		}
	}
	// dirOf returns the direction (+1/−1) the segment a→b of dimension k
	// takes in the line whose coordinate-0 switch is line.
	dirOf := func(k, line, a, b int) int {
		if !wrap[k] {
			if b > a {
				return 1
			}
			return -1
		}
		d := dims[k]
		f := ((b-a)%d + d) % d
		dir := 1
		if d-f < f {
			dir = -1
		}
		if x, broken := gap[k][line]; broken {
			// Does the chosen way cross the gap (the cable x → x+1)?
			for p, i := a, 0; p != b && i < d; i++ {
				q := (p + dir + d) % d
				if (dir == 1 && p == x) || (dir == -1 && q == x) {
					return -dir
				}
				p = q
			}
		}
		return dir
	}
	// base returns the direction index (2k+di) of the dimension-order hop
	// from switch u towards coordinates ct.
	base := func(u int, ct []int) int {
		cu := net.Nodes[u].Coord
		for k := 0; k < nd; k++ {
			if cu[k] != ct[k] {
				if dirOf(k, lineOf(cu, k), cu[k], ct[k]) > 0 {
					return 2 * k
				}
				return 2*k + 1
			}
		}
		return -1
	}

	t := NewTables(net, "torus-2qos")
	g.setHCAPorts(t)
	load := make([][]int32, g.S)
	for s := range load {
		load[s] = make([]int32, net.Nodes[s].Radix+1)
	}
	// Per destination switch: hop direction and SL of every switch.
	hop := make([]int, g.S)
	sls := make([]uint8, g.S)
	state := make([]int8, g.S) // 0 unknown, 1 on the way, 2 clean, 3 detoured
	dist := make([]int32, g.S)
	type pair struct {
		u, dst int
		lid    uint16
	}
	var detours []pair // HCA-carrying switches whose path to lid is detoured
	var chain []int
	destSwitch := -1
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		if dst != destSwitch {
			destSwitch = dst
			ct := net.Nodes[dst].Coord
			for u := range hop {
				hop[u], state[u], dist[u] = base(u, ct), 0, -1
			}
			state[dst], dist[dst] = 2, 0
			// A switch is clean when its dimension-order path reaches dst.
			for u := 0; u < g.S; u++ {
				chain = chain[:0]
				v := u
				for state[v] == 0 {
					state[v] = 1
					chain = append(chain, v)
					if len(cables[v][hop[v]]) == 0 { // the neighbour or every cable to it failed
						v = -1
						break
					}
					v = int(at[next[v][hop[v]]])
				}
				st, d := int8(3), int32(-1)
				if v >= 0 && state[v] == 2 {
					st, d = 2, dist[v]
				}
				for j := len(chain) - 1; j >= 0; j-- {
					w := chain[j]
					state[w] = st
					if st == 2 {
						d++
						dist[w] = d
					}
				}
			}
			// Detoured switches take the shortest way to a clean one (the
			// lowest direction among equals).
			var dirty []int
			for u := 0; u < g.S; u++ {
				if state[u] == 3 {
					dirty = append(dirty, u)
				}
			}
			for changed := true; changed; {
				changed = false
				for _, u := range dirty {
					for h := 0; h < 2*nd; h++ {
						if len(cables[u][h]) == 0 {
							continue
						}
						if v := at[next[u][h]]; dist[v] >= 0 && (dist[u] < 0 || dist[v]+1 < dist[u]) {
							dist[u] = dist[v] + 1
							changed = true
						}
					}
				}
			}
			for _, u := range dirty {
				if dist[u] < 0 {
					return nil, fail("%s cannot reach %s around the failed switches", net.Nodes[u].Name, net.Nodes[dst].Name)
				}
				for h := 0; h < 2*nd; h++ {
					if len(cables[u][h]) > 0 && dist[at[next[u][h]]] == dist[u]-1 {
						hop[u] = h
						break
					}
				}
			}
			// SL of clean paths: the datelines they cross.
			for u := 0; u < g.S; u++ {
				if u == dst || g.numHCAs(u) == 0 || state[u] != 2 {
					continue
				}
				sl := uint8(0)
				for v := u; v != dst; v = int(at[next[v][hop[v]]]) {
					k, di := hop[v]/2, hop[v]%2
					c := net.Nodes[v].Coord
					x, _ := step(c, k, 1-2*di)
					if (di == 0 && x < c[k]) || (di == 1 && x > c[k]) {
						sl |= 1 << k
					}
				}
				sls[u] = sl
			}
		}
		for u := 0; u < g.S; u++ {
			if u == dst {
				continue
			}
			best := int32(-1)
			for _, a := range cables[u][hop[u]] {
				if best < 0 || load[u][a.port] < load[u][best] {
					best = a.port
				}
			}
			if best < 0 {
				return nil, fail("no cable from %s in dimension %d", net.Nodes[u].Name, hop[u]/2)
			}
			t.SetPort(u, lid, int(best))
			load[u][best]++
			if g.numHCAs(u) > 0 {
				if state[u] == 3 {
					detours = append(detours, pair{u, dst, lid})
				} else {
					t.SetSL(u, lid, sls[u])
				}
			}
		}
	}
	// Clean paths use VLs 0-1 (1 on a mesh); detoured paths are layered
	// by cycle breaking onto the VLs above, one VL per layer along the whole
	// path, with SLs from 2^n up.
	baseVLs := 1
	for _, w := range wrap {
		if w {
			baseVLs = 2
		}
	}
	firstDetourSL := 1 << nd
	layers := 0
	if len(detours) > 0 {
		ps := &pathSet{off: []int32{0}}
		in := make([]int, len(detours)) // detour → path index, -1 if no dependency
		for i, d := range detours {
			in[i] = -1
			if ps.add(g, t, d.u, d.dst, d.lid, int64(g.numHCAs(d.u))) {
				in[i] = ps.len() - 1
			}
		}
		layer, n, err := breakCycles(ps, maxLayers)
		if err != nil {
			return nil, fail("routing around the failed switches: %v", err)
		}
		layers = n
		if firstDetourSL+n > MaxVLs || baseVLs+n > o.VLs {
			return nil, &Failure{Engine: "torus-2qos", VLsNeeded: baseVLs + n,
				Reason: fmt.Sprintf("the detours around the failed switches need %d more VLs (%d in all, %d available)", n, baseVLs+n, o.VLs)}
		}
		for i, d := range detours {
			l := 0
			if in[i] >= 0 {
				l = int(layer[in[i]])
			}
			t.SetSL(d.u, d.lid, uint8(firstDetourSL+l))
		}
	}
	// SL→VL: a hop in dimension k of a clean path uses the SL's bit k (its
	// dateline bit); a detoured path keeps its layer's VL; the hop to an
	// HCA, and every HCA, VL 0.
	for s := 0; s < g.S; s++ {
		r := net.Nodes[s].Radix
		for k := 0; k < nd; k++ {
			for di := 0; di < 2; di++ {
				for _, a := range cables[s][2*k+di] {
					for in := 0; in <= r; in++ {
						for sl := 0; sl < MaxVLs; sl++ {
							vl := sl >> k & 1
							if sl >= firstDetourSL {
								vl = baseVLs + sl - firstDetourSL
							}
							t.SetVL(s, in, int(a.port), uint8(sl), uint8(min(vl, MaxVLs-1)))
						}
					}
				}
			}
		}
		for _, h := range g.hcas[s] {
			p := int(g.hcaPort[int(h)-g.S])
			for in := 0; in <= r; in++ {
				for sl := 0; sl < MaxVLs; sl++ {
					t.SetVL(s, in, p, uint8(sl), 0)
				}
			}
		}
	}
	for sl := 0; sl < MaxVLs; sl++ {
		t.SetInjectVL(uint8(sl), 0)
	}
	t.VLsNeeded = baseVLs + layers
	if t.VLsNeeded > o.VLs {
		return nil, needsVLs("torus-2qos", t.VLsNeeded, o.VLs)
	}
	t.VLsUsed = t.VLsNeeded
	var notes []string
	for k := range gap {
		if len(gap[k]) > 0 {
			notes = append(notes, fmt.Sprintf("%d ring(s) of dimension %d", len(gap[k]), k))
		}
	}
	if len(notes) > 0 {
		t.Notes = append(t.Notes, "rerouted around failed cables in "+strings.Join(notes, ", "))
	}
	if len(dead) > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d failed switch(es): %d HCA-switch paths detoured on %d extra VL(s)", len(dead), len(detours), layers))
	}
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}
