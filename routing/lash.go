package routing

import (
	"fmt"

	"flitsim/fabric"
)

// routeLASH is LASH (§3.3.6, Alg. 3.5): one shortest path per pair of
// switches (destination-based: a BFS tree per destination switch, lowest
// port first), and each pair of switches goes, with the paths of both its
// directions, to the first virtual layer where they close no cycle in the
// layer's CDG, as OpenSM's LASH places them, and then the layers are
// evened out as OpenSM's are (balanceLayers; Options.Asymmetric: each
// direction on its own, no evening out). All HCAs on a switch share its
// paths, so LASH balances switch-to-switch routes, not HCA traffic, which
// the thesis found to congest links.
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
	layerOf, n, err := g.lashLayers(next, o.VLs, !o.Asymmetric, o.Seed)
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
// into the first of at most vls layers whose CDG it leaves acyclic; with
// sym the two directions of a pair go together, in the pair's order (the
// lower switch first), into the first layer that takes both. It returns
// each pair's layer, [src][dst], and the number of layers. A pair no layer
// takes fails the engine at once: counting the layers it would need beyond
// vls meant layering every other pair first (on a 20×20×20 torus 64 M
// pairs, 13 minutes, to learn that it needs 13).
func (g *graph) lashLayers(next [][]int32, vls int, sym bool, seed uint64) ([][]uint8, int, error) {
	var layers []*cdg
	layerOf := make([][]uint8, g.S)
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) > 0 {
			layerOf[s] = make([]uint8, g.S)
		}
	}
	// path returns the channels from switch s to dst in buf.
	path := func(buf []int32, s, dst int) []int32 {
		buf = buf[:0]
		for u := int32(s); int(u) != dst; {
			a := g.out[u][next[dst][u]]
			buf = append(buf, a.ch)
			u = a.to
		}
		return buf
	}
	var there, back []int32
	var pairs []lashPair
	placed := 0
	for s := 0; s < g.S; s++ {
		g.progress("source switches", s, g.S)
		if layerOf[s] == nil {
			continue
		}
		for dst := 0; dst < g.S; dst++ {
			if next[dst] == nil || dst == s || next[dst][s] < 0 || (sym && dst < s) {
				continue
			}
			there = path(there, s, dst)
			back = back[:0]
			// Failures take whole cables, so a pair joined one way is
			// joined the other way too.
			if sym && next[s] != nil && next[s][dst] >= 0 {
				back = path(back, dst, s)
			}
			if !sym && len(there) < 2 {
				continue // no dependency: layer 0
			}
			L := 0
			for ; ; L++ {
				if L == len(layers) {
					if L >= vls {
						f := needsVLs("lash", vls+1, vls)
						f.AtLeast = true
						what := "the path from %s to %s closes"
						if sym {
							what = "the paths between %s and %s close"
						}
						f.Reason = fmt.Sprintf("needs more than %d VLs: "+what+" a cycle in every layer (after %d switch pairs placed)",
							vls, g.net.Nodes[s].Name, g.net.Nodes[dst].Name, placed)
						return nil, 0, f
					}
					layers = append(layers, newOrderedCDG(g.chans.Len()))
				}
				if layers[L].insertPath(there) {
					if layers[L].insertPath(back) {
						break
					}
					layers[L].removePath(there)
				}
			}
			layerOf[s][dst] = uint8(L)
			if sym {
				layerOf[dst][s] = uint8(L)
				pairs = append(pairs, lashPair{int32(s), int32(dst), uint8(L)})
			}
			placed++
		}
	}
	g.progress("source switches", g.S, g.S)
	if sym && len(layers) > 1 {
		g.balanceLayers(layers, pairs, path, seed)
		for _, p := range pairs {
			layerOf[p.a][p.b], layerOf[p.b][p.a] = p.layer, p.layer
		}
	}
	return layerOf, max(len(layers), 1), nil
}

// lashPair is a pair of switches a < b whose two paths share a layer.
type lashPair struct {
	a, b  int32
	layer uint8
}

// balanceLayers evens out the pairs over the layers as OpenSM's LASH does
// after placing them (osm_ucast_lash.c, balance_virtual_lanes): while the
// fullest layer holds at least balanceLimit directed paths more than the
// emptiest, it takes a pair of the fullest, from a random place in its
// list onwards the first not yet tried, and moves it to the emptiest if
// both its paths fit there without a cycle; it stops when every pair of
// the fullest layer has been tried or moved since the two layers last
// changed.
// OpenSM draws with libc's rand(); here the draws come from the seeded
// stream "lash/balance", so the layers are OpenSM's in kind, not pair for
// pair.
func (g *graph) balanceLayers(layers []*cdg, pairs []lashPair, path func([]int32, int, int) []int32, seed uint64) {
	const balanceLimit = 6 // OpenSM's, in directed paths
	rng := fabric.Stream(seed, "lash/balance")
	in := make([][]int32, len(layers)) // the pairs of each layer
	for i, p := range pairs {
		in[p.layer] = append(in[p.layer], int32(i))
	}
	extremes := func() (hi, lo int) {
		for l := range in {
			if len(in[l]) > len(in[hi]) {
				hi = l
			}
			if len(in[l]) < len(in[lo]) {
				lo = l
			}
		}
		return hi, lo
	}
	hi, lo := extremes()
	tried := make([]bool, len(pairs))
	left := len(in[hi]) // pairs of the fullest layer not tried since the extremes changed
	var there, back []int32
	for left > 0 && 2*(len(in[hi])-len(in[lo])) >= balanceLimit {
		list := in[hi]
		k := rng.IntN(len(list))
		for tried[list[k]] {
			k = (k + 1) % len(list)
		}
		pi := list[k]
		p := &pairs[pi]
		there, back = path(there, int(p.a), int(p.b)), path(back, int(p.b), int(p.a))
		if layers[lo].insertPath(there) {
			if layers[lo].insertPath(back) {
				layers[hi].removePath(there)
				layers[hi].removePath(back)
				list[k] = list[len(list)-1]
				in[hi] = list[:len(list)-1]
				in[lo] = append(in[lo], pi)
				p.layer = uint8(lo)
			} else {
				layers[lo].removePath(there)
				tried[pi] = true
			}
		} else {
			tried[pi] = true
		}
		left--
		if nhi, nlo := extremes(); nhi != hi || nlo != lo {
			hi, lo = nhi, nlo
			clear(tried)
			left = len(in[hi])
		}
	}
}
