package routing

// routeMinHop is OpenSM's MinHop (§3.3.1): every switch forwards each
// destination over a port that lies on a shortest path, choosing among the
// candidates the port that carries the fewest HCA destinations so far
// (local balancing; ties to the lowest port). Destinations are taken in LID
// order.
func routeMinHop(g *graph, o Options) (*Tables, error) {
	return g.minHop("minhop", false), nil
}

// minHop returns MinHop's tables, named engine. With firstNeighbour set
// (DOR) a switch considers only the cables to the neighbour behind its
// lowest port on a shortest path.
func (g *graph) minHop(engine string, firstNeighbour bool) *Tables {
	t := NewTables(g.net, engine)
	dist := g.hopDistances()
	g.setHCAPorts(t)
	load := g.portCounters()
	cands := newCandidates(g.S)
	w := newColumnWriter(t)
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		if dst != cands.dst {
			row := dist[dst]
			_ = cands.list(dst, func(u int, ports []int32) ([]int32, error) {
				if u == dst || row[u] < 0 {
					return ports, nil
				}
				want, next := row[u]-1, int32(-1)
				for _, a := range g.out[u] {
					if row[a.to] != want || firstNeighbour && next >= 0 && a.to != next {
						continue
					}
					next = a.to
					ports = append(ports, a.port)
				}
				return ports, nil
			})
		}
		col := w.column(lid)
		col[dst] = uint8(g.hcaPort[int(g.destNode[i])-g.S])
		cands.route(col, load)
	}
	w.flush()
	g.routeSwitchLIDs(t, dist)
	return t
}
