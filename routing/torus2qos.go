package routing

import (
	"fmt"
	"strings"

	"flitsim/fabric"
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
//
// With Options.PathVLs there are no SL→VL tables: a packet travels on VL =
// its SL from its HCA to the destination, as in the Mellanox OMNeT++ model
// (no SL-to-VL mapping; the thesis' simulator). A clean path then sits on
// the VL of its dateline bits, all 2^n of them for n dimensions, and each
// VL is still acyclic: a VL whose bit k is set holds only ring-k segments
// that cross the wrap-around cable, none reaching the ring's middle; a VL
// whose bit k is clear never holds it. Detour layers take the VLs from 2^n
// up, so a 3D torus has no VL left for them.
func routeTorus2QoS(g *graph, o Options) (*Tables, error) {
	r, err := newTorus2QoS(g)
	if err != nil {
		return nil, err
	}
	if err := r.findFailures(); err != nil {
		return nil, err
	}
	if err := r.routeDestinations(); err != nil {
		return nil, err
	}
	r.pathVLs = o.PathVLs
	layers, err := r.layerDetours(o.VLs)
	if err != nil {
		return nil, err
	}
	if !r.pathVLs {
		r.setVLs()
	}
	t := r.t
	t.VLsNeeded = r.baseVLs() + layers
	if t.VLsNeeded > o.VLs {
		return nil, needsVLs("torus-2qos", t.VLsNeeded, o.VLs)
	}
	t.VLsUsed = t.VLsNeeded
	r.addNotes(layers)
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}

// Switch states while one destination is routed.
const (
	t2qUnknown  int8 = iota
	t2qOnWay         // on the dimension-order walk being followed
	t2qClean         // its dimension-order path reaches the destination
	t2qDetoured      // its dimension-order path runs into a failure
)

// torus2qos is one Torus-2QoS routing in progress: the grid, its failures,
// the tables being filled and the work space of one destination switch.
//
// Directions are indexed 2k+di: dimension k, the + way (di 0) or the − way
// (di 1). A line (a ring, or a mesh line) of dimension k is named by the
// coordinate key of its switch at coordinate 0 in k.
type torus2qos struct {
	g    *graph
	net  *fabric.Network
	t    *Tables
	dims []int
	wrap []bool
	nd   int
	// at is the switch at every coordinate key (-1: failed); dead lists
	// the keys of the failed switches.
	at   []int32
	dead []int
	// cables[s][2k+di] are the arcs from s to its neighbour that way;
	// next[s][2k+di] is that neighbour's coordinate key (-1 none), alive
	// or not.
	cables [][][]arc
	next   [][]int
	// gap[k][line] is the coordinate x whose cables to x+1 all failed
	// (both switches alive); down[k][line] the coordinate of a failed
	// switch.
	gap, down []map[int]int
	nbr       []int // scratch coordinates

	load [][]int32 // per switch and port: destinations routed through it
	// Per destination switch: every switch's hop direction, SL, state
	// and hops to the destination (-1 unknown).
	hop   []int
	sls   []uint8
	state []int8
	dist  []int32
	chain []int
	// detours are the HCA-carrying switches whose path to lid is detoured.
	detours []t2qDetour
	// pathVLs: VL = SL on every hop (no SL→VL tables), Options.PathVLs.
	pathVLs bool
}

// t2qDetour is a detoured path: from switch u to lid on switch dst.
type t2qDetour struct {
	u, dst int
	lid    uint16
}

func t2qFail(format string, v ...any) error {
	return &Failure{Engine: "torus-2qos", Reason: fmt.Sprintf(format, v...)}
}

// newTorus2QoS checks that the network is a generated 1-3 dimensional mesh
// or torus and maps its grid: switches by coordinates, cables by direction.
func newTorus2QoS(g *graph) (*torus2qos, error) {
	net := g.net
	if net.Dims == nil {
		return nil, t2qFail("needs a generated mesh or torus (switch coordinates)")
	}
	nd := len(net.Dims)
	if nd > 3 {
		return nil, t2qFail("routes 1-3 dimensions, not %d", nd)
	}
	r := &torus2qos{g: g, net: net, dims: net.Dims, wrap: net.Wrap, nd: nd, nbr: make([]int, nd)}
	total := 1
	for _, d := range r.dims {
		total *= d
	}
	r.at = make([]int32, total)
	for i := range r.at {
		r.at[i] = -1
	}
	for s := 0; s < g.S; s++ {
		c := net.Nodes[s].Coord
		if len(c) != nd {
			return nil, t2qFail("switch %s has no coordinates", net.Nodes[s].Name)
		}
		r.at[r.key(c)] = int32(s)
	}
	for k, s := range r.at {
		if s < 0 {
			r.dead = append(r.dead, k)
		}
	}
	r.mapCables()
	return r, nil
}

// mapCables fills cables and next for every switch and direction.
func (r *torus2qos) mapCables() {
	g := r.g
	r.cables = make([][][]arc, g.S)
	r.next = make([][]int, g.S)
	for s := 0; s < g.S; s++ {
		r.cables[s] = make([][]arc, 2*r.nd)
		r.next[s] = make([]int, 2*r.nd)
		c := r.net.Nodes[s].Coord
		for k := 0; k < r.nd; k++ {
			for di, dir := range []int{1, -1} {
				r.next[s][2*k+di] = -1
				x, ok := r.step(c, k, dir)
				if !ok || x == c[k] {
					continue
				}
				copy(r.nbr, c)
				r.nbr[k] = x
				r.next[s][2*k+di] = r.key(r.nbr)
				n := r.at[r.key(r.nbr)]
				for _, a := range g.out[s] {
					if n >= 0 && a.to == n {
						r.cables[s][2*k+di] = append(r.cables[s][2*k+di], a)
					}
				}
			}
		}
	}
}

// key returns the coordinate key of coordinates c.
func (r *torus2qos) key(c []int) int {
	k := 0
	for i := r.nd - 1; i >= 0; i-- {
		k = k*r.dims[i] + c[i]
	}
	return k
}

// coordOf returns the coordinates of key k.
func (r *torus2qos) coordOf(k int) []int {
	c := make([]int, r.nd)
	for i := 0; i < r.nd; i++ {
		c[i] = k % r.dims[i]
		k /= r.dims[i]
	}
	return c
}

// nameOf names the switch at coordinate key k, or gives its coordinates.
func (r *torus2qos) nameOf(k int) string {
	if s := r.at[k]; s >= 0 {
		return r.net.Nodes[s].Name
	}
	return fmt.Sprintf("%v (failed)", r.coordOf(k))
}

// step returns the coordinate of c's neighbour in dimension k the dir
// (+1/−1) way, and whether there is one.
func (r *torus2qos) step(c []int, k, dir int) (int, bool) {
	x := c[k] + dir
	if x < 0 || x >= r.dims[k] {
		if !r.wrap[k] {
			return 0, false
		}
		x = (x + r.dims[k]) % r.dims[k]
	}
	return x, true
}

// lineOf returns the line of dimension k through coordinates c.
func (r *torus2qos) lineOf(c []int, k int) int {
	copy(r.nbr, c)
	r.nbr[k] = 0
	return r.key(r.nbr)
}

// findFailures fills gap and down, and fails on what the engine cannot
// route around: two failures in one ring, a failed cable in a mesh line.
func (r *torus2qos) findFailures() error {
	r.gap = make([]map[int]int, r.nd)
	r.down = make([]map[int]int, r.nd)
	for k := 0; k < r.nd; k++ {
		r.gap[k], r.down[k] = map[int]int{}, map[int]int{}
		if err := r.findDeadSwitches(k); err != nil {
			return err
		}
		if err := r.findGaps(k); err != nil {
			return err
		}
	}
	return nil
}

// findDeadSwitches records the failed switch of every line of dimension k.
func (r *torus2qos) findDeadSwitches(k int) error {
	for _, dk := range r.dead {
		c := r.coordOf(dk)
		line := r.lineOf(c, k)
		if prev, dup := r.down[k][line]; dup && r.dims[k] > 1 {
			return t2qFail("two failed switches in the dimension-%d ring through %s (coordinates %d and %d)",
				k, r.nameOf(line), prev, c[k])
		}
		r.down[k][line] = c[k]
	}
	return nil
}

// findGaps records the failed cable of every ring of dimension k.
func (r *torus2qos) findGaps(k int) error {
	for s := 0; s < r.g.S; s++ {
		c := r.net.Nodes[s].Coord
		if r.next[s][2*k] < 0 || r.at[r.next[s][2*k]] < 0 || len(r.cables[s][2*k]) > 0 || (r.dims[k] == 2 && c[k] == 1) {
			continue
		}
		line := r.lineOf(c, k)
		if !r.wrap[k] || r.dims[k] <= 2 {
			return t2qFail("a failed cable splits the dimension-%d line through %s", k, r.net.Nodes[s].Name)
		}
		if prev, dup := r.gap[k][line]; dup {
			return t2qFail("two failed cables in the dimension-%d ring through %s (after coordinates %d and %d)",
				k, r.nameOf(line), prev, c[k])
		}
		if x, dup := r.down[k][line]; dup {
			return t2qFail("a failed cable (after coordinate %d) and a failed switch (coordinate %d) in the dimension-%d ring through %s",
				c[k], x, k, r.nameOf(line))
		}
		r.gap[k][line] = c[k]
	}
	return nil
}

// dirOf returns the direction (+1/−1) the segment a→b of dimension k takes
// in line: the shorter way round a ring (+ among equals) unless that
// crosses the ring's gap.
func (r *torus2qos) dirOf(k, line, a, b int) int {
	if !r.wrap[k] {
		if b > a {
			return 1
		}
		return -1
	}
	d := r.dims[k]
	f := ((b-a)%d + d) % d
	dir := 1
	if d-f < f {
		dir = -1
	}
	if x, broken := r.gap[k][line]; broken {
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

// baseHop returns the direction index of the dimension-order hop from
// switch u towards coordinates ct, or -1 at ct.
func (r *torus2qos) baseHop(u int, ct []int) int {
	cu := r.net.Nodes[u].Coord
	for k := 0; k < r.nd; k++ {
		if cu[k] != ct[k] {
			if r.dirOf(k, r.lineOf(cu, k), cu[k], ct[k]) > 0 {
				return 2 * k
			}
			return 2*k + 1
		}
	}
	return -1
}

// neighbour returns the switch at the far end of direction h from u
// (-1: failed).
func (r *torus2qos) neighbour(u, h int) int { return int(r.at[r.next[u][h]]) }

// routeDestinations fills the LFTs and the SLs of the clean paths,
// destination by destination, and collects the detoured paths.
func (r *torus2qos) routeDestinations() error {
	g := r.g
	r.t = NewTables(r.net, "torus-2qos")
	g.setHCAPorts(r.t)
	r.load = g.portCounters()
	r.hop, r.sls = make([]int, g.S), make([]uint8, g.S)
	r.state, r.dist = make([]int8, g.S), make([]int32, g.S)
	destSwitch := -1
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		if dst != destSwitch {
			destSwitch = dst
			if err := r.planToward(dst); err != nil {
				return err
			}
		}
		if err := r.setPorts(dst, lid); err != nil {
			return err
		}
	}
	return nil
}

// planToward computes every switch's hop toward switch dst, and the SLs
// of the clean paths.
func (r *torus2qos) planToward(dst int) error {
	ct := r.net.Nodes[dst].Coord
	for u := range r.hop {
		r.hop[u], r.state[u], r.dist[u] = r.baseHop(u, ct), t2qUnknown, -1
	}
	r.state[dst], r.dist[dst] = t2qClean, 0
	r.classify()
	if err := r.detour(dst); err != nil {
		return err
	}
	r.cleanSLs(dst)
	return nil
}

// classify marks every switch clean, with its hops to the destination, or
// detoured: clean when its dimension-order path reaches the destination.
func (r *torus2qos) classify() {
	for u := range r.state {
		r.chain = r.chain[:0]
		v := u
		for r.state[v] == t2qUnknown {
			r.state[v] = t2qOnWay
			r.chain = append(r.chain, v)
			if len(r.cables[v][r.hop[v]]) == 0 { // the neighbour or every cable to it failed
				v = -1
				break
			}
			v = r.neighbour(v, r.hop[v])
		}
		st, d := t2qDetoured, int32(-1)
		if v >= 0 && r.state[v] == t2qClean {
			st, d = t2qClean, r.dist[v]
		}
		for j := len(r.chain) - 1; j >= 0; j-- {
			w := r.chain[j]
			r.state[w] = st
			if st == t2qClean {
				d++
				r.dist[w] = d
			}
		}
	}
}

// detour sends every detoured switch the shortest way to a clean one (the
// lowest direction among equals).
func (r *torus2qos) detour(dst int) error {
	var dirty []int
	for u, st := range r.state {
		if st == t2qDetoured {
			dirty = append(dirty, u)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, u := range dirty {
			for h := 0; h < 2*r.nd; h++ {
				if len(r.cables[u][h]) == 0 {
					continue
				}
				if v := r.neighbour(u, h); r.dist[v] >= 0 && (r.dist[u] < 0 || r.dist[v]+1 < r.dist[u]) {
					r.dist[u] = r.dist[v] + 1
					changed = true
				}
			}
		}
	}
	for _, u := range dirty {
		if r.dist[u] < 0 {
			return t2qFail("%s cannot reach %s around the failed switches", r.net.Nodes[u].Name, r.net.Nodes[dst].Name)
		}
		for h := 0; h < 2*r.nd; h++ {
			if len(r.cables[u][h]) > 0 && r.dist[r.neighbour(u, h)] == r.dist[u]-1 {
				r.hop[u] = h
				break
			}
		}
	}
	return nil
}

// cleanSLs sets the SL of every clean path from an HCA-carrying switch to
// dst: bit k set when the path crosses the dateline of dimension k.
func (r *torus2qos) cleanSLs(dst int) {
	for u := 0; u < r.g.S; u++ {
		if u == dst || r.g.numHCAs(u) == 0 || r.state[u] != t2qClean {
			continue
		}
		sl := uint8(0)
		for v := u; v != dst; v = r.neighbour(v, r.hop[v]) {
			k, di := r.hop[v]/2, r.hop[v]%2
			c := r.net.Nodes[v].Coord
			x, _ := r.step(c, k, 1-2*di)
			if (di == 0 && x < c[k]) || (di == 1 && x > c[k]) {
				sl |= 1 << k
			}
		}
		r.sls[u] = sl
	}
}

// setPorts routes lid (on switch dst) out of every other switch over the
// least loaded cable of its hop, sets the SLs of the clean paths and
// collects the detoured ones.
func (r *torus2qos) setPorts(dst int, lid uint16) error {
	for u := 0; u < r.g.S; u++ {
		if u == dst {
			continue
		}
		best := int32(-1)
		for _, a := range r.cables[u][r.hop[u]] {
			if best < 0 || r.load[u][a.port] < r.load[u][best] {
				best = a.port
			}
		}
		if best < 0 {
			return t2qFail("no cable from %s in dimension %d", r.net.Nodes[u].Name, r.hop[u]/2)
		}
		r.t.SetPort(u, lid, int(best))
		r.load[u][best]++
		if r.g.numHCAs(u) > 0 {
			if r.state[u] == t2qDetoured {
				r.detours = append(r.detours, t2qDetour{u, dst, lid})
			} else {
				r.t.SetSL(u, lid, r.sls[u])
			}
		}
	}
	return nil
}

// baseVLs is the number of VLs the clean paths use: 2 with a ring (the
// dateline bit), else 1; with pathVLs 2^n for n dimensions with a ring
// (the VL is the SL, every dateline bit), else 1.
func (r *torus2qos) baseVLs() int {
	for _, w := range r.wrap {
		if w && r.pathVLs {
			return r.firstDetourSL()
		}
		if w {
			return 2
		}
	}
	return 1
}

// firstDetourSL is the SL of the first detour layer, 2^n for n dimensions:
// the SLs below carry the dateline bits of clean paths.
func (r *torus2qos) firstDetourSL() int { return 1 << r.nd }

// layerDetours layers the detoured paths by cycle breaking onto the VLs
// above the clean paths', one VL per layer along the whole path, with SLs
// from firstDetourSL up, and returns the number of layers.
func (r *torus2qos) layerDetours(vls int) (int, error) {
	if len(r.detours) == 0 {
		return 0, nil
	}
	g := r.g
	ps := &pathSet{off: []int32{0}}
	in := make([]int, len(r.detours)) // detour → path index, -1 if no dependency
	for i, d := range r.detours {
		in[i] = -1
		if ps.add(g, r.t, d.u, d.dst, d.lid, int64(g.numHCAs(d.u))) {
			in[i] = ps.len() - 1
		}
	}
	layer, n, err := breakCycles(ps, maxLayers)
	if err != nil {
		return 0, t2qFail("routing around the failed switches: %v", err)
	}
	base, first := r.baseVLs(), r.firstDetourSL()
	if r.pathVLs {
		first = base // the SL is the VL: the detour layers follow the clean paths' VLs
	}
	if first+n > MaxVLs || base+n > vls {
		return 0, &Failure{Engine: "torus-2qos", VLsNeeded: base + n,
			Reason: fmt.Sprintf("the detours around the failed switches need %d more VLs (%d in all, %d available)", n, base+n, vls)}
	}
	for i, d := range r.detours {
		l := 0
		if in[i] >= 0 {
			l = int(layer[in[i]])
		}
		r.t.SetSL(d.u, d.lid, uint8(first+l))
	}
	return n, nil
}

// setVLs writes the SL→VL tables: a hop in dimension k of a clean path
// uses the SL's bit k (its dateline bit); a detoured path keeps its
// layer's VL; the hop to an HCA, and every HCA, VL 0.
func (r *torus2qos) setVLs() {
	base, first := r.baseVLs(), r.firstDetourSL()
	perDim := make([][MaxVLs]uint8, r.nd) // SL → VL on a hop in dimension k
	for k := range perDim {
		for sl := 0; sl < MaxVLs; sl++ {
			vl := sl >> k & 1
			if sl >= first {
				vl = base + sl - first
			}
			perDim[k][sl] = uint8(min(vl, MaxVLs-1))
		}
	}
	var toHCA [MaxVLs]uint8
	byOut := make([]*[MaxVLs]uint8, r.g.stride) // switch s's, by output port
	last := -1
	r.t.VLsByOutput(func(s, out int) *[MaxVLs]uint8 {
		if s != last {
			last = s
			clear(byOut)
			for k := 0; k < r.nd; k++ {
				for di := 0; di < 2; di++ {
					for _, a := range r.cables[s][2*k+di] {
						byOut[a.port] = &perDim[k]
					}
				}
			}
			for _, h := range r.g.hcas[s] {
				byOut[r.g.hcaPort[int(h)-r.g.S]] = &toHCA
			}
		}
		return byOut[out]
	})
	for sl := 0; sl < MaxVLs; sl++ {
		r.t.SetInjectVL(uint8(sl), 0)
	}
}

// addNotes tells the user which failures were routed around.
func (r *torus2qos) addNotes(layers int) {
	var notes []string
	for k := range r.gap {
		if len(r.gap[k]) > 0 {
			notes = append(notes, fmt.Sprintf("%d ring(s) of dimension %d", len(r.gap[k]), k))
		}
	}
	if len(notes) > 0 {
		r.t.Notes = append(r.t.Notes, "rerouted around failed cables in "+strings.Join(notes, ", "))
	}
	if len(r.dead) > 0 {
		r.t.Notes = append(r.t.Notes, fmt.Sprintf("%d failed switch(es): %d HCA-switch paths detoured on %d extra VL(s)", len(r.dead), len(r.detours), layers))
	}
}
