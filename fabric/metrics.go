package fabric

// Info summarizes a network the way the thesis' tables do. Connectivity and
// diameter are measured on the switch graph G(S, C*) (§3.1.3).
type Info struct {
	Name        string `json:"name"`
	Switches    int    `json:"switches"`
	HCAs        int    `json:"hcas"`
	SwitchLinks int    `json:"switch_links"`
	HCALinks    int    `json:"hca_links"`
	// Diameter is the largest switch-to-switch hop count; HCADiameter the
	// largest HCA-to-HCA hop count (HCA cables included).
	Diameter           int `json:"diameter"`
	HCADiameter        int `json:"hca_diameter"`
	VertexConnectivity int `json:"vertex_connectivity"`
	EdgeConnectivity   int `json:"edge_connectivity"`
	// Redundancy is the smallest number of parallel cables between adjacent
	// switches (r_C', Definition 3.3).
	Redundancy int  `json:"redundancy"`
	MaxRadix   int  `json:"max_radix"`
	Connected  bool `json:"connected"`
	// Groups counts the groups of a group topology; Classes the cables per
	// link class (rank-1, rank-2, rank-3; hca, switch elsewhere).
	Groups  int            `json:"groups,omitempty"`
	Classes map[string]int `json:"links_by_class"`
}

// Summarize computes the Info of a network.
func Summarize(n *Network) Info {
	in := Info{Name: n.Name, Switches: n.NumSwitches, HCAs: n.NumHCAs(), SwitchLinks: n.SwitchLinks()}
	in.HCALinks = len(n.Links) - in.SwitchLinks
	in.Groups, in.Classes = n.Groups, map[string]int{}
	for l := range n.Links {
		in.Classes[n.LinkClass(l).String()]++
	}
	adj := n.SwitchAdjacency()
	in.Redundancy = 0
	for s := range adj {
		in.MaxRadix = max(in.MaxRadix, n.Nodes[s].Radix)
		for _, nb := range adj[s] {
			if in.Redundancy == 0 || nb.Cables < in.Redundancy {
				in.Redundancy = nb.Cables
			}
		}
	}
	hasHCA := make([]bool, n.NumSwitches)
	for h := n.NumSwitches; h < len(n.Nodes); h++ {
		if s, _ := n.HCASwitch(h); s >= 0 {
			hasHCA[s] = true
		}
	}
	in.Diameter, in.HCADiameter, in.Connected = diameters(adj, hasHCA)
	if in.Connected {
		in.VertexConnectivity = VertexConnectivity(adj)
		in.EdgeConnectivity = EdgeConnectivity(adj)
	}
	return in
}

// BFS returns hop distances from src over the switch adjacency (-1 = unreachable).
func BFS(adj [][]Neighbor, src int, dist []int, queue []int) []int {
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue = append(queue[:0], src)
	for h := 0; h < len(queue); h++ {
		u := queue[h]
		for _, nb := range adj[u] {
			if dist[nb.Node] < 0 {
				dist[nb.Node] = dist[u] + 1
				queue = append(queue, nb.Node)
			}
		}
	}
	return queue
}

func diameters(adj [][]Neighbor, hasHCA []bool) (diam, hcaDiam int, connected bool) {
	n := len(adj)
	dist := make([]int, n)
	var q []int
	connected = true
	hcaDiam = -1
	for s := 0; s < n; s++ {
		q = BFS(adj, s, dist, q)
		for t := 0; t < n; t++ {
			if dist[t] < 0 {
				connected = false
				continue
			}
			diam = max(diam, dist[t])
			if hasHCA[s] && hasHCA[t] && s != t {
				hcaDiam = max(hcaDiam, dist[t]+2)
			}
		}
	}
	if hcaDiam < 0 { // all HCAs on one switch (or none)
		hcaDiam = 0
		for s := range hasHCA {
			if hasHCA[s] {
				hcaDiam = 2
			}
		}
	}
	return diam, hcaDiam, connected
}

// unitFlow is a reusable unit-capacity max-flow solver (augmenting paths by
// BFS) on a directed graph given as arc lists.
type unitFlow struct {
	head, next, to []int32
	cap            []int8
	prev           []int32 // arc into node on the current BFS tree
	queue          []int32
}

func newUnitFlow(nodes int) *unitFlow {
	f := &unitFlow{head: make([]int32, nodes), prev: make([]int32, nodes)}
	for i := range f.head {
		f.head[i] = -1
	}
	return f
}

// arc adds u→v with capacity c (and its residual twin).
func (f *unitFlow) arc(u, v int, c int8) {
	f.to = append(f.to, int32(v))
	f.cap = append(f.cap, c)
	f.next = append(f.next, f.head[u])
	f.head[u] = int32(len(f.to) - 1)
	f.to = append(f.to, int32(u))
	f.cap = append(f.cap, 0)
	f.next = append(f.next, f.head[v])
	f.head[v] = int32(len(f.to) - 1)
}

// maxFlow returns min(limit, max flow s→t); capacities are restored after.
func (f *unitFlow) maxFlow(s, t, limit int) int {
	orig := append([]int8(nil), f.cap...)
	flow := 0
	for flow < limit {
		for i := range f.prev {
			f.prev[i] = -2
		}
		f.prev[s] = -1
		f.queue = append(f.queue[:0], int32(s))
		found := false
		for h := 0; h < len(f.queue) && !found; h++ {
			u := f.queue[h]
			for a := f.head[u]; a >= 0; a = f.next[a] {
				v := f.to[a]
				if f.cap[a] > 0 && f.prev[v] == -2 {
					f.prev[v] = a
					if int(v) == t {
						found = true
						break
					}
					f.queue = append(f.queue, v)
				}
			}
		}
		if !found {
			break
		}
		for v := int32(t); v != int32(s); {
			a := f.prev[v]
			f.cap[a]--
			f.cap[a^1]++
			v = f.to[a^1]
		}
		flow++
	}
	copy(f.cap, orig)
	return flow
}

// VertexConnectivity returns κ of the (simple) switch graph: the least number
// of switches whose removal disconnects it (n−1 for a complete graph). It
// uses the Esfahanian–Hakimi reduction: with v of minimum degree, κ is the
// least local connectivity between v and a non-neighbour of v, or between
// two non-adjacent neighbours of v. Local connectivities are unit-capacity
// flows on the node-split graph, cut off at the best bound found so far.
func VertexConnectivity(adj [][]Neighbor) int {
	n := len(adj)
	if n <= 1 {
		return 0
	}
	// Node u splits into u_in = 2u and u_out = 2u+1 with a unit arc between.
	f := newUnitFlow(2 * n)
	const big = 127
	for u := 0; u < n; u++ {
		f.arc(2*u, 2*u+1, 1)
		for _, nb := range adj[u] {
			f.arc(2*u+1, 2*nb.Node, big)
		}
	}
	isNb := make([]bool, n)
	v := 0
	for u := 1; u < n; u++ {
		if len(adj[u]) < len(adj[v]) {
			v = u
		}
	}
	k := min(n-1, len(adj[v]))
	for _, nb := range adj[v] {
		isNb[nb.Node] = true
	}
	for w := 0; w < n && k > 0; w++ {
		if w != v && !isNb[w] {
			k = min(k, f.maxFlow(2*v+1, 2*w, k))
		}
	}
	mark := make([]bool, n)
	for i, x := range adj[v] {
		for _, nb := range adj[x.Node] {
			mark[nb.Node] = true
		}
		for _, y := range adj[v][i+1:] {
			if !mark[y.Node] && k > 0 {
				k = min(k, f.maxFlow(2*x.Node+1, 2*y.Node, k))
			}
		}
		for _, nb := range adj[x.Node] {
			mark[nb.Node] = false
		}
	}
	return k
}

// EdgeConnectivity returns λ of the switch multigraph: the least number of
// cables whose removal disconnects it.
func EdgeConnectivity(adj [][]Neighbor) int {
	n := len(adj)
	if n <= 1 {
		return 0
	}
	f := newUnitFlow(n)
	for u := 0; u < n; u++ {
		for _, nb := range adj[u] {
			for c := 0; c < nb.Cables; c++ {
				f.arc(u, nb.Node, 1)
			}
		}
	}
	k := -1
	for v := 0; v < n; v++ {
		d := 0
		for _, nb := range adj[v] {
			d += nb.Cables
		}
		if k < 0 || d < k {
			k = d
		}
	}
	for t := 1; t < n; t++ {
		k = min(k, f.maxFlow(0, t, k))
	}
	return k
}
