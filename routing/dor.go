package routing

// routeDOR is OpenSM's dimension-order routing: MinHop where a switch
// always takes the lowest-numbered port on a shortest path (so on the
// generated meshes and tori, whose ports follow the dimensions, packets
// correct dimension 0 first, then 1, …), balancing only among parallel
// cables to the same neighbour. Deadlock-free on meshes; on tori and other
// topologies verification reports the cycles.
func routeDOR(g *graph, o Options) (*Tables, error) {
	return g.minHop("dor", true), nil
}
