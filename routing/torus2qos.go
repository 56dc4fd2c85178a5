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
// possible in a line). Two such gaps in one ring, a gap in a mesh line, or a
// failed switch cannot be routed this way, and the engine fails cleanly.
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
	if g.S != total {
		return nil, fail("%d of %d switches failed; switch failures are not supported", total-g.S, total)
	}
	if 1<<nd > o.VLs {
		return nil, needsVLs("torus-2qos", 1<<nd, o.VLs)
	}
	// Switch by coordinates, and per switch/dimension/direction its cables.
	key := func(c []int) int {
		k := 0
		for i := nd - 1; i >= 0; i-- {
			k = k*dims[i] + c[i]
		}
		return k
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
	// cables[s][k*2+dir] lists the arcs from s to its neighbour in (k, dir).
	cables := make([][][]arc, g.S)
	nbr := make([]int, nd)
	for s := 0; s < g.S; s++ {
		cables[s] = make([][]arc, 2*nd)
		c := net.Nodes[s].Coord
		for k := 0; k < nd; k++ {
			for di, dir := range []int{1, -1} {
				x, ok := step(c, k, dir)
				if !ok || x == c[k] {
					continue
				}
				copy(nbr, c)
				nbr[k] = x
				n := at[key(nbr)]
				for _, a := range g.out[s] {
					if a.to == n {
						cables[s][2*k+di] = append(cables[s][2*k+di], a)
					}
				}
			}
		}
	}
	// gap[line] = the coordinate x whose + neighbour is unreachable, per
	// ring or line (identified by the switch at coordinate 0 of dimension k).
	gap := make([]map[int]int, nd)
	for k := 0; k < nd; k++ {
		gap[k] = map[int]int{}
		for s := 0; s < g.S; s++ {
			c := net.Nodes[s].Coord
			if _, ok := step(c, k, 1); !ok || len(cables[s][2*k]) > 0 || (dims[k] == 2 && c[k] == 1) {
				continue
			}
			copy(nbr, c)
			nbr[k] = 0
			line := key(nbr)
			if !wrap[k] || dims[k] <= 2 {
				return nil, fail("a failed cable splits the dimension-%d line through %s", k, net.Nodes[s].Name)
			}
			if prev, dup := gap[k][line]; dup {
				return nil, fail("two failed cables in the dimension-%d ring through %s (after coordinates %d and %d)",
					k, net.Nodes[at[line]].Name, prev, c[k])
			}
			gap[k][line] = c[k]
		}
	}
	// dirOf returns the direction (+1/−1) the segment a→b of dimension k
	// takes in the line whose coordinate-0 switch is line, and whether it
	// crosses the wrap-around cable.
	dirOf := func(k, line, a, b int) (dir int, cross bool) {
		if !wrap[k] {
			if b > a {
				return 1, false
			}
			return -1, false
		}
		d := dims[k]
		f := ((b-a)%d + d) % d
		dir = 1
		if d-f < f {
			dir = -1
		}
		if x, broken := gap[k][line]; broken {
			// Does the chosen way cross the gap (the cable x → x+1)?
			crosses := false
			for p, i := a, 0; p != b && i < d; i++ {
				q := (p + dir + d) % d
				if (dir == 1 && p == x) || (dir == -1 && q == x) {
					crosses = true
					break
				}
				p = q
			}
			if crosses {
				dir = -dir
			}
		}
		if dir == 1 {
			return dir, b < a
		}
		return dir, b > a
	}
	t := NewTables(net, "torus-2qos")
	g.setHCAPorts(t)
	load := make([][]int32, g.S)
	for s := range load {
		load[s] = make([]int32, net.Nodes[s].Radix+1)
	}
	cur := make([]int, nd)
	line := func(c []int, k int) int {
		copy(nbr, c)
		nbr[k] = 0
		return key(nbr)
	}
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		ct := net.Nodes[dst].Coord
		for u := 0; u < g.S; u++ {
			if u == dst {
				continue
			}
			cu := net.Nodes[u].Coord
			copy(cur, cu)
			sl := uint8(0)
			first := -1
			for k := 0; k < nd; k++ {
				if cur[k] == ct[k] {
					continue
				}
				// The dimension-k segment runs in the line the path has
				// reached after correcting dimensions < k.
				dir, cross := dirOf(k, line(cur, k), cur[k], ct[k])
				cur[k] = ct[k]
				if cross {
					sl |= 1 << k
				}
				if first < 0 {
					first = 2 * k
					if dir < 0 {
						first++
					}
				}
			}
			best := int32(-1)
			for _, a := range cables[u][first] {
				if best < 0 || load[u][a.port] < load[u][best] {
					best = a.port
				}
			}
			if best < 0 {
				return nil, fail("no cable from %s in dimension %d", net.Nodes[u].Name, first/2)
			}
			t.SetPort(u, lid, int(best))
			load[u][best]++
			if g.numHCAs(u) > 0 {
				t.SetSL(u, lid, sl)
			}
		}
	}
	// SL→VL: a hop in dimension k uses the SL's bit k; the hop to an HCA VL 0.
	for s := 0; s < g.S; s++ {
		r := net.Nodes[s].Radix
		for k := 0; k < nd; k++ {
			for di := 0; di < 2; di++ {
				for _, a := range cables[s][2*k+di] {
					for in := 0; in <= r; in++ {
						for sl := 0; sl < 1<<nd; sl++ {
							t.SetVL(s, in, int(a.port), uint8(sl), uint8(sl>>k&1))
						}
					}
				}
			}
		}
		for _, h := range g.hcas[s] {
			p := int(g.hcaPort[int(h)-g.S])
			for in := 0; in <= r; in++ {
				for sl := 0; sl < 1<<nd; sl++ {
					t.SetVL(s, in, p, uint8(sl), 0)
				}
			}
		}
	}
	rings := 0
	for _, w := range wrap {
		if w {
			rings++
		}
	}
	t.VLsNeeded, t.VLsUsed = 1, 1
	if rings > 0 {
		t.VLsNeeded, t.VLsUsed = 2, 2
	}
	var gaps []string
	for k := range gap {
		if len(gap[k]) > 0 {
			gaps = append(gaps, fmt.Sprintf("%d ring(s) of dimension %d", len(gap[k]), k))
		}
	}
	if len(gaps) > 0 {
		t.Notes = append(t.Notes, "rerouted around failed cables in "+strings.Join(gaps, ", "))
	}
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}
