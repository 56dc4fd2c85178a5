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
	w := newColumnWriter(t)
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		row := dist[dst]
		col := w.column(lid)
		col[dst] = uint8(g.hcaPort[int(g.destNode[i])-g.S])
		for u := 0; u < g.S; u++ {
			if u == dst || row[u] < 0 {
				continue
			}
			var best int32
			if firstNeighbour {
				best = leastLoadedToFirst(g.out[u], row, row[u]-1, load[u])
			} else {
				best = leastLoaded(g.out[u], row, row[u]-1, load[u])
			}
			col[u] = uint8(best)
			load[u][best]++
		}
	}
	w.flush()
	g.routeSwitchLIDs(t, dist)
	return t
}

// leastLoaded returns the port of the least loaded arc (the lowest port
// among equals) to a switch want hops from the destination, or -1.
func leastLoaded(arcs []arc, row []int16, want int16, load []int32) int32 {
	best := int32(-1)
	for _, a := range arcs {
		if row[a.to] == want && (best < 0 || load[a.port] < load[best]) {
			best = a.port
		}
	}
	return best
}

// leastLoadedToFirst is leastLoaded among the arcs to the neighbour of the
// first such arc.
func leastLoadedToFirst(arcs []arc, row []int16, want int16, load []int32) int32 {
	next, best := int32(-1), int32(-1)
	for _, a := range arcs {
		if row[a.to] != want {
			continue
		}
		if next < 0 {
			next = a.to
		}
		if a.to == next && (best < 0 || load[a.port] < load[best]) {
			best = a.port
		}
	}
	return best
}
