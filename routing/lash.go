package routing

import "fmt"

// routeLASH is LASH (§3.3.6, Alg. 3.5): one shortest path per pair of
// switches (destination-based: a BFS tree per destination switch, lowest
// port first), and each (source switch, destination switch) path goes to the
// first virtual layer where it closes no cycle in the layer's CDG. All HCAs
// on a switch share its paths, so LASH balances switch-to-switch routes,
// not HCA traffic, which the thesis found to congest links.
func routeLASH(g *graph, o Options) (*Tables, error) {
	t := NewTables(g.net, "lash")
	g.setHCAPorts(t)
	dist := g.hopDistances()
	next := g.lashTrees(dist)
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		for u, k := range next[dst] {
			if k >= 0 {
				t.SetPort(u, lid, int(g.out[u][k].port))
			}
		}
	}
	g.routeSwitchLIDs(t, dist)
	layerOf, n, err := g.lashLayers(next, o.VLs)
	if err != nil {
		return nil, err
	}
	t.VLsNeeded, t.VLsUsed = n, n
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		for s := 0; s < g.S; s++ {
			if layerOf[s] != nil {
				t.SetSL(s, lid, layerOf[s][dst])
			}
		}
	}
	return t, nil
}

// lashTrees returns, per HCA-carrying destination switch dst, every
// switch's output arc toward it (an index into out[u], -1 none): next[dst][u].
func (g *graph) lashTrees(dist [][]int16) [][]int32 {
	next := make([][]int32, g.S)
	for dst := 0; dst < g.S; dst++ {
		if g.numHCAs(dst) == 0 {
			continue
		}
		row, nx := dist[dst], make([]int32, g.S)
		for u := range nx {
			nx[u] = -1
			if u == dst || row[u] < 0 {
				continue
			}
			for k, a := range g.out[u] {
				if row[a.to] == row[u]-1 {
					nx[u] = int32(k)
					break
				}
			}
		}
		next[dst] = nx
	}
	return next
}

// lashLayers puts the path of every pair of HCA-carrying switches, online,
// into the first of at most vls layers whose CDG it leaves acyclic. It
// returns each pair's layer, [src][dst], and the number of layers. A pair
// no layer takes fails the engine at once: counting the layers it would
// need beyond vls meant layering every other pair first (on a 20×20×20
// torus 64 M pairs, 13 minutes, to learn that it needs 13).
func (g *graph) lashLayers(next [][]int32, vls int) ([][]uint8, int, error) {
	var layers []*cdg
	layerOf := make([][]uint8, g.S)
	var path []int32
	placed := 0
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) == 0 {
			continue
		}
		layerOf[s] = make([]uint8, g.S)
		for dst := 0; dst < g.S; dst++ {
			if next[dst] == nil || dst == s || next[dst][s] < 0 {
				continue
			}
			path = path[:0]
			for u := int32(s); int(u) != dst; {
				a := g.out[u][next[dst][u]]
				path = append(path, a.ch)
				u = a.to
			}
			if len(path) < 2 {
				continue
			}
			L := 0
			for ; ; L++ {
				if L == len(layers) {
					if L >= vls {
						f := needsVLs("lash", vls+1, vls)
						f.AtLeast = true
						f.Reason = fmt.Sprintf("needs more than %d VLs: the path from %s to %s closes a cycle in every layer (after %d switch pairs)",
							vls, g.net.Nodes[s].Name, g.net.Nodes[dst].Name, placed)
						return nil, 0, f
					}
					layers = append(layers, newOrderedCDG(g.chans.Len()))
				}
				if layers[L].insertPath(path) {
					break
				}
			}
			layerOf[s][dst] = uint8(L)
			placed++
		}
	}
	return layerOf, max(len(layers), 1), nil
}
