package routing

// hopUnit makes distances lexicographic in (hops, load): one hop outweighs
// any sum of channel loads. The paper initializes every weight to |N|² for
// the same purpose (a detour never pays off); the lexicographic form is its
// limit and keeps the shortest-path property exact on any network.
const hopUnit int64 = 1 << 40

// incoming lists, per switch v, the arcs (u, index into out[u]) that enter v,
// each with its channel and output port at u (those of out[u][idx], kept
// here so that a search over v's arcs reads one list in order).
type inArc struct {
	from int32
	idx  int32
	ch   int32
	port int32
}

func (g *graph) incoming() [][]inArc {
	in := make([][]inArc, g.S)
	for u := 0; u < g.S; u++ {
		for k, a := range g.out[u] {
			in[a.to] = append(in[a.to], inArc{from: int32(u), idx: int32(k), ch: a.ch, port: a.port})
		}
	}
	return in
}

// ssspState is the reusable work space of the per-destination Dijkstra.
type ssspState struct {
	g      *graph
	weight []int64 // per channel: paths routed over it so far
	dist   []int64
	parent []int32 // index into out[u] of u's next hop, -1 none
	order  []int32 // switches in pop order
	count  []int64
	levels []int32 // tree's counting sort
}

func newSSSP(g *graph) *ssspState {
	return &ssspState{g: g, weight: make([]int64, g.chans.Len()),
		dist: make([]int64, g.S), parent: make([]int32, g.S), count: make([]int64, g.S)}
}

// tree computes every switch's next hop toward switch dst under the current
// weights. Among equal distances the lower output port wins.
//
// Distances are lexicographic in (hops, load) (hopUnit), so a switch's best
// next hop is among its neighbours one hop closer to dst: switches taken
// level by level from dst (hop counts computed once per network) settle
// each in one look at their arcs, which is Dijkstra's answer without its
// heap. The order is by hop count, so every switch comes after its next hop.
func (st *ssspState) tree(dst int) {
	g := st.g
	const inf = int64(1) << 62
	row := g.hopDistances()[dst] // made once per graph
	// Counting sort of the reached switches by hops to dst.
	top := int16(0)
	for _, h := range row {
		top = max(top, h)
	}
	st.levels = append(st.levels[:0], make([]int32, top+2)...)
	for _, h := range row {
		if h >= 0 {
			st.levels[h+1]++
		}
	}
	for i := 1; i < len(st.levels); i++ {
		st.levels[i] += st.levels[i-1]
	}
	n := st.levels[len(st.levels)-1]
	st.order = append(st.order[:0], make([]int32, n)...)
	for u, h := range row {
		st.dist[u], st.parent[u] = inf, -1
		if h >= 0 {
			st.order[st.levels[h]] = int32(u)
			st.levels[h]++
		}
	}
	st.dist[dst] = 0
	for _, u := range st.order[1:] {
		best, bp := inf, int32(-1)
		for k, a := range g.out[u] {
			if row[a.to] != row[u]-1 {
				continue
			}
			nd := st.dist[a.to] + hopUnit + st.weight[a.ch]
			if nd < best || (nd == best && a.port < g.out[u][bp].port) {
				best, bp = nd, int32(k)
			}
		}
		st.dist[u], st.parent[u] = best, bp
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
		g.progress("shortest-path trees", i+1, len(g.dests))
	}
	w.flush()
	g.routeSwitchLIDs(t, g.hopDistances())
	return t, nil
}
