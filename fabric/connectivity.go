package fabric

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// ConnectivityMethod names how Summarize measures κ and λ, for reports.
const ConnectivityMethod = "exact: unit max-flows, best-first augmenting paths; κ over Esfahanian–Hakimi pairs less those implied by k proven neighbours, λ to one switch of least degree"

// flowNet is a unit-augmenting max-flow solver on a directed graph in
// compressed rows, built for many flows into one sink: prepare computes the
// hop distance of every node to the sink once, and each augmenting path is
// found by a search best-first by that distance. The search is complete, so
// a flow it reports is maximal (or reached its limit); the guidance only
// makes the common case, a well-connected network, cost about a path length
// per augmentation instead of a sweep of the graph.
type flowNet struct {
	start []int32 // arcs of node u: start[u] .. start[u+1]-1
	to    []int32
	twin  []int32 // the residual reverse of each arc
	init  []int32 // capacities before a flow
	cap   []int32 // residual capacities during a flow

	sink    int32
	dist    []int32 // hops to the sink over arcs with capacity; large if none
	seen    []uint32
	stamp   uint32
	parent  []int32   // arc by which the search reached a node
	buckets [][]int32 // search frontier by distance to the sink
	touched []int32   // arcs whose capacity a flow changed
}

// flowArc is one arc with its reverse before the rows are built.
type flowArc struct {
	from, to       int32
	capTo, capBack int32
}

// newFlowNet builds the solver for nodes nodes and the arc pairs arcs (each
// pair u→v with capTo and v→u with capBack, residual twins of each other).
func newFlowNet(nodes int, arcs []flowArc) *flowNet {
	f := &flowNet{start: make([]int32, nodes+1)}
	for _, a := range arcs {
		f.start[a.from+1]++
		f.start[a.to+1]++
	}
	for u := 0; u < nodes; u++ {
		f.start[u+1] += f.start[u]
	}
	m := 2 * len(arcs)
	f.to, f.twin, f.init = make([]int32, m), make([]int32, m), make([]int32, m)
	fill := append([]int32(nil), f.start[:nodes]...)
	for _, a := range arcs {
		i, j := fill[a.from], fill[a.to]
		fill[a.from]++
		fill[a.to]++
		f.to[i], f.init[i], f.twin[i] = a.to, a.capTo, j
		f.to[j], f.init[j], f.twin[j] = a.from, a.capBack, i
	}
	f.cap = append([]int32(nil), f.init...)
	f.dist, f.seen = make([]int32, nodes), make([]uint32, nodes)
	f.parent = make([]int32, nodes)
	f.sink = -1
	return f
}

// prepare makes sink the sink of the following flows and measures the hop
// distance of every node to it.
func (f *flowNet) prepare(sink int) {
	const far = 1 << 30
	for i := range f.dist {
		f.dist[i] = far
	}
	f.sink = int32(sink)
	f.dist[sink] = 0
	q := []int32{int32(sink)}
	for h := 0; h < len(q); h++ {
		y := q[h]
		for b := f.start[y]; b < f.start[y+1]; b++ {
			x := f.to[b] // arc twin[b] runs x → y
			if f.init[f.twin[b]] > 0 && f.dist[x] == far {
				f.dist[x] = f.dist[y] + 1
				q = append(q, x)
			}
		}
	}
	maxDist := int32(0)
	for _, d := range f.dist {
		if d < far {
			maxDist = max(maxDist, d)
		}
	}
	f.buckets = f.buckets[:0]
	for range maxDist + 2 {
		f.buckets = append(f.buckets, nil)
	}
}

// maxFlow returns min(limit, the max flow from src to the prepared sink) and
// restores the capacities.
func (f *flowNet) maxFlow(src, limit int) int {
	flow := 0
	for flow < limit && f.augment(int32(src)) {
		flow++
	}
	for _, a := range f.touched {
		f.cap[a], f.cap[f.twin[a]] = f.init[a], f.init[f.twin[a]]
	}
	f.touched = f.touched[:0]
	return flow
}

// augment finds one path from src to the sink in the residual graph and
// pushes a unit of flow along it. The search is best-first by distance to
// the sink (a bucket per distance), so it follows free downhill arcs
// straight to the sink and, where they are used up, widens around the
// nodes closest to the sink before anything farther.
func (f *flowNet) augment(src int32) bool {
	f.stamp++
	if f.stamp == 0 { // wrapped: forget every old mark
		clear(f.seen)
		f.stamp = 1
	}
	for i := range f.buckets {
		f.buckets[i] = f.buckets[i][:0]
	}
	f.seen[src] = f.stamp
	f.push(src)
	for cur := f.level(src); cur < len(f.buckets); {
		b := f.buckets[cur]
		if len(b) == 0 {
			cur++
			continue
		}
		u := b[len(b)-1]
		f.buckets[cur] = b[:len(b)-1]
		for a := f.start[u]; a < f.start[u+1]; a++ {
			v := f.to[a]
			if f.cap[a] <= 0 || f.seen[v] == f.stamp {
				continue
			}
			f.seen[v], f.parent[v] = f.stamp, a
			if v == f.sink {
				for x := v; x != src; {
					e := f.parent[x]
					f.cap[e]--
					f.cap[f.twin[e]]++
					f.touched = append(f.touched, e)
					x = f.to[f.twin[e]]
				}
				return true
			}
			f.push(v)
			cur = min(cur, f.level(v))
		}
	}
	return false
}

// level is the bucket of a node: its distance to the sink, the last bucket
// for nodes with none.
func (f *flowNet) level(u int32) int { return int(min(f.dist[u], int32(len(f.buckets)-1))) }

func (f *flowNet) push(u int32) {
	l := f.level(u)
	f.buckets[l] = append(f.buckets[l], u)
}

// clone returns a solver sharing f's graph with its own search state.
func (f *flowNet) clone() *flowNet {
	n := len(f.dist)
	return &flowNet{
		start: f.start, to: f.to, twin: f.twin, init: f.init,
		cap:  append([]int32(nil), f.init...),
		sink: -1, dist: make([]int32, n), seen: make([]uint32, n), parent: make([]int32, n),
	}
}

// flowTask is one local connectivity to measure: a flow from src into sink.
type flowTask struct{ sink, src int32 }

// minFlow returns the least of k and the max flows of the tasks, each cut
// off at the least value found so far. The tasks are shared among one
// worker per processor; the answer is the same minimum whatever the
// schedule, since a cut-off only stops flows that cannot lower it. Tasks
// with one sink should be adjacent, so a worker seldom prepares a sink.
func minFlow(f *flowNet, tasks []flowTask, k int) int {
	var best atomic.Int64
	best.Store(int64(k))
	var next atomic.Int64
	const chunk = 8
	workers := min(runtime.GOMAXPROCS(0), (len(tasks)+chunk-1)/chunk)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		g := f
		if w > 0 {
			g = f.clone()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := int(next.Add(chunk)) - chunk
				if lo >= len(tasks) {
					return
				}
				for _, t := range tasks[lo:min(lo+chunk, len(tasks))] {
					limit := int(best.Load())
					if limit == 0 {
						return
					}
					if g.sink != t.sink {
						g.prepare(int(t.sink))
					}
					if got := g.maxFlow(int(t.src), limit); got < limit {
						for {
							cur := best.Load()
							if int64(got) >= cur || best.CompareAndSwap(cur, int64(got)) {
								break
							}
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	return int(best.Load())
}

// VertexConnectivity returns κ of the (simple) switch graph: the least number
// of switches whose removal disconnects it (n−1 for a complete graph). It
// uses the Esfahanian–Hakimi reduction: with v of minimum degree, κ is the
// least local connectivity between v and a non-neighbour of v, or between
// two non-adjacent neighbours of v. Local connectivities are unit flows on
// the node-split graph, cut off at the best bound found so far.
func VertexConnectivity(adj [][]Neighbor) int {
	n := len(adj)
	if n <= 1 {
		return 0
	}
	v := 0
	for u := 1; u < n; u++ {
		if len(adj[u]) < len(adj[v]) {
			v = u
		}
	}
	order := BFS(adj, v, make([]int, n), nil)
	if len(order) < n {
		return 0
	}
	k := min(n-1, len(adj[v]))
	// Node u splits into u_in = 2u and u_out = 2u+1 with a unit arc between;
	// a flow runs from out of one end to into the other.
	var arcs []flowArc
	for u := 0; u < n; u++ {
		arcs = append(arcs, flowArc{from: int32(2 * u), to: int32(2*u + 1), capTo: 1})
		for _, nb := range adj[u] {
			arcs = append(arcs, flowArc{from: int32(2*u + 1), to: int32(2 * nb.Node), capTo: int32(n)})
		}
	}
	// A non-neighbour w of v needs no flow when it has k "good" neighbours:
	// neighbours of v, or switches whose κ(v,·) is at least the final
	// answer (every switch before w in the order: flowed switches by their
	// flow, the others by this rule). A separator S of v and w with |S|
	// below the answer misses one of them, x, which then lies on w's side of
	// S although S cannot separate it from v. Taken breadth-first from v,
	// most of a regular fabric follows from a few flows.
	isNb := make([]bool, n)
	good := make([]int, n)
	for _, nb := range adj[v] {
		isNb[nb.Node] = true
		for _, y := range adj[nb.Node] {
			good[y.Node]++
		}
	}
	var tasks []flowTask
	for _, w := range order {
		if w == v || isNb[w] {
			continue
		}
		if good[w] < k {
			tasks = append(tasks, flowTask{sink: int32(2 * v), src: int32(2*w + 1)})
		}
		for _, y := range adj[w] {
			good[y.Node]++
		}
	}
	mark := make([]bool, n)
	for i, x := range adj[v] {
		for _, nb := range adj[x.Node] {
			mark[nb.Node] = true
		}
		for _, y := range adj[v][i+1:] {
			if !mark[y.Node] {
				tasks = append(tasks, flowTask{sink: int32(2 * x.Node), src: int32(2*y.Node + 1)})
			}
		}
		for _, nb := range adj[x.Node] {
			mark[nb.Node] = false
		}
	}
	return minFlow(newFlowNet(2*n, arcs), tasks, k)
}

// EdgeConnectivity returns λ of the switch multigraph: the least number of
// cables whose removal disconnects it: the least local edge connectivity
// between a switch of least degree and any other switch.
func EdgeConnectivity(adj [][]Neighbor) int {
	n := len(adj)
	if n <= 1 {
		return 0
	}
	var arcs []flowArc
	for u := 0; u < n; u++ {
		for _, nb := range adj[u] {
			if u < nb.Node { // an undirected cable bundle: both arcs carry it
				arcs = append(arcs, flowArc{from: int32(u), to: int32(nb.Node), capTo: int32(nb.Cables), capBack: int32(nb.Cables)})
			}
		}
	}
	s, k := 0, -1
	for v := 0; v < n; v++ {
		d := 0
		for _, nb := range adj[v] {
			d += nb.Cables
		}
		if k < 0 || d < k {
			s, k = v, d
		}
	}
	tasks := make([]flowTask, 0, n-1)
	for t := 0; t < n; t++ {
		if t != s {
			tasks = append(tasks, flowTask{sink: int32(s), src: int32(t)})
		}
	}
	return minFlow(newFlowNet(n, arcs), tasks, k)
}
