package routing

// routeDOR is OpenSM's dimension-order routing: MinHop where a switch
// always takes the lowest-numbered port on a shortest path (so on the
// generated meshes and tori, whose ports follow the dimensions, packets
// correct dimension 0 first, then 1, …), balancing only among parallel
// cables to the same neighbour. Deadlock-free on meshes; on tori and other
// topologies verification reports the cycles.
func routeDOR(g *graph, o Options) (*Tables, error) {
	t := NewTables(g.net, "dor")
	dist := g.hopDistances()
	g.setHCAPorts(t)
	load := make([][]int32, g.S)
	for s := range load {
		load[s] = make([]int32, g.net.Nodes[s].Radix+1)
	}
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		row := dist[dst]
		for u := 0; u < g.S; u++ {
			if u == dst || row[u] < 0 {
				continue
			}
			next, best := int32(-1), int32(-1)
			for _, a := range g.out[u] {
				if row[a.to] != row[u]-1 {
					continue
				}
				if next < 0 {
					next = a.to // the first port on a shortest path picks the neighbour
				}
				if a.to == next && (best < 0 || load[u][a.port] < load[u][best]) {
					best = a.port
				}
			}
			t.SetPort(u, lid, int(best))
			load[u][best]++
		}
	}
	g.routeSwitchLIDs(t, dist)
	return t, nil
}
