package routing

import (
	"fmt"
	"strings"

	"flitsim/routing/angara"
)

// The Angara engines (seeds/003) route generated tori and meshes, failed
// cables and switches included, with per-pair source routes under
// Angara's rules: direction order +X +Y +Z +K −X −Y −Z −K, never both
// signs of one dimension, an optional positive first step and negative
// last step where the channel dependency graph allows the turn (package
// angara). Their dependency cycles lie within rings; bubble flow control
// (hardware bubble_vls) breaks those. Every packet stays on VL 0.

// angaraEngines lists the Angara engines' names, helps and algorithms.
var angaraEngines = []struct {
	name, help string
	params     []string
	run        func(t *angara.Torus, nodes []int, o Options) *angara.Routes
}{
	{"angara-dor", "Angara's direction order alone (seeds/003 §3): +X +Y +Z +K −X −Y −Z −K, one sign per dimension, no first or last step; around failures the first route in that order that remains; source routes, VL 0, ring cycles left to bubble flow control (bubble_vls)",
		nil, func(t *angara.Torus, nodes []int, _ Options) *angara.Routes {
			return angara.DOR(t, angara.Options{Nodes: nodes})
		}},
	{"angara-bfs", "Angara's BFS table generation (seeds/003 Alg. 1-2): sources farthest first, a breadth-first search of the routing graph (direction order with the deadlock-free first and last steps of §3.2) visiting each level by channel weight, every route adding 1 to its channels; source routes, VL 0, bubble flow control (bubble_vls)",
		nil, func(t *angara.Torus, nodes []int, _ Options) *angara.Routes {
			return angara.BFS(t, angara.Options{Nodes: nodes})
		}},
	{"angara-sssp", "Angara's SSSP table generation (seeds/003 Alg. 3-4): the pairs with a single minimal route first, then the rest grouped by turns and length, each a shortest path on channel weights that grow by |N|² per route; source routes, VL 0, bubble flow control (bubble_vls)",
		nil, func(t *angara.Torus, nodes []int, _ Options) *angara.Routes {
			return angara.SSSP(t, angara.Options{Nodes: nodes})
		}},
	{"angara-genetic", "Angara's genetic table generation (seeds/003 §4.2): a gene per pair choosing one of its minimal routes, population 100, two-point crossover, 2 % mutation, fitness σ(4, R), stops after 30 generations without gain (and with min_gain at the first smaller gain); seeded; source routes, VL 0, bubble flow control (bubble_vls)",
		[]string{paramSeed, paramGain}, func(t *angara.Torus, nodes []int, o Options) *angara.Routes {
			g := angara.DefaultGenetic()
			g.Nodes, g.Seed, g.MinGain = nodes, o.Seed, o.MinGain
			return angara.Genetic(t, g)
		}},
}

// routeAngara returns the route function of Angara engine i.
func routeAngara(i int) func(g *graph, o Options) (*Tables, error) {
	e := angaraEngines[i]
	return func(g *graph, o Options) (*Tables, error) {
		tor, err := angara.NewTorus(g.net)
		if err != nil {
			return nil, &Failure{Engine: e.name, Reason: err.Error()}
		}
		var nodes []int
		for s := 0; s < g.S; s++ {
			if g.numHCAs(s) > 0 {
				nodes = append(nodes, s)
			}
		}
		r := e.run(tor, nodes, o)
		return sourceTables(g, e.name, tor, r), nil
	}
}

// sourceTables turns Angara routes into source-routed tables: each hop's
// port (of parallel cables the same rank on every hop, the pair's share:
// (source + destination) mod the fewest along the route), the forwarding
// entries of each switch's own HCAs, VL 0.
func sourceTables(g *graph, name string, tor *angara.Torus, r *angara.Routes) *Tables {
	t := NewTables(g.net, name)
	for s := 0; s < g.S; s++ {
		for _, h := range g.hcas[s] {
			t.SetPort(s, g.net.Nodes[h].LID, int(g.hcaPort[int(h)-g.S]))
		}
	}
	src := NewSourceRoutes(g.S)
	var ports []uint8
	for _, a := range r.Nodes {
		for _, b := range r.Nodes {
			hops, ok := r.Hops(a, b)
			if !ok || a == b {
				continue
			}
			// One rank of parallel cables all the way (Network.Ring: a
			// change of cable is a change of ring), the pair's share of
			// the fewest the route has.
			m, u := 1<<30, a
			for _, d := range hops {
				m = min(m, len(tor.Ports(u, d)))
				u = tor.Next(u, d)
			}
			ports, u = ports[:0], a
			for _, d := range hops {
				ports = append(ports, tor.Ports(u, d)[(a+b)%m])
				u = tor.Next(u, d)
			}
			src.Set(a, b, ports, r.Header(a, b))
		}
	}
	t.Source = src
	if u := r.Unrouted(); len(u) > 0 {
		var names []string
		for _, p := range u[:min(len(u), 5)] {
			names = append(names, g.net.Nodes[p[0]].Name+"→"+g.net.Nodes[p[1]].Name)
		}
		more := ""
		if len(u) > 5 {
			more = ", …"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%d switch pairs with HCAs have no route under Angara's rules: %s%s", len(u), strings.Join(names, ", "), more))
	}
	return t
}
