package fabric

import "strconv"

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
	// ConnectivityMethod says how both were measured.
	ConnectivityMethod string `json:"connectivity_method,omitempty"`
	// Redundancy is the smallest number of parallel cables between adjacent
	// switches (r_C', Definition 3.3).
	Redundancy int  `json:"redundancy"`
	MaxRadix   int  `json:"max_radix"`
	Connected  bool `json:"connected"`
	// Groups counts the groups of a group topology; Classes the cables per
	// link class (rank-1, rank-2, rank-3; hca, switch elsewhere).
	Groups  int            `json:"groups,omitempty"`
	Classes map[string]int `json:"links_by_class"`
	// Rates counts the cables per rate their file states, in Gbit/s ("16"
	// for 4xDDR; "" for cables without one); nil when no cable has its own
	// rate.
	Rates map[string]int `json:"links_by_rate,omitempty"`
}

// Summarize computes the Info of a network.
func Summarize(n *Network) Info {
	in := Info{Name: n.Name, Switches: n.NumSwitches, HCAs: n.NumHCAs(), SwitchLinks: n.SwitchLinks()}
	in.HCALinks = len(n.Links) - in.SwitchLinks
	in.Groups, in.Classes = n.Groups, map[string]int{}
	for l, lk := range n.Links {
		in.Classes[n.LinkClass(l).String()]++
		if lk.Gbps != 0 && in.Rates == nil {
			in.Rates = map[string]int{}
		}
	}
	if in.Rates != nil {
		for _, lk := range n.Links {
			name := ""
			if lk.Gbps != 0 {
				name = strconv.FormatFloat(lk.Gbps, 'g', -1, 64)
			}
			in.Rates[name]++
		}
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
		in.ConnectivityMethod = ConnectivityMethod
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
