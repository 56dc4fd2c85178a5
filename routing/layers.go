package routing

import (
	"fmt"
	"math"

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

// maxPathHops is the most channel hops a pathSet holds (its offsets are
// int32): about 10 GiB of paths and as much again for cycle breaking's
// index of the paths per dependency.
const maxPathHops = math.MaxInt32

// errTooManyPaths is collectPaths' failure on networks whose path list
// would not fit.
type errTooManyPaths struct{ hops, limit int64 }

func (e errTooManyPaths) Error() string {
	return fmt.Sprintf("its path list would hold %d channel hops, more than the %d it can (≈%d GiB with cycle breaking); "+
		"route with an engine that keeps no path list (nue, updn, lash)", e.hops, e.limit, 2*4*e.hops>>30)
}

// collectPaths walks the tables from every switch with HCAs to every HCA
// destination. Paths that cross fewer than two inter-switch channels induce
// no dependency and are left out; broken paths are left to verification.
// It fails, before it runs out of memory, when the paths cross more than
// maxPathHops channels in all.
func collectPaths(g *graph, t *Tables) (*pathSet, error) {
	ps := &pathSet{off: []int32{0}}
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		for s := 0; s < g.S; s++ {
			if w := int64(g.numHCAs(s)); s != dst && w > 0 {
				ps.add(g, t, s, dst, lid, w)
			}
		}
		if i+1 < len(g.dests) && int64(len(ps.ch)) > g.maxPathHops-int64(g.S)*int64(g.S) {
			// Too close to the limit for another destination: count
			// them all without keeping them.
			if hops := g.pathHops(t); hops > g.maxPathHops {
				return nil, errTooManyPaths{hops, g.maxPathHops}
			}
		}
	}
	return ps, nil
}

// pathHops counts the channel hops of the paths collectPaths would keep.
func (g *graph) pathHops(t *Tables) int64 {
	var hops int64
	var tr destTree
	for i := range g.dests {
		g.tree(t, i, &tr)
		dst := int(g.destSwitch[i])
		for s := 0; s < g.S; s++ {
			if d := tr.depth[s]; s != dst && g.numHCAs(s) > 0 && d >= 2 {
				hops += int64(d)
			}
		}
	}
	return hops
}

// minimalPathHops is pathHops for any minimal routing: the hop distances
// from every switch with HCAs to every HCA's switch, where at least two.
func (g *graph) minimalPathHops(dist [][]int16) int64 {
	var hops int64
	for i := range g.dests {
		dst := int(g.destSwitch[i])
		for s, d := range dist[dst] {
			if s != dst && g.numHCAs(s) > 0 && d >= 2 {
				hops += int64(d)
			}
		}
	}
	return hops
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
			ch = g.chans.At(u, int(p))
		}
		if ch < 0 || steps > g.S || !g.isSwitchChannel(ch) {
			ps.ch = ps.ch[:start]
			return false
		}
		ps.ch = append(ps.ch, ch)
		to := g.chTo(ch)
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
	return breakCyclesBy(ps, limit, breakRule{}, layerWatch{})
}

// breakRule chooses the edge of a cycle to cut: the weakest (the zero
// rule), the strongest, or the first the search found.
type breakRule struct {
	strongest, first bool
	// online puts each path into the first layer that stays acyclic with
	// it instead (the paper's online variant; onlineLayers).
	online bool
}

// newBreakRule reads Options.Break ("" is weakest).
func newBreakRule(o Options) (breakRule, error) {
	switch o.Break {
	case "", "weakest":
		return breakRule{}, nil
	case "strongest":
		return breakRule{strongest: true}, nil
	case "first":
		return breakRule{first: true}, nil
	case "online":
		return breakRule{online: true}, nil
	}
	return breakRule{}, fmt.Errorf("break %q: want one of %v", o.Break, breakRules)
}

// layerWatch is a Watch for a layering (nil: none) and the number of
// layers made before its first (the tree layering's first layer, when it
// lists the paths moved on from it).
type layerWatch struct {
	w     Watch
	first int
}

// breakCyclesBy is breakCycles cutting the edge rule chooses, telling w
// how far it has come: each layer's cycles cut, or the paths the online
// rule has placed.
func breakCyclesBy(ps *pathSet, limit int, rule breakRule, w layerWatch) ([]uint8, int, error) {
	if rule.online {
		return onlineLayers(ps, limit, w.w)
	}
	layer := make([]uint8, ps.len())
	cur := make([]int32, ps.len())
	for i := range cur {
		cur[i] = int32(i)
	}
	b := cycleBreaker{rule: rule, watch: w}
	for L := 0; ; L++ {
		if len(cur) == 0 {
			return layer, max(L, 1), nil
		}
		if L >= limit {
			return nil, 0, fmt.Errorf("needs more than %d virtual layers", limit)
		}
		cur = b.breakLayer(ps, cur, layer, uint8(L))
	}
}

// onlineLayers is seeds/000's online variant of DFSSSP's layering: each
// path, in the path set's order, goes into the first layer whose channel
// dependencies stay acyclic with all of its own (all or none); a layer
// keeps a dynamic topological order (Pearce-Kelly), so a path costs a
// search of the affected region only, not the whole graph the paper's
// implementation searched.
func onlineLayers(ps *pathSet, limit int, w Watch) ([]uint8, int, error) {
	nch := 0
	for _, c := range ps.ch {
		nch = max(nch, int(c)+1)
	}
	layer := make([]uint8, ps.len())
	var layers []*cdg
	for p := range ps.len() {
		w.tell("paths placed", p, ps.len())
		ch := ps.channels(p)
		L := 0
		for ; L < limit; L++ {
			if L == len(layers) {
				layers = append(layers, newOrderedCDG(nch))
			}
			if layers[L].insertPath(ch) {
				break
			}
		}
		if L == limit {
			return nil, 0, fmt.Errorf("needs more than %d virtual layers", limit)
		}
		layer[p] = uint8(L)
	}
	w.tell("paths placed", ps.len(), ps.len())
	return layer, max(len(layers), 1), nil
}

// cycleBreaker holds the channel dependency graph of one layer, with the
// weight of every edge (the HCA pairs of the layer's paths inducing it) and
// the paths that induce it.
type cycleBreaker struct {
	deps   cdg
	weight []int64
	paths  [][]int32
	rule   breakRule
	watch  layerWatch // told each layer's cycles cut
}

// breakLayer makes layer L acyclic and returns the paths moved to L+1.
func (b *cycleBreaker) breakLayer(ps *pathSet, cur []int32, layer []uint8, L uint8) []int32 {
	b.build(ps, cur)
	var moved []int32
	cuts, stage := 0, fmt.Sprintf("layer %d: cycles cut", b.watch.first+int(L)+1)
	b.deps.searchCycles(func(cycle []int32) bool {
		moved = b.move(ps, b.rule.cut(cycle, b.weight), layer, L, moved)
		cuts++
		b.watch.w.tell(stage, cuts, 0)
		return true
	})
	return moved
}

// cut returns the edge of a cycle to cut given the edges' weights: the
// weakest (or the strongest, or the first found); among equals the
// closing one, then the first along the search path.
func (r breakRule) cut(cycle []int32, weight []int64) int32 {
	cut := cycle[len(cycle)-1]
	switch {
	case r.first:
		cut = cycle[0]
	case r.strongest:
		for _, f := range cycle[:len(cycle)-1] {
			if weight[f] > weight[cut] {
				cut = f
			}
		}
	default:
		for _, f := range cycle[:len(cycle)-1] {
			if weight[f] < weight[cut] {
				cut = f
			}
		}
	}
	return cut
}

// move takes every path of layer L that induces edge e to layer L+1.
func (b *cycleBreaker) move(ps *pathSet, e int32, layer []uint8, L uint8, moved []int32) []int32 {
	for _, p := range b.paths[e] {
		if layer[p] != L {
			continue
		}
		layer[p] = L + 1
		moved = append(moved, p)
		ch := ps.channels(int(p))
		for k := 1; k < len(ch); k++ {
			f := b.deps.edge(ch[k-1], ch[k])
			b.deps.dropUse(f)
			b.weight[f] -= ps.weight[p]
		}
	}
	return moved
}

// build makes the CDG of the given paths (in path order, so the result is
// deterministic).
func (b *cycleBreaker) build(ps *pathSet, cur []int32) {
	b.deps.reset()
	b.weight, b.paths = b.weight[:0], b.paths[:0]
	for _, p := range cur {
		ch := ps.channels(int(p))
		for k := 1; k < len(ch); k++ {
			e := b.deps.use(ch[k-1], ch[k])
			if int(e) == len(b.weight) {
				b.weight, b.paths = append(b.weight, 0), append(b.paths, nil)
			}
			b.weight[e] += ps.weight[p]
			b.paths[e] = append(b.paths[e], p)
		}
	}
	b.deps.layout()
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
	d := newLayerDealer(n, k)
	for p := range layer {
		layer[p] = d.deal(layer[p])
	}
	return d.inUse()
}

// layerDealer deals the paths of n needed layers over k available ones,
// one path at a time (balanceLayers).
type layerDealer struct {
	groups [][]uint8 // per needed layer, itself and its extras
	next   []int
	used   []bool
}

func newLayerDealer(n, k int) *layerDealer {
	d := &layerDealer{groups: make([][]uint8, n), next: make([]int, n), used: make([]bool, k)}
	for i := range d.groups {
		d.groups[i] = []uint8{uint8(i)}
	}
	for x := n; x < k; x++ {
		d.groups[(x-n)%n] = append(d.groups[(x-n)%n], uint8(x))
	}
	return d
}

// deal returns the layer the next path of layer l goes to.
func (d *layerDealer) deal(l uint8) uint8 {
	g := d.groups[l]
	to := g[d.next[l]%len(g)]
	d.next[l]++
	d.used[to] = true
	return to
}

// inUse returns how many layers the dealt paths use (at least 1).
func (d *layerDealer) inUse() int {
	c := 0
	for _, u := range d.used {
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
	ps, err := collectPaths(g, t)
	if err != nil {
		return &Failure{Engine: t.Engine, Reason: err.Error()}
	}
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

// spreadVLs deals the HCA paths of deadlock-free single-layer tables over
// the vls available, as DFSSSP balances its layers: every subset of an
// acyclic CDG is acyclic, and flows on different VLs no longer block each
// other at a shared buffer. The paths that cross two or more inter-switch
// channels, in collectPaths' order (destination by destination, source
// switches ascending), take SLs 0, 1, …, vls−1 in turn; nothing else needs
// their channels, so the walk keeps only each switch's hop count to the
// current destination, on a block of destinations copied out of the
// tables at a time.
func spreadVLs(g *graph, t *Tables, vls int) {
	if vls <= 1 {
		return
	}
	const block = 64
	S := g.S
	ports := make([]uint8, block*S)
	hops := make([]int32, S) // inter-switch channels to the destination; -1 unknown, -2 broken
	var walk []int32
	count := 0
	for lo := 0; lo < len(g.dests); lo += block {
		lids := g.dests[lo:min(lo+block, len(g.dests))]
		t.columns(lids, ports, nil)
		for j, lid := range lids {
			col, dst := ports[j*S:(j+1)*S], int32(g.destSwitch[lo+j])
			for i := range hops {
				hops[i] = -1
			}
			hops[dst] = 0
			for s := int32(0); s < int32(S); s++ {
				if s == dst || g.numHCAs(int(s)) == 0 {
					continue
				}
				walk = walk[:0]
				u, end := s, int32(-2)
				for {
					if hops[u] != -1 {
						end = hops[u]
						break
					}
					if len(walk) > S {
						break // a loop: broken
					}
					walk = append(walk, u)
					p := col[u]
					if p == NoPath || p == 0 {
						break
					}
					ch := g.chans.At(int(u), int(p))
					if ch < 0 || !g.isSwitchChannel(ch) {
						break
					}
					u = g.chTo(ch)
				}
				for k := len(walk) - 1; k >= 0; k-- {
					if end >= 0 {
						end++
					}
					hops[walk[k]] = end
				}
				if hops[s] >= 2 {
					t.SetSL(int(s), lid, uint8(count%vls))
					count++
				}
			}
		}
	}
	t.VLsUsed = max(1, min(vls, count))
	if t.VLsUsed > 1 {
		t.Notes = append(t.Notes, fmt.Sprintf("needs 1 VL, paths spread over %d", t.VLsUsed))
	}
}
