package routing

// routeMinHop is OpenSM's MinHop (§3.3.1): every switch forwards each
// destination over a port that lies on a shortest path, choosing among the
// candidates the port that carries the fewest HCA destinations so far
// (local balancing; ties to the lowest port). Destinations are taken in LID
// order.
func routeMinHop(g *graph, o Options) (*Tables, error) {
	t := NewTables(g.net, "minhop")
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
			best := int32(-1)
			for _, a := range g.out[u] {
				if row[a.to] == row[u]-1 && (best < 0 || load[u][a.port] < load[u][best]) {
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
