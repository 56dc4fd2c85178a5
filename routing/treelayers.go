package routing

import (
	"fmt"
	"slices"
)

// treeLayers is DFSSSP's offline cycle breaking (breakCyclesBy) for path
// sets too large to list (collectPaths' limit): the same cuts, the same
// weights, the same moves, with no path stored. Destination-based tables
// make every destination's paths a tree: a path is a (destination, source
// switch) pair whose channels the tables give, and the paths through a
// switch are the sources of its subtree. So
//
//   - a layer's dependency graph is built destination by destination, each
//     source's walk stopping where an earlier source's walk of the same
//     destination went on (its dependencies, in the same order, are
//     there), and each edge weighed by the sum, bottom-up over the tree, of
//     the layer's sources below it;
//   - cutting the edge x→y (x from switch u to v) moves, for every
//     destination whose tables take u to v and on along y, the layer's
//     sources of u's subtree (searched back from u along the channels whose
//     tables point at it), and takes their weight off every edge of their
//     paths, bottom-up below u and u's own weight from u on;
//   - each path's layer is kept beside its port, in a copy of the tables
//     by destination (below), and written into the tables' SLs at the
//     end, so memory is two bytes per (switch, destination) besides the
//     tables and the graph of one layer.
//
// The tables hold a switch's row of LIDs side by side, but a move reads one
// destination's entries of many switches: u's subtree, the path on from v.
// Read from the tables those are rows tens of kilobytes apart, a cache (and
// TLB) miss each: on the 40,000-HCA torus those two loads took half of the
// first layer's time. So the breaker reads its own copy, a column of
// switches per destination (col), and keeps the layers in the same shape
// (slc).
//
// Layer 0 and the set of paths moved out of it are those of breakCyclesBy;
// from layer 1 on the paths are visited in (destination, source) order, not
// in the order they were moved, so where a layer past the first has cycles
// the search may meet them in another order and cut other edges. It is
// used only where the path list does not fit, and TestTreeLayers holds it
// to breakCyclesBy where the order cannot matter and to deadlock-freedom
// everywhere.
type treeBreaker struct {
	g    *graph
	t    *Tables
	rule breakRule
	n    int // the tables' LIDs per switch

	deps   cdg
	weight []int64
	// slot[c*stride+p] is this layer's edge from channel c to the channel
	// leaving c's far switch at port p, -1 if none.
	slot []int32
	// into lists, per switch, the inter-switch channels entering it (arc.to
	// is the switch they leave, arc.port its port there).
	into [][]arc

	// Per-destination work space, indexed by switch: the edge of the
	// switch's path's first dependency, the layer's weight and number of
	// sources below it, and the switches whose entries are set.
	eid     []int32
	accW    []int64
	accN    []int32
	touched []int32
	tr      destTree
	// col[i*S+s] is switch s's port toward destination i (g.dests[i]),
	// slc[i*S+s] the layer of the path from s to it; S is g.S.
	col, slc []uint8

	// move's work space: u's subtree, breadth first, with each member's
	// parent position.
	queue, parent []int32

	// record keeps the paths moved, in the order breakCyclesBy moves them
	// (cut by cut, each cut's in its layer's order).
	record bool
	moved  []listedPath
	// movedHops counts the recorded paths' channels; level is move's BFS
	// level of each subtree member below the cut switch.
	movedHops int64
	level     []int32
	// alongTables: some layer past the first was made along the tables.
	alongTables bool
	// stopAt: along the tables, the layering stops when it would open a
	// layer beyond this many (each costs a pass over every path), with
	// errStoppedCounting.
	stopAt int
}

// errStoppedCounting is the failure of a layering along the tables that
// needs more layers than can be used: it does not count on.
type errStoppedCounting struct{ layers int }

func (e errStoppedCounting) Error() string {
	return fmt.Sprintf("needs more than %d VLs (counted no further: its paths are too many to list, and each layer costs a pass over them)", e.layers)
}

// listedPath is a path by its source switch and destination LID.
type listedPath struct {
	src int32
	lid uint16
}

// treeBlock is how many destination columns a pass copies out of the
// tables at a time.
const treeBlock = 64

func newTreeBreaker(g *graph, t *Tables, rule breakRule) *treeBreaker {
	b := &treeBreaker{g: g, t: t, rule: rule, n: t.NumLIDs, stopAt: maxLayers,
		slot: make([]int32, g.chans.Len()*g.stride), into: make([][]arc, g.S),
		eid: make([]int32, g.S), accW: make([]int64, g.S), accN: make([]int32, g.S),
		col: make([]uint8, len(g.dests)*g.S), slc: make([]uint8, len(g.dests)*g.S)}
	for lo := 0; lo < len(g.dests); lo += treeBlock {
		hi := min(lo+treeBlock, len(g.dests))
		t.columns(g.dests[lo:hi], b.col[lo*g.S:hi*g.S], nil)
	}
	for i := range b.slot {
		b.slot[i] = -1
	}
	for i := range b.eid {
		b.eid[i] = -1
	}
	for s, arcs := range g.out {
		for _, a := range arcs {
			b.into[a.to] = append(b.into[a.to], arc{port: a.port, ch: a.ch, to: int32(s), in: a.in})
		}
	}
	return b
}

// layers gives each path its layer (slc; writeSLs puts them in the
// tables) and returns the number of layers needed, at most limit. With
// record, the paths the first layer moves on are listed and layered as
// breakCyclesBy layers them, unless more than maxListedMoves or their
// channels more than the graph's maxPathHops.
func (b *treeBreaker) layers(limit int) (int, error) {
	if b.rule.online {
		return 0, fmt.Errorf("the online layering needs the path list")
	}
	clear(b.slc) // every path in layer 0
	for L := 0; ; L++ {
		if L >= limit {
			return 0, fmt.Errorf("needs more than %d virtual layers", limit)
		}
		moved := b.breakLayer(uint8(L))
		if moved == 0 {
			return L + 1, nil
		}
		if L > 0 || !b.record {
			b.alongTables = true
			if L+1 >= b.stopAt {
				return 0, errStoppedCounting{L + 1}
			}
			continue
		}
		if ps := b.listMoved(); ps != nil {
			layer, n, err := breakCyclesBy(ps, limit-1, b.rule, layerWatch{w: b.g.watch, first: 1})
			if err != nil {
				return 0, fmt.Errorf("needs more than %d virtual layers", limit)
			}
			idx := make([]int32, b.n) // LID → destination index
			for i, lid := range b.g.dests {
				idx[lid] = int32(i)
			}
			for p := range ps.len() {
				b.slc[int(idx[ps.lid[p]])*b.g.S+int(ps.src[p])] = layer[p] + 1
			}
			return n + 1, nil
		}
		b.record, b.moved, b.alongTables = false, nil, true
	}
}

// listMoved lists the recorded paths, in their order, or returns nil if
// they are too many.
func (b *treeBreaker) listMoved() *pathSet {
	g := b.g
	if !b.record || len(b.moved) > maxListedMoves {
		return nil
	}
	// Sized at once: grown by appends, the lists were copied again and
	// again (hundreds of MB on a 12×12×12 torus).
	n := len(b.moved)
	ps := &pathSet{off: make([]int32, 1, n+1), ch: make([]int32, 0, b.movedHops),
		weight: make([]int64, 0, n), src: make([]int32, 0, n), lid: make([]uint16, 0, n)}
	for _, m := range b.moved {
		i, _ := slices.BinarySearch(g.dests, m.lid)
		dst := int(g.destSwitch[i])
		if !ps.add(g, b.t, int(m.src), dst, m.lid, int64(g.numHCAs(int(m.src)))) {
			panic(fmt.Sprintf("routing: tree layering moved a path it cannot list (switch %d to LID %d)", m.src, m.lid))
		}
		if int64(len(ps.ch)) > g.maxPathHops {
			return nil
		}
	}
	b.moved = nil
	return ps
}

// breakLayer makes layer L acyclic and returns how many paths it moved to
// L+1.
func (b *treeBreaker) breakLayer(L uint8) int64 {
	b.build(L)
	var moved int64
	cuts, stage := 0, fmt.Sprintf("layer %d: cycles cut", L+1)
	b.deps.searchCycles(func(cycle []int32) bool {
		moved += b.move(b.rule.cut(cycle, b.weight), L)
		cuts++
		b.g.progress(stage, cuts, 0)
		return true
	})
	return moved
}

// edgeFor returns this layer's edge from channel c1 to c2, which leaves
// c1's far switch at port p2, making it if new.
func (b *treeBreaker) edgeFor(c1, c2 int32, p2 uint8) int32 {
	k := int(c1)*b.g.stride + int(p2)
	e := b.slot[k]
	if e < 0 {
		e = b.deps.newEdge(c1, c2)
		b.slot[k] = e
		b.weight = append(b.weight, 0)
	}
	return e
}

// edgeOf returns the edge from channel c1 to the channel leaving c1's far
// switch at port p2; it must exist.
func (b *treeBreaker) edgeOf(c1 int32, p2 uint8) int32 {
	e := b.slot[int(c1)*b.g.stride+int(p2)]
	if e < 0 {
		panic(fmt.Sprintf("routing: tree layering lost the dependency of channel %d to port %d", c1, p2))
	}
	return e
}

// build makes the dependency graph of layer L's paths, destinations in
// order and each destination's sources ascending, as cycleBreaker.build
// does for the listed paths of layer 0.
func (b *treeBreaker) build(L uint8) {
	g, S := b.g, b.g.S
	for e := range b.deps.from {
		b.slot[int(b.deps.from[e])*g.stride+int(b.g.chans.From(b.deps.to[e]).Port)] = -1
	}
	b.deps.reset()
	b.weight = b.weight[:0]
	stage := fmt.Sprintf("layer %d: dependencies of destinations", L+1)
	for i := range g.dests {
		b.buildDest(i, b.col[i*S:(i+1)*S], b.slc[i*S:(i+1)*S], L)
		g.progress(stage, i+1, len(g.dests))
	}
	b.deps.layout()
}

// buildDest adds destination i's layer-L paths to the graph, given its
// column of ports and layers.
func (b *treeBreaker) buildDest(i int, col, sl []uint8, L uint8) {
	g, tr := b.g, &b.tr
	g.treeOf(col, i, tr)
	dst := g.destSwitch[i]
	for s := int32(0); s < int32(g.S); s++ {
		if s == dst || g.numHCAs(int(s)) == 0 || tr.depth[s] < 2 || sl[s] != L {
			continue
		}
		if b.accN[s] == 0 && b.eid[s] < 0 {
			b.touched = append(b.touched, s)
		}
		b.accW[s] += int64(g.numHCAs(int(s)))
		b.accN[s]++
		for y := s; b.eid[y] < 0 && tr.depth[y] >= 2; {
			v := g.chTo(tr.next[y])
			if y != s && b.accN[y] == 0 {
				b.touched = append(b.touched, y)
			}
			b.eid[y] = b.edgeFor(tr.next[y], tr.next[v], col[v])
			y = v
		}
	}
	if len(b.touched) == 0 {
		return
	}
	// Bottom-up: a switch's sum reaches its next switch before that one
	// is read (deepest first).
	for _, y := range tr.order {
		if b.accN[y] == 0 || tr.depth[y] < 2 {
			continue
		}
		e := b.eid[y]
		b.weight[e] += b.accW[y]
		b.deps.uses[e] += b.accN[y]
		if v := g.chTo(tr.next[y]); tr.depth[v] >= 2 {
			b.accW[v] += b.accW[y]
			b.accN[v] += b.accN[y]
		}
	}
	for _, y := range b.touched {
		b.eid[y], b.accW[y], b.accN[y] = -1, 0, 0
	}
	b.touched = b.touched[:0]
}

// move takes every layer-L path inducing edge e to layer L+1 and returns
// how many it moved.
func (b *treeBreaker) move(e int32, L uint8) int64 {
	g, t, n, S := b.g, b.t, b.n, b.g.S
	c1, c2 := b.deps.from[e], b.deps.to[e]
	from := g.chans.From(c1)
	u, p1 := int(from.Node), uint8(from.Port)
	v := int(g.chTo(c1))
	p2 := uint8(g.chans.From(c2).Port)
	rowU, rowV := t.lft[u*n:(u+1)*n], t.lft[v*n:(v+1)*n]
	var moved int64
	for i, lid := range g.dests {
		if rowU[lid] != p1 || rowV[lid] != p2 {
			continue
		}
		dst := int(g.destSwitch[i])
		col, slc := b.col[i*S:(i+1)*S], b.slc[i*S:(i+1)*S]
		beyond := 0 // channels from v on (counted in the first layer only)
		if L == 0 {
			var ok bool
			if beyond, ok = b.reaches(v, col, dst); !ok {
				// Broken beyond: no listed path goes through u. (Past
				// the first layer every path is one that reaches.)
				continue
			}
		}
		// u's subtree: the switches whose channel toward lid enters a
		// member, breadth first from u.
		b.queue, b.parent = append(b.queue[:0], int32(u)), append(b.parent[:0], -1)
		for q := 0; q < len(b.queue) && len(b.queue) <= g.S; q++ {
			y := b.queue[q]
			for _, a := range b.into[y] {
				if col[a.to] == uint8(a.port) {
					b.queue, b.parent = append(b.queue, a.to), append(b.parent, int32(q))
				}
			}
		}
		if len(b.queue) > g.S {
			continue // a loop through u: no path of any layer goes there
		}
		var cnt int32
		mark := len(b.moved)
		if b.record {
			b.level = append(b.level[:0], 0) // BFS levels below u
			for q := 1; q < len(b.queue); q++ {
				b.level = append(b.level, b.level[b.parent[q]]+1)
			}
		}
		for q, z := range b.queue {
			if g.numHCAs(int(z)) > 0 && slc[z] == L {
				slc[z] = L + 1
				b.accW[z], b.accN[z] = int64(g.numHCAs(int(z))), 1
				cnt++
				if b.record {
					b.moved = append(b.moved, listedPath{z, lid})
					b.movedHops += int64(b.level[q]) + 1 + int64(beyond)
				}
			}
		}
		if cnt == 0 {
			continue
		}
		if b.record {
			// In the order breakCyclesBy moves them: the cut's paths in
			// the order its layer listed them, sources ascending.
			slices.SortFunc(b.moved[mark:], func(a, c listedPath) int { return int(a.src) - int(c.src) })
			if len(b.moved) > maxListedMoves || b.movedHops > g.maxPathHops {
				b.record, b.moved = false, nil // they would not be listed
			}
		}
		moved += int64(cnt)
		// Children before parents; every member's own dependency loses
		// what moved below it and itself.
		for q := len(b.queue) - 1; q >= 0; q-- {
			z := b.queue[q]
			if b.accN[z] == 0 {
				continue
			}
			f := e
			if q > 0 {
				pz := col[z]
				next := b.queue[b.parent[q]]
				f = b.edgeOf(g.chanAt(int(z), int(pz)), col[next])
				b.accW[next] += b.accW[z]
				b.accN[next] += b.accN[z]
			}
			b.weight[f] -= b.accW[z]
			b.deps.uses[f] -= b.accN[z]
		}
		// From v on, u's paths' further dependencies.
		w, c := b.accW[u], b.accN[u]
		for ch := c2; int(g.chTo(ch)) != dst; {
			y := int(g.chTo(ch))
			p := col[y]
			f := b.edgeOf(ch, p)
			b.weight[f] -= w
			b.deps.uses[f] -= c
			ch = g.chanAt(y, int(p))
		}
		for _, z := range b.queue {
			b.accW[z], b.accN[z] = 0, 0
		}
	}
	return moved
}

// reaches reports whether the tables lead from switch y to dst (col: the
// destination's column) over inter-switch channels without a loop, and how
// many it crosses.
func (b *treeBreaker) reaches(y int, col []uint8, dst int) (int, bool) {
	g := b.g
	steps := 0
	for ; y != dst; steps++ {
		p := col[y]
		if p == NoPath || p == 0 || steps > g.S {
			return 0, false
		}
		ch := g.chanAt(y, int(p))
		if ch < 0 || !g.isSwitchChannel(ch) {
			return 0, false
		}
		y = int(g.chTo(ch))
	}
	return steps, true
}

// balance is balanceLayers over the tables' SLs: the paths of layer l
// (their SL) dealt round-robin over l and the unused layers it is given,
// in (destination, source) order, the order of collectPaths.
func (b *treeBreaker) balance(n, k int) int {
	g, S := b.g, b.g.S
	if n >= k {
		return n
	}
	d := newLayerDealer(n, k)
	any := false
	for i := range g.dests {
		g.treeOf(b.col[i*S:(i+1)*S], i, &b.tr)
		dst, slc := g.destSwitch[i], b.slc[i*S:(i+1)*S]
		for s := int32(0); s < int32(S); s++ {
			if s == dst || g.numHCAs(int(s)) == 0 || b.tr.depth[s] < 2 {
				continue
			}
			slc[s] = d.deal(slc[s])
			any = true
		}
	}
	if !any {
		return n
	}
	return d.inUse()
}

// writeSLs writes every path's layer (slc) as its SL into the tables, a
// block of destinations at a time (rows of the tables).
func (b *treeBreaker) writeSLs() {
	g, t, S := b.g, b.t, b.g.S
	t.sl = make([]uint8, len(t.lft))
	for lo := 0; lo < len(g.dests); lo += treeBlock {
		hi := min(lo+treeBlock, len(g.dests))
		t.writeColumns(t.sl, g.dests[lo:hi], b.slc[lo*S:hi*S])
	}
}
