package routing

import (
	"fmt"
	"math/rand/v2"

	"flitsim/fabric"
)

// Dragonfly is the per-packet routing function of a group topology
// (fabric.Network.Groups > 0: dragonfly, cascade, aries), the basis of the
// adaptive modes of seeds/004 §2.2 (issue 16). Unlike an engine it yields no
// forwarding tables: a packet carries a Route, chosen at its source switch
// among Candidates, and every switch asks Next for the port it leaves on.
//
// A route is minimal (source group, one global cable to the destination
// group, destination group) or non-minimal after Valiant: through an
// intermediate group, with one global cable into it and one out of it.
// Inside a group a packet takes a shortest path over the group's own
// cables, the lowest port among equals. Its VL is the number of
// switch-to-switch hops it has taken (0 on the first), so VLs strictly grow
// along every path and no mode can deadlock; VLs bounds the longest route:
// 5 on a dragonfly with complete groups, 8 on Aries (two hops in a group).
type Dragonfly struct {
	net     *fabric.Network
	group   []int32   // switch → group
	pos     []int32   // switch → its index in members[group]
	members [][]int32 // group → its switches in node order
	// intra[s][i] is the port of switch s toward the i-th switch of its
	// group on a shortest path inside the group (0 for s itself), dist[s][i]
	// the hops.
	intra [][]int16
	dist  [][]int16
	// gates[g][h] lists the global cables from group g to group h as
	// (switch of g, port), in switch and port order.
	gates [][][]Gate
	// VLs is the most switch-to-switch hops of any route (the VLs a
	// network needs to run every route).
	VLs int
	// oneVL puts every hop on VL 0 (tests: the routes' dependencies then
	// close cycles, which Verify must find).
	oneVL bool
	// Spread: a hop inside a group takes, among the ports on a shortest
	// path (parallel cables and the two orders of a two-hop way), the one
	// its route's Spread picks (routing option spread), instead of the
	// lowest; ways[s][i] lists them.
	Spread bool
	ways   [][][]int16
}

// Gate is the end of a global cable at a switch.
type Gate struct {
	Switch int32
	Port   int16
	// To is the switch at the cable's far end.
	To int32
}

// Route is the path choice a packet carries. Gate[k] picks the cable of
// the k-th global hop among those between its two groups (modulo their
// number); Via is the intermediate group of a non-minimal route, -1 for a
// minimal one. Phase becomes 1 when the packet has reached Via; Hops counts
// the switch-to-switch hops taken, its VL on the next one.
type Route struct {
	Via   int16
	Gate  [2]int16
	Phase uint8
	Hops  uint8
	// Spread picks among the equal shortest ways of a hop inside a group
	// when the Dragonfly spreads (Spread; 0: the lowest port), as a hash
	// of the packet picks them on Aries.
	Spread uint32
}

// Minimal reports whether r takes no detour.
func (r Route) Minimal() bool { return r.Via < 0 }

// NewDragonfly prepares the routing function of net. It needs every group
// connected by its own cables and a global cable between every two groups
// (a non-minimal route may take any third group).
func NewDragonfly(net *fabric.Network) (*Dragonfly, error) {
	if net.Groups < 1 {
		return nil, fmt.Errorf("%s has no groups: per-packet dragonfly routing needs a dragonfly, cascade or aries topology", net.Name)
	}
	S := net.NumSwitches
	d := &Dragonfly{net: net, group: make([]int32, S), pos: make([]int32, S), members: make([][]int32, net.Groups),
		intra: make([][]int16, S), dist: make([][]int16, S), gates: make([][][]Gate, net.Groups), ways: make([][][]int16, S)}
	for s := 0; s < S; s++ {
		g := net.Nodes[s].Group
		d.group[s], d.pos[s] = int32(g), int32(len(d.members[g]))
		d.members[g] = append(d.members[g], int32(s))
	}
	for g := range d.gates {
		d.gates[g] = make([][]Gate, net.Groups)
	}
	g := newGraph(net)
	for s := 0; s < S; s++ {
		for _, a := range g.out[s] {
			if gs, gt := d.group[s], d.group[a.to]; gs != gt {
				d.gates[gs][gt] = append(d.gates[gs][gt], Gate{Switch: int32(s), Port: int16(a.port), To: int32(a.to)})
			}
		}
	}
	for grp, ms := range d.members {
		if len(ms) == 0 {
			return nil, fmt.Errorf("%s: group %d has no switch left", net.Name, grp)
		}
		for h := range d.members {
			if h != grp && len(d.gates[grp][h]) == 0 {
				return nil, fmt.Errorf("%s: no global cable between groups %d and %d", net.Name, grp, h)
			}
		}
		if err := d.groupPaths(g, grp); err != nil {
			return nil, err
		}
	}
	// The longest route: across the source group to its gate, the global
	// hop, across the intermediate group, the second global hop and across
	// the destination group.
	diam := 0
	for s := range d.dist {
		for _, x := range d.dist[s] {
			diam = max(diam, int(x))
		}
	}
	d.VLs = diam
	if net.Groups > 1 { // a detour through another group is possible
		d.VLs = 3*diam + 2
	}
	return d, nil
}

// groupPaths fills intra and dist for the switches of group grp by a
// breadth-first search over the group's own cables from every switch
// backwards: the port toward t is the lowest port at one hop less.
func (d *Dragonfly) groupPaths(g *graph, grp int) error {
	ms := d.members[grp]
	n := len(ms)
	for _, s := range ms {
		d.intra[s], d.dist[s] = make([]int16, n), make([]int16, n)
		for i := range d.dist[s] {
			d.dist[s][i] = -1
		}
		d.dist[s][d.pos[s]] = 0
	}
	queue := make([]int32, 0, n)
	for ti, t := range ms {
		queue = append(queue[:0], t)
		for h := 0; h < len(queue); h++ {
			u := queue[h]
			for _, a := range g.out[u] {
				// a is u→v; the search goes backwards, so v is u's
				// successor: the port of v toward t is a cable v→u.
				v := a.to
				if d.group[v] != int32(grp) || d.dist[v][ti] >= 0 {
					continue
				}
				d.dist[v][ti] = d.dist[u][ti] + 1
				queue = append(queue, v)
			}
		}
		for _, s := range ms {
			if d.dist[s][ti] < 0 {
				return fmt.Errorf("%s: switch %s cannot reach %s inside group %d", d.net.Name, d.net.Nodes[s].Name, d.net.Nodes[t].Name, grp)
			}
			if s == t {
				continue
			}
			var ways []int16
			for _, a := range g.out[s] { // port order: the lowest first
				if d.group[a.to] == int32(grp) && d.dist[a.to][ti] == d.dist[s][ti]-1 {
					ways = append(ways, int16(a.port))
				}
			}
			d.intra[s][ti] = ways[0]
			if len(ways) > 1 {
				if d.ways[s] == nil {
					d.ways[s] = make([][]int16, n)
				}
				d.ways[s][ti] = ways
			}
		}
	}
	return nil
}

// Group returns the group of switch s.
func (d *Dragonfly) Group(s int) int { return int(d.group[s]) }

// Candidates appends to out the routes a packet from switch src to switch
// dst chooses among (seeds/004 §2.2): two minimal ones and, when a third
// group exists, two non-minimal ones through intermediate groups drawn at
// random (neither the source's nor the destination's), every global cable
// drawn at random among those between its groups. The draws come from rng
// in this order: per minimal route its cable; per non-minimal route its
// group and its two cables.
func (d *Dragonfly) Candidates(src, dst int, rng *rand.Rand, out []Route) []Route {
	gs, gd := d.group[src], d.group[dst]
	for k := 0; k < 2; k++ {
		r := Route{Via: -1, Phase: 1}
		if gs != gd {
			r.Gate[0] = int16(rng.IntN(len(d.gates[gs][gd])))
		}
		out = append(out, r)
	}
	others := len(d.members) - 1
	if gs != gd {
		others--
	}
	if others < 1 {
		return out
	}
	for k := 0; k < 2; k++ {
		v := int32(rng.IntN(others)) // the v-th group other than gs and gd
		for _, skip := range sortedPair(gs, gd) {
			if v >= skip {
				v++
			}
		}
		r := Route{Via: int16(v)}
		r.Gate[0] = int16(rng.IntN(len(d.gates[gs][v])))
		r.Gate[1] = int16(rng.IntN(len(d.gates[v][gd])))
		out = append(out, r)
	}
	return out
}

// Hashed returns the one route of a packet from switch src to switch dst
// in hashing mode m with key (HashKey): a minimal route whose global cable
// the key picks, or in ModeNMinHash a non-minimal one whose intermediate
// group and cables it picks (minimal without a third group).
func (d *Dragonfly) Hashed(m Mode, src, dst int, key uint64) Route {
	gs, gd := d.group[src], d.group[dst]
	r := Route{Via: -1, Phase: 1}
	others := len(d.members) - 1
	if gs != gd {
		others--
	}
	if m != ModeNMinHash || others < 1 {
		if gs != gd {
			r.Gate[0] = int16(key % uint64(len(d.gates[gs][gd])))
		}
		return r
	}
	v := int32(key % uint64(others))
	for _, skip := range sortedPair(gs, gd) {
		if v >= skip {
			v++
		}
	}
	key /= uint64(others)
	r = Route{Via: int16(v)}
	r.Gate[0] = int16(key % uint64(len(d.gates[gs][v])))
	key /= uint64(len(d.gates[gs][v]))
	r.Gate[1] = int16(key % uint64(len(d.gates[v][gd])))
	return r
}

// sortedPair returns the distinct values of a and b in increasing order.
func sortedPair(a, b int32) []int32 {
	switch {
	case a == b:
		return []int32{a}
	case a < b:
		return []int32{a, b}
	}
	return []int32{b, a}
}

// Next returns the port a packet on route r leaves switch s by on its way
// to switch dst, and the VL it takes, and advances r; port 0 means the
// packet has arrived at dst's switch: it leaves by its HCA's port on the VL
// it arrived on (VL 0 when it never left its source switch). A switch
// ejects first: a detour whose way passes the destination's switch ends
// there.
func (d *Dragonfly) Next(s, dst int, r *Route) (port, vl int) {
	if s == dst {
		if r.Hops == 0 || d.oneVL {
			return 0, 0
		}
		return 0, int(r.Hops) - 1
	}
	g, gd := d.group[s], d.group[dst]
	if r.Via >= 0 && r.Phase == 0 && g == int32(r.Via) {
		r.Phase = 1
	}
	target, k := gd, 0
	switch {
	case r.Via >= 0 && r.Phase == 0:
		target = int32(r.Via)
	case r.Via >= 0:
		k = 1
	}
	vl = int(r.Hops)
	if d.oneVL {
		vl = 0
	}
	r.Hops++
	if g == target { // inside the destination group
		return d.intraPort(s, d.pos[dst], r), vl
	}
	gl := d.gates[g][target]
	gate := gl[int(r.Gate[k])%len(gl)]
	if gate.Switch == int32(s) {
		return int(gate.Port), vl
	}
	return d.intraPort(s, d.pos[gate.Switch], r), vl
}

// intraPort is the port of switch s toward the i-th switch of its group for
// route r (whose Hops already count this hop): the lowest on a shortest
// path, or with Spread the one r.Spread picks for this hop.
func (d *Dragonfly) intraPort(s int, i int32, r *Route) int {
	if d.Spread && r.Spread != 0 && d.ways[s] != nil {
		if w := d.ways[s][i]; len(w) > 1 {
			x := (r.Spread ^ uint32(r.Hops)*0x9e3779b9) * 0x85ebca6b
			return int(w[(x>>16)%uint32(len(w))])
		}
	}
	return int(d.intra[s][i])
}

// SpreadKey is the Spread of a packet's routes: nonzero, from its hash key
// (HashKey with SpreadMode).
func SpreadKey(key uint64) uint32 { return uint32(key>>32) | 1 }

// SpreadMode is the mode whose HashKey spreads a packet of mode m: its
// pair alone in ModeInOrder (one path per pair), else the packet too.
func SpreadMode(m Mode) Mode {
	if m == ModeInOrder {
		return m
	}
	return ModeMinHash
}

// Hops returns the switch-to-switch hops of route r from src to dst: the
// hops to each leg's gate switch inside a group, one per global cable, and
// the hops to dst inside its group, as Next would walk them. (An adaptive
// simulator asks this for every candidate of every packet.) Only a detour
// still in the destination's group may pass dst's switch on its way out,
// where a switch ejects it first; that leg is walked.
func (d *Dragonfly) Hops(src, dst int, r Route) int {
	s, n := int32(src), 0
	g, gd := d.group[s], d.group[dst]
	if r.Via >= 0 && r.Phase == 0 {
		if g == gd {
			if g == int32(r.Via) {
				return d.walkHops(src, dst, r)
			}
			// The leg to the gate may pass dst's switch: walk it (at most
			// the group's diameter), then count the rest.
			gl := d.gates[g][r.Via]
			gate := gl[int(r.Gate[0])%len(gl)]
			for s != gate.Switch {
				if s == int32(dst) {
					return n
				}
				r.Hops++
				e, _ := d.net.Peer(int(s), d.intraPort(int(s), d.pos[gate.Switch], &r))
				s, n = e.Node, n+1
			}
			if s == int32(dst) {
				return n
			}
			n++
			s, g = gate.To, int32(r.Via)
		} else if g != int32(r.Via) {
			gl := d.gates[g][r.Via]
			gate := gl[int(r.Gate[0])%len(gl)]
			n += int(d.dist[s][d.pos[gate.Switch]]) + 1
			s, g = gate.To, int32(r.Via)
		}
	}
	if g != gd {
		k := 0
		if r.Via >= 0 {
			k = 1
		}
		gl := d.gates[g][gd]
		gate := gl[int(r.Gate[k])%len(gl)]
		n += int(d.dist[s][d.pos[gate.Switch]]) + 1
		s = gate.To
	}
	return n + int(d.dist[s][d.pos[dst]])
}

// walkHops counts the hops of route r from src to dst by walking it.
func (d *Dragonfly) walkHops(src, dst int, r Route) int {
	n := 0
	for s := src; s != dst; n++ {
		p, _ := d.Next(s, dst, &r)
		e, _ := d.net.Peer(s, p)
		s = int(e.Node)
	}
	return n
}

// Verify walks every route of every switch pair, with every intermediate
// group and every global cable, and every route ugal-imb can switch to on
// the way (a non-minimal route giving way to a minimal one at a further
// switch of its source group), checks that it arrives within VLs hops,
// and checks that the union of their channel dependencies over (channel,
// VL) is acyclic. It returns the number of routes walked. A spreading
// Dragonfly's routes take other shortest ways inside groups than the
// lowest-port ones walked, with the same hops and the same VL rule (one
// more per hop), so their dependencies go from VL k to k+1 as well and the
// union stays acyclic.
func (d *Dragonfly) Verify() (int, error) {
	g := newGraph(d.net)
	c := &cdg{}
	walked := 0
	node := func(ch int32, vl int) int32 { return ch*int32(d.VLs) + int32(vl) }
	var walkFrom func(src, s, dst int, r Route, prev int32) error
	walkFrom = func(src, s, dst int, r Route, prev int32) error {
		gs, gd := d.group[src], d.group[dst]
		for s != dst {
			if int(r.Hops) >= d.VLs {
				return fmt.Errorf("route %+v from %s to %s takes more than %d hops", r, d.net.Nodes[src].Name, d.net.Nodes[dst].Name, d.VLs)
			}
			if !r.Minimal() && r.Phase == 0 && r.Hops > 0 && d.group[s] == gs {
				// ugal-imb may switch to any minimal route here.
				n := 1
				if gs != gd {
					n = len(d.gates[gs][gd])
				}
				for k := 0; k < n; k++ {
					if err := walkFrom(src, s, dst, Route{Via: -1, Phase: 1, Gate: [2]int16{int16(k)}, Hops: r.Hops}, prev); err != nil {
						return err
					}
				}
			}
			p, vl := d.Next(s, dst, &r)
			ch := int32(-1)
			if p > 0 {
				ch = g.chans.At(s, p)
			}
			if ch < 0 {
				return fmt.Errorf("route %+v from %s to %s: no cable at %s port %d", r, d.net.Nodes[src].Name, d.net.Nodes[dst].Name, d.net.Nodes[s].Name, p)
			}
			cur := node(ch, vl)
			if prev >= 0 {
				c.use(prev, cur)
			}
			prev, s = cur, int(g.chTo(ch))
		}
		walked++
		return nil
	}
	walk := func(src, dst int, r Route) error { return walkFrom(src, src, dst, r, -1) }
	S := d.net.NumSwitches
	for src := 0; src < S; src++ {
		for dst := 0; dst < S; dst++ {
			if src == dst {
				continue
			}
			gs, gd := d.group[src], d.group[dst]
			if gs == gd {
				if err := walk(src, dst, Route{Via: -1, Phase: 1}); err != nil {
					return walked, err
				}
			} else {
				for k := range d.gates[gs][gd] {
					if err := walk(src, dst, Route{Via: -1, Phase: 1, Gate: [2]int16{int16(k)}}); err != nil {
						return walked, err
					}
				}
			}
			for v := range d.members {
				if int32(v) == gs || int32(v) == gd {
					continue
				}
				for k0 := range d.gates[gs][v] {
					for k1 := range d.gates[v][gd] {
						if err := walk(src, dst, Route{Via: int16(v), Gate: [2]int16{int16(k0), int16(k1)}}); err != nil {
							return walked, err
						}
					}
				}
			}
		}
	}
	c.layout()
	if cyc := c.findCycle(); cyc != nil {
		return walked, fmt.Errorf("the routes' channel dependencies have a cycle of %d (channel, VL) pairs", len(cyc))
	}
	return walked, nil
}
