package angara

import (
	"fmt"

	"flitsim/routing/scc"
)

// Verify checks that every route of r is one the Angara router can carry
// under turns x: its hops follow live cables to its destination; the hops
// between the optional first and last steps keep direction order and the
// direction bit rule; a first step is positive and a last step negative,
// each turning onto or off the rest of the route only where x allows.
func (r *Routes) Verify(x *Turns) error {
	var err error
	r.each(func(s, w int, h []Dir) {
		if e := r.verifyOne(x, s, w, h); e != nil && err == nil {
			err = fmt.Errorf("route %d→%d (%s): %w", s, w, r.Header(s, w), e)
		}
	})
	return err
}

func (r *Routes) verifyOne(x *Turns, s, w int, h []Dir) error {
	t := r.T
	f := r.flags[s*t.N+w]
	u := s
	for i, d := range h {
		v := t.Next(u, d)
		if v < 0 {
			return fmt.Errorf("hop %d: no cable %s from switch %d", i, t.DirName(d), u)
		}
		if i > 0 && !x.Allowed(u, h[i-1], d) {
			return fmt.Errorf("hop %d: turn %s→%s at switch %d not allowed", i, t.DirName(h[i-1]), t.DirName(d), u)
		}
		u = v
	}
	if u != w {
		return fmt.Errorf("ends at switch %d", u)
	}
	lo, hi := 0, len(h)
	if f&firstStep != 0 {
		if !t.Positive(h[0]) {
			return fmt.Errorf("first step %s is not positive", t.DirName(h[0]))
		}
		lo = 1
	}
	if f&lastStep != 0 {
		if t.Positive(h[len(h)-1]) || hi-1 < lo {
			return fmt.Errorf("last step %s is not negative", t.DirName(h[len(h)-1]))
		}
		hi--
	}
	var sign [16]int8
	for i := lo; i < hi; i++ {
		d := h[i]
		if i > lo && h[i-1] > d {
			return fmt.Errorf("hop %d: %s after %s breaks direction order", i, t.DirName(d), t.DirName(h[i-1]))
		}
		k, sg := t.Dim(d), int8(1)
		if !t.Positive(d) {
			sg = -1
		}
		if sign[k] == -sg {
			return fmt.Errorf("hop %d: both signs of one dimension (direction bit rule)", i)
		}
		sign[k] = sg
	}
	return nil
}

// RingCycles checks the channel dependency graph of r's routes (channel
// pairs consecutive on some route) and returns an error naming a cycle
// that is not within one ring (all its channels one direction along one
// line of the torus): such a cycle bubble flow control cannot break.
func (r *Routes) RingCycles() error {
	t := r.T
	n2 := 2 * t.n
	adj := make([][]int32, len(t.nb))
	seen := make(map[[2]int32]bool)
	r.each(func(u, _ int, h []Dir) {
		for i := 1; i < len(h); i++ {
			a := int32(u*n2 + int(h[i-1]))
			u = t.Next(u, h[i-1])
			b := int32(u*n2 + int(h[i]))
			if !seen[[2]int32{a, b}] {
				seen[[2]int32{a, b}] = true
				adj[a] = append(adj[a], b)
			}
		}
	})
	for _, comp := range scc.Components(adj) {
		if len(comp) < 2 {
			continue
		}
		d := Dir(int(comp[0]) % n2)
		for _, c := range comp[1:] {
			if Dir(int(c)%n2) != d || !t.sameLine(int(comp[0])/n2, int(c)/n2, t.Dim(d)) {
				return fmt.Errorf("dependency cycle through channels %s of switch %d and %s of switch %d is not within one ring",
					t.DirName(d), int(comp[0])/n2, t.DirName(Dir(int(c)%n2)), int(c)/n2)
			}
		}
	}
	return nil
}

// sameLine reports whether switches a and b differ at most in dimension k.
func (t *Torus) sameLine(a, b, k int) bool {
	for i := range t.Dims {
		if i != k && t.Coord(a, i) != t.Coord(b, i) {
			return false
		}
	}
	return true
}
