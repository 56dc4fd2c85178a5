package routing

import (
	"fmt"
	"slices"
	"sort"
)

// routeNue is Nue routing (seeds/001 §6.2): routing on the complete
// channel dependency graph with exactly k = vls virtual layers.
//
// The HCA destinations are partitioned into k layers by their switches
// (multilevel k-way partitioning of the switch graph weighted by HCAs).
// Per layer: the convex subgraph of the layer's destination switches
// (Alg. 6.1), its most central switch by Brandes' betweenness as the root of
// a BFS spanning tree whose paths are the layer's escape paths (Def. 6.2;
// their dependencies are marked used first), then for each destination (in
// the order of nueOrder) a Dijkstra over channels (Alg. 6.2) that takes a
// dependency only if the layer's used dependencies stay acyclic. Islands
// left by blocked dependencies are reached by local backtracking (Alg. 6.5:
// a neighbour switches to another of its valid channels); where that fails
// for every island, one is spliced onto its escape path (splice), and only
// where that fails too does the destination fall back to the escape paths.
// Channel weights start and grow as DFSSSP's. Former islands then serve as
// shortcuts for their reached neighbours (Alg. 6.6). Finally, unless
// Options.NoRelieve, relieve (flitsim's addition) moves single switches off
// the busiest channel while that lowers it. The acyclicity checks use a
// dynamic topological order (Pearce-Kelly) instead of the ω numbering of
// Alg. 6.4: both exist to skip most cycle searches, and the order answers
// every query exactly, searching only the affected region.
func routeNue(g *graph, o Options) (*Tables, error) {
	t, _, err := runNue(g, o)
	return t, err
}

// nueRun is the state runNue ends with, for tests to check the layers'
// dependencies against the tables.
type nueRun struct {
	n       *nueState
	layers  []nueLayer
	part    []int
	escaped []bool
}

// runNue is routeNue, also returning its final state.
func runNue(g *graph, o Options) (*Tables, *nueRun, error) {
	k := o.VLs
	t := NewTables(g.net, "nue")
	g.setHCAPorts(t)
	part := g.partition(k)
	nch := g.chans.Len()
	st := newSSSP(g) // shared channel weights and load accounting
	n := &nueState{g: g, t: t, st: st, nch: nch}
	n.alloc()
	// The layers' dependencies are separate, so destinations are routed in
	// one order across all layers (each in its own): the channel weights
	// they share then grow evenly over the network, not one layer's region
	// after another's.
	layers := make([]nueLayer, k)
	used := 0
	for L := range layers {
		var dstSw []int32
		for s := 0; s < g.S; s++ {
			if part[s] == L {
				dstSw = append(dstSw, int32(s))
			}
		}
		if len(dstSw) == 0 {
			continue
		}
		used++
		if !n.initLayer(&layers[L], dstSw) {
			return nil, nil, &Failure{Engine: "nue", Reason: "escape paths of a spanning tree induced a cycle (internal error)"}
		}
	}
	fallbacks, total := 0, 0
	order := g.nueOrder()
	escaped := make([]bool, len(g.dests))
	for k, i := range order {
		g.progress("destinations", k, len(order))
		lid, dst := g.dests[i], g.destSwitch[i]
		L := part[dst]
		n.deps, n.tree = layers[L].deps, layers[L].tree
		total++
		if !n.route(dst) {
			fallbacks++
			escaped[i] = true
			n.escape(dst)
			copy(n.next, n.esc)
		}
		for u := 0; u < g.S; u++ {
			if int32(u) != dst && n.next[u] >= 0 {
				t.SetPort(u, lid, int(g.chans.From(n.next[u]).Port))
			}
			// The layer is the destination's SL from every source, its own
			// switch included.
			if g.numHCAs(u) > 0 && (int32(u) == dst || n.next[u] >= 0) {
				t.SetSL(u, lid, uint8(L))
			}
		}
		n.addLoad(dst)
	}
	g.progress("destinations", len(order), len(order))
	before, moves := n.efiMax(), 0
	if !o.NoRelieve {
		moves = n.relieve(t, order, func(dst int32) *nueLayer { return &layers[part[dst]] }, escaped)
	}
	g.routeSwitchLIDs(t, g.hopDistances())
	t.VLsNeeded, t.VLsUsed = max(used, 1), max(used, 1)
	t.Notes = append(t.Notes, fmt.Sprintf("fell back to escape paths for %d of %d destinations (%.3f %%); %d shortcuts through former islands; %d islands spliced onto their escape paths",
		fallbacks, total, 100*float64(fallbacks)/float64(max(total, 1)), n.Shortcuts, n.Spliced))
	if moves > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d switches moved off the busiest channel: max EFI %d → %d", moves, before, n.efiMax()))
	}
	t.Fallbacks, t.Destinations, t.Shortcuts, t.Spliced, t.Relieved = fallbacks, total, n.Shortcuts, n.Spliced, moves
	return t, &nueRun{n: n, layers: layers, part: part, escaped: escaped}, nil
}

// nueOrder returns the indices into dests in the order Nue routes them: in
// rounds that take the next HCA of every switch, and within a round the
// switches with the fewest inter-switch channels first (then by index).
//
// Each destination's paths add dependencies that later ones must respect,
// so the layer grows harder to route in as it fills. A destination switch
// with few channels has few ways in, and once the dependencies into them
// are blocked its traffic funnels through the one left; routing those
// first, and every switch once before any twice (a destination's later
// HCAs find the first one's dependencies in place), spreads the freedom
// the empty layer offers over all destinations instead of spending it on
// the switches that come first in LID order.
func (g *graph) nueOrder() []int {
	round := make([]int, len(g.dests))
	seen := make([]int, g.S)
	order := make([]int, len(g.dests))
	for i := range g.dests {
		s := g.destSwitch[i]
		round[i] = seen[s]
		seen[s]++
		order[i] = i
	}
	key := func(i int) [3]int {
		s := g.destSwitch[i]
		return [3]int{round[i], len(g.out[s]), int(s)}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := key(a), key(b)
		return slices.Compare(ka[:], kb[:])
	})
	return order
}

// nueLayer is one virtual layer's state: its channel dependencies, the
// spanning tree of its escape paths (parent switch per switch, -1 at the
// root) and the dependencies the Dijkstra found blocked.
//
// A dependency that would close a cycle is remembered as blocked for the
// rest of the layer and not searched again (ω = −1 in Alg. 6.4, condition
// (i); OpenSM's BLOCKED state): the layer's dependencies only grow from one
// destination to the next, so it almost always stays blocked, and the
// searches it saves are most of Nue's run time.
type nueLayer struct {
	deps *cdg // with its blocked set
	tree []int32
}

// initLayer sets up layer l for the destination switches dstSw: the root
// (Alg. 6.1), its BFS tree and the escape paths' dependencies toward every
// destination switch (Def. 6.2). It reports false if they are cyclic (they
// cannot be: an internal error).
func (n *nueState) initLayer(l *nueLayer, dstSw []int32) bool {
	root := n.g.centralSwitch(dstSw)
	if n.initOrder == nil {
		n.initOrder = n.g.upDownOrder()
	}
	n.deps, n.tree = newOrderedCDGFrom(n.initOrder), n.g.bfsTree(root)
	n.deps.blocked, n.deps.refusals = &edgeSet{}, &refusalMemo{}
	l.deps, l.tree = n.deps, n.tree
	for _, d := range dstSw {
		n.escape(d)
		if !n.markEscape() {
			return false
		}
	}
	return true
}

// nueState is the per-run work space.
type nueState struct {
	g   *graph
	t   *Tables
	st  *ssspState
	nch int
	// The current destination's layer: its channel dependencies (with
	// the blocked ones) and its escape paths' spanning tree.
	deps    *cdg
	tree    []int32
	esc     []int32 // escape next channel per switch toward escDst in tree escTree
	escDst  int32
	escTree *int32
	next    []int32 // chosen next channel per switch, -1 none
	dep     []int32 // the dependency target of next[u] (next of its head), -1 none
	dist    []int64
	final   []bool
	heap    minHeap // indexed
	order   []int32
	// arcs holds every switch's incoming arcs side by side, in the order
	// of graph.incoming (v's are arcs[arcOff[v]:arcOff[v+1]], inArcs), 8
	// bytes each: the Dijkstra reads them all for every destination,
	// several megabytes on a large fabric, so their size is its memory
	// traffic.
	arcs   []nueArc
	arcOff []int32
	former []bool // switches reached by backtracking (former islands)
	seen   []bool // escape's scratch
	moved  []bool // switches a splice moves onto their escape channels
	edits  []nueEdit
	byHops []int32 // relieve's scratch
	// movedScratch holds switchNext's switches routed through the
	// switch it moves, step the dependencies switchNext and spliceOnto
	// insert all or nothing.
	movedScratch []int32
	step         []uint64
	through      throughMemo
	// initOrder is every layer's initial channel order (upDownOrder).
	initOrder []int32
	// Shortcuts counts the switches that moved onto a shorter path
	// through a former island (Alg. 6.6); Spliced the islands reached
	// along their escape paths (splice).
	Shortcuts, Spliced int
}

// nueEdit is one switch's new next channel and its dependency target (-1
// none) in a splice.
type nueEdit struct{ u, c, dep int32 }

func (n *nueState) alloc() {
	S := n.g.S
	n.esc, n.next, n.dep = make([]int32, S), make([]int32, S), make([]int32, S)
	n.escDst = -1
	n.dist, n.final, n.former = make([]int64, S), make([]bool, S), make([]bool, S)
	n.seen, n.moved = make([]bool, S), make([]bool, S)
	n.arcOff = make([]int32, S+1)
	for v, in := range n.g.incoming() {
		for _, ia := range in {
			n.arcs = append(n.arcs, nueArc{from: ia.from, ch: ia.ch})
		}
		n.arcOff[v+1] = int32(len(n.arcs))
	}
	n.heap = newIndexHeap(S)
}

// nueArc is a channel into a switch and the switch it comes from.
type nueArc struct{ from, ch int32 }

// inArcs returns the arcs into switch v.
func (n *nueState) inArcs(v int32) []nueArc { return n.arcs[n.arcOff[v]:n.arcOff[v+1]] }

// escape computes the spanning-tree next channel of every switch toward dst
// (kept until asked for another destination or tree: a destination's
// splices ask again for every island).
func (n *nueState) escape(dst int32) {
	if dst == n.escDst && &n.tree[0] == n.escTree {
		return
	}
	n.escDst, n.escTree = dst, &n.tree[0]
	for i := range n.esc {
		n.esc[i] = -1
	}
	// BFS over tree edges from dst; a switch's escape channel leads to the
	// tree neighbour it was discovered from.
	seen := n.seen
	seen[dst] = true
	q := append(n.order[:0], dst)
	for h := 0; h < len(q); h++ {
		v := q[h]
		for _, ia := range n.inArcs(v) {
			u := ia.from
			if seen[u] || !(n.tree[u] == v || n.tree[v] == u) {
				continue
			}
			// Among parallel tree cables take the lowest port (the first arc).
			seen[u] = true
			n.esc[u] = ia.ch
			q = append(q, u)
		}
	}
	n.order = q
	for i := range seen {
		seen[i] = false
	}
}

// markEscape adds the dependencies of the current escape paths.
func (n *nueState) markEscape() bool {
	for u := range n.esc {
		c := n.esc[u]
		if c < 0 {
			continue
		}
		to := n.g.chTo(c)
		if nx := n.esc[to]; nx >= 0 {
			if !n.deps.insert(c, nx) {
				return false
			}
		}
	}
	return true
}

// route runs the modified Dijkstra toward dst; it reports false when an
// HCA-carrying switch stays unreachable (the caller falls back). On success
// the dependencies of the chosen paths stay in the layer's CDG.
func (n *nueState) route(dst int32) bool {
	g := n.g
	const inf = int64(1) << 62
	for i := range n.next {
		n.next[i], n.dep[i], n.dist[i], n.final[i], n.former[i] = -1, -1, inf, false, false
	}
	n.heap.reset()
	n.dist[dst] = 0
	n.heap.push(0, dst)
	n.dijkstra(dst)
	for n.hcaUnreached(dst) {
		// Alg. 6.5 tries every island in turn (as OpenSM does), not just
		// the first: reaching any one lets the Dijkstra go on from there.
		reached := false
		for x := int32(0); x < int32(g.S) && !reached; x++ {
			reached = x != dst && n.next[x] < 0 && n.backtrack(dst, x)
		}
		for x := int32(0); x < int32(g.S) && !reached; x++ {
			reached = x != dst && n.next[x] < 0 && g.numHCAs(int(x)) > 0 && n.splice(dst, x)
		}
		if !reached {
			// Undo this destination's dependencies; use the escape paths.
			for u := range n.next {
				if n.next[u] >= 0 && n.dep[u] >= 0 {
					n.deps.remove(n.next[u], n.dep[u])
				}
			}
			return false
		}
		n.dijkstra(dst)
	}
	return true
}

// splice reaches island x along its escape path when local backtracking
// cannot: the switches of the shortest prefix of that path for which it
// works take their escape channels (whose dependencies are escape paths,
// always in the layer), every switch routed through one of them now depends
// on its escape channel, and the prefix hands over to the current path of
// the switch after it. Only if no prefix keeps the layer acyclic, the whole
// path included, does the destination fall back to the escape paths
// altogether. Unlike that fall-back, a splice leaves every other switch's
// path (and the balance Dijkstra found for it) alone.
func (n *nueState) splice(dst, x int32) bool {
	g := n.g
	n.escape(dst)
	var path []int32
	for u := x; u != dst; u = g.chTo(n.esc[u]) {
		if n.esc[u] < 0 {
			return false // x is cut off from dst
		}
		path = append(path, u)
	}
	for j := 1; j <= len(path); j++ {
		// The prefix hands over to a switch that has its path already (or
		// to dst): an unreached one has no next channel yet, and the last
		// prefix switch's dependency would be missing from the layer once
		// it got one.
		if j < len(path) && n.next[path[j]] < 0 {
			continue
		}
		if !n.spliceOnto(dst, path[:j]) {
			continue
		}
		for i := j - 1; i >= 0; i-- {
			u := path[i]
			n.dist[u] = n.dist[g.chTo(n.esc[u])] + hopUnit + n.st.weight[n.esc[u]]
			// Switches are routed through the prefix now: the Dijkstra
			// must not re-point one under them (setNext leaves the
			// dependencies of switches routed through it as they were).
			n.final[u] = true
		}
		n.final[x], n.former[x] = false, true
		n.heap.push(n.dist[x], x)
		n.Spliced++
		return true
	}
	return false
}

// spliceOnto moves the switches of prefix (an escape path's first switches)
// onto their escape channels, re-pointing the dependencies of the switches
// routed through them; all or nothing.
func (n *nueState) spliceOnto(dst int32, prefix []int32) bool {
	g := n.g
	for _, u := range prefix {
		n.moved[u] = n.next[u] != n.esc[u]
	}
	defer func() {
		for _, u := range prefix {
			n.moved[u] = false
		}
	}()
	// target is the dependency target of channel c after the splice.
	target := func(c int32) int32 {
		switch v := g.chTo(c); {
		case v == dst:
			return -1
		case n.moved[v]:
			return n.esc[v]
		default:
			return n.next[v]
		}
	}
	edits := n.edits[:0]
	for _, u := range prefix {
		if n.moved[u] {
			edits = append(edits, nueEdit{u, n.esc[u], target(n.esc[u])})
		}
	}
	// The switches routed through a moved one are among its neighbours:
	// those whose next channel enters it. Whether the edits keep the
	// layer acyclic does not depend on their order.
	for _, v := range prefix {
		if !n.moved[v] {
			continue
		}
		for _, ia := range n.inArcs(v) {
			if u := ia.from; n.next[u] == ia.ch && !n.moved[u] {
				edits = append(edits, nueEdit{u, ia.ch, target(ia.ch)})
			}
		}
	}
	n.edits = edits
	step := n.step[:0]
	for _, e := range edits {
		if e.dep >= 0 {
			step = append(step, edgeKey(e.c, e.dep))
		}
	}
	n.step = step
	if !n.deps.insertStep(step) {
		return false
	}
	for _, e := range edits {
		if n.next[e.u] >= 0 && n.dep[e.u] >= 0 {
			n.deps.remove(n.next[e.u], n.dep[e.u])
		}
		n.next[e.u], n.dep[e.u] = e.c, e.dep
	}
	return true
}

// hcaUnreached reports whether a switch with HCAs has no path to dst yet.
func (n *nueState) hcaUnreached(dst int32) bool {
	for s := int32(0); s < int32(n.g.S); s++ {
		if s != dst && n.next[s] < 0 && n.g.numHCAs(int(s)) > 0 {
			return true
		}
	}
	return false
}

// setNext gives switch u the channel c (toward switch v), replacing its
// previous choice; it reports false (changing nothing) if the dependency
// would close a cycle or was found blocked before in this layer.
func (n *nueState) setNext(u int32, c int32, v, dst int32) bool {
	dep := int32(-1)
	if v != dst {
		dep = n.next[v]
		if !n.deps.insertUnblocked(c, dep) {
			return false
		}
	}
	if n.next[u] >= 0 && n.dep[u] >= 0 {
		n.deps.remove(n.next[u], n.dep[u])
	}
	n.next[u], n.dep[u] = c, dep
	return true
}

func (n *nueState) dijkstra(dst int32) {
	g := n.g
	for n.heap.len() > 0 {
		d, v := n.heap.pop()
		if d != n.dist[v] || n.final[v] {
			continue
		}
		n.final[v] = true
		if n.former[v] {
			n.shortcuts(v, dst)
		}
		for _, ia := range n.inArcs(v) {
			u := ia.from
			if n.final[u] {
				continue
			}
			nd := d + hopUnit + n.st.weight[ia.ch]
			if nd > n.dist[u] || (nd == n.dist[u] && g.chans.From(ia.ch).Port >= g.chans.From(n.next[u]).Port) {
				continue
			}
			if !n.setNext(u, ia.ch, v, dst) {
				continue // blocked: the dependency would close a cycle
			}
			n.dist[u] = nd
			n.heap.push(nd, u)
		}
	}
}

// backtrack tries to reach island x through a reached neighbour y that
// switches to another of its channels (Alg. 6.5), keeping every dependency
// already built on y valid.
func (n *nueState) backtrack(dst, x int32) bool {
	g := n.g
	type cand struct {
		y, alt, via int32
		dist        int64
	}
	var cands []cand
	for _, a := range g.out[x] {
		y := a.to
		if y == dst || n.next[y] < 0 {
			continue
		}
		n.through.reset(g.S)
		for _, b := range g.out[y] {
			w := b.to
			if b.ch == n.next[y] || (w != dst && n.next[w] < 0) || w == x || n.through.leads(n, w, y, dst) {
				continue
			}
			cands = append(cands, cand{y: y, alt: b.ch, via: a.ch, dist: n.dist[w] + hopUnit + n.st.weight[b.ch]})
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].alt < cands[j].alt
	})
	for _, c := range cands {
		if n.switchNext(c.y, c.alt, dst) {
			if n.setNext(x, c.via, c.y, dst) {
				n.dist[x] = n.dist[c.y] + hopUnit + n.st.weight[c.via]
				n.final[x], n.former[x] = false, true
				n.heap.push(n.dist[x], x)
				return true
			}
		}
	}
	return false
}

// shortcuts lets reached neighbours of the former island x, now final,
// route through it where that is shorter (Alg. 6.6): a neighbour u moves
// onto u→x only if that dependency and the re-pointed dependencies of every
// switch routed through u keep the layer acyclic (switchNext, all or
// nothing), and x's own path does not pass u.
func (n *nueState) shortcuts(x, dst int32) {
	for _, ia := range n.inArcs(x) {
		u := ia.from
		if u == dst || n.next[u] < 0 {
			continue // unreached switches get x through the Dijkstra
		}
		if n.dist[x]+hopUnit+n.st.weight[ia.ch] >= n.dist[u] || n.leadsThrough(x, u, dst) {
			continue
		}
		if n.switchNext(u, ia.ch, dst) {
			n.Shortcuts++
		}
	}
}

// throughMemo answers leadsThrough for many switches and one y while the
// paths stay as they are (reset before each y): paths to dst form a tree,
// so the walks from neighbouring switches soon meet one already walked,
// and that switch's answer is theirs. A switch carries good (its path
// reaches dst without passing y) or good+1 (it passes y or ends short).
type throughMemo struct {
	mark []uint32
	good uint32
	walk []int32
}

// reset starts answers for another y (or other paths).
func (m *throughMemo) reset(switches int) {
	if len(m.mark) != switches {
		m.mark, m.good = make([]uint32, switches), 0
	}
	if m.good += 2; m.good < 2 { // wrapped
		clear(m.mark)
		m.good = 2
	}
}

// leads is n.leadsThrough(w, y, dst), remembering the answer for every
// switch it walks.
func (m *throughMemo) leads(n *nueState, w, y, dst int32) bool {
	walk := m.walk[:0]
	passes := true
	for steps := 0; ; steps++ {
		if w == dst {
			passes = false
			break
		}
		if steps > n.g.S || w == y || m.mark[w] == m.good+1 {
			break
		}
		if m.mark[w] == m.good {
			passes = false
			break
		}
		c := n.next[w]
		if c < 0 {
			break
		}
		walk = append(walk, w)
		w = n.g.chTo(c)
	}
	mark := m.good
	if passes {
		mark++
	}
	for _, v := range walk {
		m.mark[v] = mark
	}
	m.walk = walk
	return passes
}

// leadsThrough reports whether the current path from w to dst passes y.
func (n *nueState) leadsThrough(w, y, dst int32) bool {
	for steps := 0; w != dst && steps <= n.g.S; steps++ {
		if w == y {
			return true
		}
		c := n.next[w]
		if c < 0 {
			return true // unreachable: not usable
		}
		w = n.g.chTo(c)
	}
	return w != dst
}

// switchNext moves reached switch y to channel alt, re-pointing the
// dependencies of every switch routed through y; all or nothing. A move
// refused before whose witness still stands is refused without trying it
// again (refusals.go).
func (n *nueState) switchNext(y, alt, dst int32) bool {
	g := n.g
	old, oldDep := n.next[y], n.dep[y]
	w := g.chTo(alt)
	newDep := int32(-1)
	// The step's dependencies: alt's own, then those of the switches
	// routed through y, which are among its neighbours (those whose next
	// channel is one of y's incoming arcs).
	step := n.step[:0]
	if w != dst {
		newDep = n.next[w]
		step = append(step, edgeKey(alt, newDep))
	}
	moved := n.movedScratch[:0]
	for _, ia := range n.inArcs(y) {
		u := ia.from
		if u == y || n.next[u] != ia.ch {
			continue
		}
		step = append(step, edgeKey(ia.ch, alt))
		moved = append(moved, u)
	}
	n.step, n.movedScratch = step, moved
	if !n.deps.insertStep(step) {
		return false
	}
	for _, u := range moved {
		n.deps.remove(n.next[u], old)
		n.dep[u] = alt
	}
	if oldDep >= 0 {
		n.deps.remove(old, oldDep)
	}
	n.next[y], n.dep[y] = alt, newDep
	n.dist[y] = n.dist[w] + hopUnit + n.st.weight[alt]
	return true
}

// addLoad adds the HCA paths to dst to the channel weights (as SSSP does).
func (n *nueState) addLoad(dst int32) {
	g := n.g
	// Count sources through each switch by walking every HCA switch's path.
	for s := 0; s < g.S; s++ {
		k := int64(g.numHCAs(s))
		if k == 0 || int32(s) == dst {
			continue
		}
		u := int32(s)
		for steps := 0; u != dst && steps <= g.S; steps++ {
			c := n.next[u]
			if c < 0 {
				break
			}
			n.st.weight[c] += k
			u = g.chTo(c)
		}
	}
}

// upDownOrder returns the channels in an order that up*/down* paths
// respect, for an ordered CDG to start from: a switch's level is its hop
// distance from the nearest switch with HCAs; channels that climb a level
// come first (from the lowest level up), then those within a level, then
// those that descend (from the highest level down), each class in channel
// order. On a fat tree Nue's minimal paths climb and then descend, so
// their dependencies almost never need the order changed; where every
// switch has HCAs (tori, random networks) it is the channel order.
func (g *graph) upDownOrder() []int32 {
	var sources []int32
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) > 0 {
			sources = append(sources, int32(s))
		}
	}
	level := g.hopsFrom(sources)
	nch := g.chans.Len()
	key := func(c int32) int64 {
		f, t := g.chans.From(c).Node, g.chans.To(c).Node
		if int(f) >= g.S || int(t) >= g.S { // an HCA's channel: no dependency leads through it
			return 1 << 40
		}
		lf, lt := int64(level[f]), int64(level[t])
		switch {
		case lt > lf:
			return lf
		case lt == lf:
			return 1 << 40
		default:
			return 1<<41 - lf
		}
	}
	order := make([]int32, nch)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ka, kb := key(a), key(b)
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return order
}

// bfsTree returns the BFS spanning tree of the switch graph from root as a
// parent array (lowest port first).
func (g *graph) bfsTree(root int32) []int32 {
	parent := make([]int32, g.S)
	for i := range parent {
		parent[i] = -2
	}
	parent[root] = -1
	q := []int32{root}
	for h := 0; h < len(q); h++ {
		u := q[h]
		for _, a := range g.out[u] {
			if parent[a.to] == -2 {
				parent[a.to] = u
				q = append(q, a.to)
			}
		}
	}
	return parent
}

// centralSwitch returns the switch of highest betweenness centrality
// (Brandes) within the convex subgraph of the given switches (Alg. 6.1).
func (g *graph) centralSwitch(set []int32) int32 {
	if len(set) == 1 {
		return set[0]
	}
	in := g.convexSubgraph(set)
	var nodes []int32
	for s := 0; s < g.S; s++ {
		if in[s] {
			nodes = append(nodes, int32(s))
		}
	}
	cb := g.betweenness(in, nodes)
	best := nodes[0]
	for _, v := range nodes {
		if cb[v] > cb[best]+1e-9 {
			best = v
		}
	}
	return best
}

// convexSubgraph marks the switches of set and every switch on a shortest
// path between two of them.
func (g *graph) convexSubgraph(set []int32) []bool {
	in := make([]bool, g.S)
	for _, s := range set {
		in[s] = true
	}
	dist := make([]int32, g.S)
	done := make([]bool, g.S)
	var q []int32
	for _, x := range set {
		for i := range dist {
			dist[i], done[i] = -1, false
		}
		dist[x] = 0
		q = bfs(g, dist, append(q[:0], x))
		// Walk back from every y towards x along decreasing distance.
		for _, y := range set {
			if done[y] {
				continue
			}
			done[y] = true
			q = append(q[:0], y)
			for h := 0; h < len(q); h++ {
				u := q[h]
				for _, a := range g.out[u] {
					v := a.to
					if !done[v] && dist[v] == dist[u]-1 {
						in[v] = true
						done[v] = true
						q = append(q, v)
					}
				}
			}
		}
	}
	return in
}

// betweenness returns the betweenness centrality (Brandes, unweighted) of
// the given switches in the subgraph they induce (in marks them).
func (g *graph) betweenness(in []bool, nodes []int32) []float64 {
	cb := make([]float64, g.S)
	sigma := make([]float64, g.S)
	delta := make([]float64, g.S)
	dist := make([]int32, g.S)
	var q, stack []int32
	preds := make([][]int32, g.S)
	for _, s := range nodes {
		for _, v := range nodes {
			sigma[v], delta[v], dist[v], preds[v] = 0, 0, -1, preds[v][:0]
		}
		sigma[s], dist[s] = 1, 0
		q = append(q[:0], s)
		stack = stack[:0]
		for h := 0; h < len(q); h++ {
			v := q[h]
			stack = append(stack, v)
			for _, a := range g.out[v] {
				w := a.to
				if !in[w] {
					continue
				}
				if dist[w] < 0 {
					dist[w] = dist[v] + 1
					q = append(q, w)
				}
				if dist[w] == dist[v]+1 && (len(preds[w]) == 0 || preds[w][len(preds[w])-1] != v) {
					sigma[w] += sigma[v]
					preds[w] = append(preds[w], v)
				}
			}
		}
		for i := len(stack) - 1; i >= 0; i-- {
			w := stack[i]
			for _, v := range preds[w] {
				delta[v] += sigma[v] / sigma[w] * (1 + delta[w])
			}
			if w != s {
				cb[w] += delta[w]
			}
		}
	}
	return cb
}

// relieve lowers the busiest channel's load (the maximum edge forwarding
// index) after every destination is routed, and returns the switches it
// moved. Nue balances as SSSP does: a destination's Dijkstra sees the
// weights as they were before it, so all its sources follow the lighter
// side of a choice together, and the channel weights move in steps of a
// whole destination's sources. A leaf left with two up-links in a fat tree
// then carries 136 paths on one and 104 on the other where 120 each is
// possible.
//
// relieve repeats: take the busiest channel (load W); for a destination
// routed over it (scanning on from the last one that moved), move one switch
// u whose path crosses it to a neighbour whose path does not, if u's new
// path is no longer than its current one or than its minimal distance + 1
// hop, every channel it newly takes stays below W with u's sources added,
// and the layer's dependencies stay acyclic (switchNext: u and every switch
// routed through u, all or nothing; a move refused for a cycle is not tried
// again). It stops when no destination has such a move for the busiest
// channel, or after looking at 4 destinations per destination routed. Every
// move lowers the sorted vector of channel loads, so it ends; destinations
// on their escape paths stay there.
func (n *nueState) relieve(t *Tables, order []int, layer func(dst int32) *nueLayer, escaped []bool) int {
	g := n.g
	through := make([]int64, g.S) // source HCAs whose path passes the switch
	hops := make([]int32, g.S)    // hops of the switch's path, -1 none
	crosses := make([]bool, g.S)  // the switch's path takes the busiest channel
	onU := make([]uint32, g.S)    // stamp: the switch is on u's path
	stamp := uint32(0)
	moves := 0
	failed := map[uint64]bool{}
	cursor := 0 // the scan resumes at the destination that moved last
	// A look at a destination costs about as much as routing it: at most 4
	// per destination routed (the fabrics of docs/validation.md need up to
	// 2.7) keep relieve within Nue's own work on large fabrics, where ever
	// smaller moves remain (10×10×10 torus, 8 layers: 11,829 moves).
	budget := 4 * len(order)
	for {
		var W int64
		top := int32(-1)
		for c, w := range n.st.weight {
			if w > W && g.isSwitchChannel(int32(c)) {
				W, top = w, int32(c)
			}
		}
		if top < 0 {
			return moves
		}
		x, xPort := g.chans.From(top).Node, g.chans.From(top).Port
		moved := false
		for step := range order {
			i := order[(cursor+step)%len(order)]
			lid, dst := g.dests[i], g.destSwitch[i]
			if escaped[i] || t.Port(int(x), lid) != uint8(xPort) {
				continue
			}
			g.progress("relieving the busiest channels: looks", 4*len(order)-budget, 4*len(order))
			if budget == 0 {
				return moves
			}
			budget--
			n.load(t, lid, dst)
			n.pathCounts(dst, top, through, hops, crosses)
			minHops := g.hopDistances()[dst]
			l := layer(dst)
			n.deps, n.tree = l.deps, l.tree
			for u := int32(0); u < int32(g.S) && !moved; u++ {
				if !crosses[u] || through[u] == 0 {
					continue
				}
				marked := false
				n.through.reset(g.S)
				for _, a := range g.out[u] {
					v := a.to
					if a.ch == n.next[u] || (v != dst && (hops[v] < 0 || crosses[v] || n.through.leads(n, v, u, dst))) || hops[v]+1 > max(hops[u], int32(minHops[u])+1) {
						continue
					}
					if !marked {
						stamp = n.markPath(u, dst, onU, stamp)
						marked = true
					}
					if n.loadAfterMove(a, dst, through[u], onU, stamp) >= W {
						continue
					}
					key := uint64(i)<<32 | uint64(a.ch)
					if failed[key] {
						continue
					}
					n.shiftLoad(u, dst, -through[u])
					moved = n.switchNext(u, a.ch, dst)
					n.shiftLoad(u, dst, through[u])
					if !moved {
						failed[key] = true
					}
					if moved {
						t.SetPort(int(u), lid, int(a.port))
						moves++
						break
					}
				}
			}
			if moved {
				cursor = (cursor + step) % len(order)
				break
			}
		}
		if !moved {
			return moves
		}
	}
}

// pathCounts fills, for the current paths to dst, every switch's through
// count (source HCAs whose path passes it), its path's hops (-1: no path)
// and whether its path takes channel top, in O(switches): hops and crosses
// follow from the next switch's, through is summed from the farthest
// switches inwards.
func (n *nueState) pathCounts(dst, top int32, through []int64, hops []int32, crosses []bool) {
	g := n.g
	const unknown = -2
	for u := range hops {
		hops[u], crosses[u], through[u] = unknown, false, 0
	}
	hops[dst] = 0
	stack := n.order[:0]
	for s := int32(0); s < int32(g.S); s++ {
		u := s
		for hops[u] == unknown && len(stack) <= g.S {
			stack = append(stack, u)
			if n.next[u] < 0 {
				break
			}
			u = g.chTo(n.next[u])
		}
		for len(stack) > 0 {
			w := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if c := n.next[w]; c < 0 || hops[g.chTo(c)] < 0 {
				hops[w] = -1
			} else {
				v := g.chTo(c)
				hops[w], crosses[w] = hops[v]+1, c == top || crosses[v]
			}
		}
	}
	// Farthest first (a counting sort by hops): a switch's count is final
	// before it passes it on.
	top32 := int32(0)
	for _, h := range hops {
		top32 = max(top32, h)
	}
	start := append(n.byHops[:0], make([]int32, top32+2)...)
	for _, h := range hops {
		if h > 0 {
			start[top32-h+1]++
		}
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	sorted := append(n.order[:0], make([]int32, start[len(start)-1])...)
	for u, h := range hops {
		if h > 0 {
			sorted[start[top32-h]] = int32(u)
			start[top32-h]++
		}
	}
	n.byHops, n.order = start, sorted
	for _, u := range sorted {
		through[u] += int64(g.numHCAs(int(u)))
		through[g.chTo(n.next[u])] += through[u]
	}
}

// loadAfterMove returns the highest load on the channels u's path would
// newly take if u moved onto arc a with its m sources: a's channel and
// those of a's far end's path that u's path does not take yet. The
// switches of u's path carry stamp in onU (markPath): a channel of the far
// end's path is on u's path if its switch is, a switch having one next
// channel.
func (n *nueState) loadAfterMove(a arc, dst int32, m int64, onU []uint32, stamp uint32) int64 {
	g := n.g
	worst := n.st.weight[a.ch] + m
	for w := a.to; w != dst; w = g.chTo(n.next[w]) {
		if onU[w] != stamp {
			worst = max(worst, n.st.weight[n.next[w]]+m)
		}
	}
	return worst
}

// markPath stamps in onU the switches of u's current path to dst (dst
// aside) with a new stamp, which it returns.
func (n *nueState) markPath(u, dst int32, onU []uint32, stamp uint32) uint32 {
	if stamp++; stamp == 0 {
		clear(onU)
		stamp = 1
	}
	for w, steps := u, 0; w != dst && n.next[w] >= 0 && steps <= n.g.S; steps++ {
		onU[w] = stamp
		w = n.g.chTo(n.next[w])
	}
	return stamp
}

// load sets next and dep from the tables' current paths to lid.
func (n *nueState) load(t *Tables, lid uint16, dst int32) {
	g := n.g
	for u := range n.next {
		n.next[u], n.dep[u] = -1, -1
		if p := t.Port(u, lid); int32(u) != dst && p != NoPath {
			n.next[u] = g.chanAt(u, int(p))
		}
	}
	for u, c := range n.next {
		if c >= 0 {
			if v := g.chTo(c); v != dst {
				n.dep[u] = n.next[v]
			}
		}
	}
}

// shiftLoad adds m to every channel of u's current path to dst.
func (n *nueState) shiftLoad(u, dst int32, m int64) {
	for steps := 0; u != dst && n.next[u] >= 0 && steps <= n.g.S; steps++ {
		n.st.weight[n.next[u]] += m
		u = n.g.chTo(n.next[u])
	}
}

// efiMax returns the busiest switch-to-switch channel's load: the paths
// between HCAs it carries, the maximum edge forwarding index.
func (n *nueState) efiMax() int64 {
	var m int64
	for c, w := range n.st.weight {
		if n.g.isSwitchChannel(int32(c)) {
			m = max(m, w)
		}
	}
	return m
}
