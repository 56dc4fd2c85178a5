// Package angara routes n-dimensional tori by the rules of the Angara
// interconnect (seeds/003, Mukosey, Semenov and Tretiakov): every route is
// written into the packet header at its source and follows the direction
// order +X +Y +Z +K −X −Y −Z −K, never both signs of one dimension (the
// direction bit rule), with an optional positive first step and negative
// last step out of that order where the channel dependency graph allows
// them (§3). Deadlock inside a ring is left to bubble flow control.
//
// The package builds the paper's routing graph (§3.1), augments it with
// the extra turns of §3.2, counts minimal routes (§4.3) and computes
// per-pair routes with the BFS, SSSP and genetic algorithms of §4 and with
// plain direction order. It knows the network only through package fabric;
// package routing turns its Routes into source-routed tables.
package angara

import (
	"fmt"

	"flitsim/fabric"
)

// Dir is a direction: 0 … n−1 are +dimension, n … 2n−1 are −dimension, so
// that the numeric order is the Angara direction order.
type Dir uint8

// Torus is the geometry of a generated torus or mesh as the Angara rules
// see it: its switches (the Angara nodes: a router and its adapter) with
// their coordinates, and per switch and direction the neighbour and the
// live cables to it. A dimension of size 2 is a mesh (one cable, + from
// coordinate 0, − from 1), as Angara's convention and flitsim's generator
// both have it. Failed cables and switches are simply missing.
type Torus struct {
	// Dims are the switches per dimension.
	Dims []int
	// Wrap says per dimension whether it is a ring (a torus dimension of
	// size > 2) or a line.
	Wrap []bool
	// N is the number of switches of the network (its indices 0 … N−1).
	N  int
	n  int     // dimensions
	nb []int32 // [s*2n+d] neighbour switch, -1 if no live cable
	// ports[s*2n+d] are the live ports of switch s towards nb (parallel cables).
	ports [][]uint8
	pos   []int32 // [s] grid position (mixed radix over Dims)
	at    []int32 // [grid position] switch, -1 if absent
}

// NewTorus reads the torus geometry of net, which must come from the torus
// or mesh generator (switch coordinates and Network.Dims), possibly with
// failures injected.
func NewTorus(net *fabric.Network) (*Torus, error) {
	if len(net.Dims) == 0 {
		return nil, fmt.Errorf("not a generated torus or mesh (no switch coordinates)")
	}
	n := len(net.Dims)
	if 2*n > 16 {
		return nil, fmt.Errorf("%d dimensions: at most 8", n)
	}
	t := &Torus{Dims: append([]int(nil), net.Dims...), Wrap: make([]bool, n), N: net.NumSwitches, n: n,
		nb: make([]int32, net.NumSwitches*2*n), ports: make([][]uint8, net.NumSwitches*2*n),
		pos: make([]int32, net.NumSwitches)}
	for k := range t.Wrap {
		t.Wrap[k] = k < len(net.Wrap) && net.Wrap[k] && t.Dims[k] > 2
	}
	cells := 1
	for _, d := range t.Dims {
		cells *= d
	}
	t.at = make([]int32, cells)
	for i := range t.at {
		t.at[i] = -1
	}
	for s := 0; s < net.NumSwitches; s++ {
		c := net.Nodes[s].Coord
		if len(c) != n {
			return nil, fmt.Errorf("switch %s has no %d-dimensional coordinate", net.Nodes[s].Name, n)
		}
		p, stride := 0, 1
		for k, x := range c {
			if x < 0 || x >= t.Dims[k] {
				return nil, fmt.Errorf("switch %s: coordinate %v outside %v", net.Nodes[s].Name, c, t.Dims)
			}
			p += x * stride
			stride *= t.Dims[k]
		}
		if t.at[p] >= 0 {
			return nil, fmt.Errorf("switches %s and %s share coordinate %v", net.Nodes[t.at[p]].Name, net.Nodes[s].Name, c)
		}
		t.at[p], t.pos[s] = int32(s), int32(p)
	}
	for i := range t.nb {
		t.nb[i] = -1
	}
	for s := 0; s < net.NumSwitches; s++ {
		for p := 1; p <= net.Nodes[s].Radix; p++ {
			e, ok := net.Peer(s, p)
			if !ok || int(e.Node) >= net.NumSwitches {
				continue
			}
			d, ok := t.direction(net.Nodes[s].Coord, net.Nodes[e.Node].Coord)
			if !ok {
				return nil, fmt.Errorf("cable %s port %d to %s is not between torus neighbours", net.Nodes[s].Name, p, net.Nodes[e.Node].Name)
			}
			i := s*2*n + int(d)
			if t.nb[i] >= 0 && t.nb[i] != e.Node {
				return nil, fmt.Errorf("switch %s has two neighbours in direction %s", net.Nodes[s].Name, t.DirName(d))
			}
			t.nb[i] = e.Node
			t.ports[i] = append(t.ports[i], uint8(p))
		}
	}
	return t, nil
}

// direction returns the direction from coordinate a to its neighbour b.
func (t *Torus) direction(a, b []int) (Dir, bool) {
	k := -1
	for i := range a {
		if a[i] != b[i] {
			if k >= 0 {
				return 0, false
			}
			k = i
		}
	}
	if k < 0 {
		return 0, false
	}
	d := t.Dims[k]
	switch {
	case !t.Wrap[k]:
		if b[k] == a[k]+1 {
			return Dir(k), true
		}
		if a[k] == b[k]+1 {
			return Dir(t.n + k), true
		}
		return 0, false
	case b[k] == (a[k]+1)%d:
		return Dir(k), true
	case a[k] == (b[k]+1)%d:
		return Dir(t.n + k), true
	}
	return 0, false
}

// NumDims returns the number of dimensions n (2n directions).
func (t *Torus) NumDims() int { return t.n }

// Next returns the neighbour of switch s in direction d, or -1.
func (t *Torus) Next(s int, d Dir) int { return int(t.nb[s*2*t.n+int(d)]) }

// Ports returns the live ports of switch s in direction d.
func (t *Torus) Ports(s int, d Dir) []uint8 { return t.ports[s*2*t.n+int(d)] }

// Dim returns the dimension of d; Positive whether d is a + direction.
func (t *Torus) Dim(d Dir) int { return int(d) % t.n }

// Positive reports whether d is a + direction.
func (t *Torus) Positive(d Dir) bool { return int(d) < t.n }

// Opposite returns the other sign of d's dimension.
func (t *Torus) Opposite(d Dir) Dir {
	if t.Positive(d) {
		return d + Dir(t.n)
	}
	return d - Dir(t.n)
}

// DirName names d: +X, −Y, … (X Y Z K, then D4, D5 … beyond four).
func (t *Torus) DirName(d Dir) string {
	sign := "+"
	if !t.Positive(d) {
		sign = "-"
	}
	k := t.Dim(d)
	if k < 4 {
		return sign + string("XYZK"[k])
	}
	return fmt.Sprintf("%sD%d", sign, k)
}

// Coord returns the coordinate of switch s in dimension k.
func (t *Torus) Coord(s, k int) int {
	p := int(t.pos[s])
	for i := 0; i < k; i++ {
		p /= t.Dims[i]
	}
	return p % t.Dims[k]
}

// Channels returns the number of channels (switch, direction) with a live cable.
func (t *Torus) Channels() int {
	c := 0
	for _, v := range t.nb {
		if v >= 0 {
			c++
		}
	}
	return c
}

// Distance returns the hop count of a minimal route from a to b on the
// full torus (no failures): per dimension the shorter way round a ring, the
// coordinate difference on a mesh.
func (t *Torus) Distance(a, b int) int {
	h := 0
	for k, d := range t.Dims {
		x, y := t.Coord(a, k), t.Coord(b, k)
		if !t.Wrap[k] {
			h += max(x-y, y-x)
			continue
		}
		dx := (y - x + d) % d
		h += min(dx, d-dx)
	}
	return h
}
