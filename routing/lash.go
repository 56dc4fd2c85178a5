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
	// next[dst][u]: u's output arc toward dst.
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
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		for u, k := range next[dst] {
			if k >= 0 {
				t.SetPort(u, lid, int(g.out[u][k].port))
			}
		}
	}
	g.routeSwitchLIDs(t, dist)

	// Online layer assignment per switch pair.
	var layers []*dynCDG
	nch := int32(2 * len(g.net.Links))
	layerOf := make([][]uint8, g.S) // [src][dst]
	var path []int32
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
					if L >= maxLayers {
						return nil, &Failure{Engine: "lash", Reason: fmt.Sprintf("needs more than %d virtual layers", maxLayers)}
					}
					layers = append(layers, newDynCDG(nch))
				}
				if layers[L].tryAdd(path) {
					break
				}
			}
			layerOf[s][dst] = uint8(L)
		}
	}
	n := max(len(layers), 1)
	t.VLsNeeded, t.VLsUsed = n, n
	if n > o.VLs {
		return nil, needsVLs("lash", n, o.VLs)
	}
	for i, lid := range g.dests {
		dst := int(g.hcaSwitch[int(g.destNode[i])-g.S])
		for s := 0; s < g.S; s++ {
			if layerOf[s] != nil {
				t.SetSL(s, lid, layerOf[s][dst])
			}
		}
	}
	return t, nil
}

// dynCDG is a channel dependency graph that grows edge by edge and refuses
// an edge that would close a cycle.
type dynCDG struct {
	adj   [][]int32
	has   map[uint64]struct{}
	stamp []uint32
	cur   uint32
	stack []int32
	added []int32 // from-nodes of the tentative edges of one path
}

func newDynCDG(nodes int32) *dynCDG {
	return &dynCDG{adj: make([][]int32, nodes), has: map[uint64]struct{}{}, stamp: make([]uint32, nodes)}
}

// tryAdd adds the dependencies of a channel path, or nothing if that would
// close a cycle.
func (d *dynCDG) tryAdd(path []int32) bool {
	d.added = d.added[:0]
	for k := 1; k < len(path); k++ {
		a, b := path[k-1], path[k]
		key := edgeKey(a, b)
		if _, ok := d.has[key]; ok {
			continue
		}
		if a == b || d.reaches(b, a) {
			for i := len(d.added) - 1; i >= 0; i-- {
				f := d.added[i]
				to := d.adj[f][len(d.adj[f])-1]
				d.adj[f] = d.adj[f][:len(d.adj[f])-1]
				delete(d.has, edgeKey(f, to))
			}
			return false
		}
		d.adj[a] = append(d.adj[a], b)
		d.has[key] = struct{}{}
		d.added = append(d.added, a)
	}
	return true
}

// reaches reports whether there is a path from x to y.
func (d *dynCDG) reaches(x, y int32) bool {
	d.cur++
	if d.cur == 0 {
		clear(d.stamp)
		d.cur = 1
	}
	d.stack = append(d.stack[:0], x)
	d.stamp[x] = d.cur
	for len(d.stack) > 0 {
		u := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if u == y {
			return true
		}
		for _, v := range d.adj[u] {
			if d.stamp[v] != d.cur {
				d.stamp[v] = d.cur
				d.stack = append(d.stack, v)
			}
		}
	}
	return false
}
