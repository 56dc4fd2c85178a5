package routing

// hopUnit makes distances lexicographic in (hops, load): one hop outweighs
// any sum of channel loads. The paper initializes every weight to |N|² for
// the same purpose (a detour never pays off); the lexicographic form is its
// limit and keeps the shortest-path property exact on any network.
const hopUnit int64 = 1 << 40

// incoming lists, per switch v, the arcs (u, index into out[u]) that enter v.
type inArc struct {
	from int32
	idx  int32
}

func (g *graph) incoming() [][]inArc {
	in := make([][]inArc, g.S)
	for u := 0; u < g.S; u++ {
		for k, a := range g.out[u] {
			in[a.to] = append(in[a.to], inArc{from: int32(u), idx: int32(k)})
		}
	}
	return in
}

// ssspState is the reusable work space of the per-destination Dijkstra.
type ssspState struct {
	g      *graph
	in     [][]inArc
	weight []int64 // per channel: paths routed over it so far
	dist   []int64
	parent []int32 // index into out[u] of u's next hop, -1 none
	order  []int32 // switches in pop order
	count  []int64
	heap   minHeap
}

func newSSSP(g *graph) *ssspState {
	return &ssspState{g: g, in: g.incoming(), weight: make([]int64, g.chans.Len()),
		dist: make([]int64, g.S), parent: make([]int32, g.S), count: make([]int64, g.S)}
}

// tree computes every switch's next hop toward switch dst under the current
// weights. Among equal distances the lower output port wins.
func (st *ssspState) tree(dst int) {
	g := st.g
	const inf = int64(1) << 62
	for i := range st.dist {
		st.dist[i], st.parent[i] = inf, -1
	}
	st.order = st.order[:0]
	st.heap.reset()
	st.dist[dst] = 0
	st.heap.push(0, int32(dst))
	for st.heap.len() > 0 {
		d, v := st.heap.pop()
		if d != st.dist[v] {
			continue // stale entry
		}
		st.order = append(st.order, v)
		for _, ia := range st.in[v] {
			u := ia.from
			a := g.out[u][ia.idx]
			nd := d + hopUnit + st.weight[a.ch]
			switch {
			case nd < st.dist[u]:
				st.dist[u], st.parent[u] = nd, ia.idx
				st.heap.push(nd, u)
			case nd == st.dist[u] && a.port < g.out[u][st.parent[u]].port:
				st.parent[u] = ia.idx
			}
		}
	}
}

// addLoad adds, for the current tree, the number of source HCAs whose path
// to an HCA on dst crosses each channel (excluding the destination HCA).
func (st *ssspState) addLoad(dst int) {
	g := st.g
	for _, u := range st.order {
		st.count[u] = int64(g.numHCAs(int(u)))
	}
	st.count[dst]--
	st.propagate()
}

// propagate adds to each channel of the current tree the sources counted
// on the switches it carries paths from: st.count holds the sources on
// each reached switch and ends as the sum over its subtree.
func (st *ssspState) propagate() {
	g := st.g
	for i := len(st.order) - 1; i > 0; i-- {
		u := st.order[i]
		a := g.out[u][st.parent[u]]
		st.weight[a.ch] += st.count[u]
		st.count[a.to] += st.count[u]
	}
}

// setTree writes the current tree into t's entries for lid.
func (g *graph) setTree(t *Tables, st *ssspState, lid uint16) {
	for _, u := range st.order[1:] {
		t.SetPort(int(u), lid, int(g.out[u][st.parent[u]].port))
	}
}

// fillColumn writes the current tree's next hops into a destination column
// (columnWriter), as setTree writes them into the tables.
func (g *graph) fillColumn(col []uint8, st *ssspState) {
	for _, u := range st.order[1:] {
		col[u] = uint8(g.out[u][st.parent[u]].port)
	}
}

// routeSSSP is Alg. 3.1: for every HCA destination in LID order a shortest
// path tree on the current channel weights, after which each channel's
// weight grows by the number of HCA paths it carries.
func routeSSSP(g *graph, o Options) (*Tables, error) {
	t := NewTables(g.net, "sssp")
	g.setHCAPorts(t)
	st := newSSSP(g)
	w := newColumnWriter(t)
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		st.tree(dst)
		col := w.column(lid)
		col[dst] = uint8(g.hcaPort[int(g.destNode[i])-g.S])
		g.fillColumn(col, st)
		st.addLoad(dst)
	}
	w.flush()
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}
