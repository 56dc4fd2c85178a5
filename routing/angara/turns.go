package angara

// Turns are the turns a packet may take at a switch: arriving in direction
// a, leaving in direction b. The base set is direction order with the
// direction bit rule (a ≤ b, never a to the other sign of a's dimension);
// Augment adds turns against the order (a > b) that close no cycle in the
// channel dependency graph (§3.2, Theorem 2).
type Turns struct {
	t     *Torus
	extra [][4]uint64 // [switch] bit a*2n+b: out-of-order turn a→b allowed
	// Added counts the out-of-order turns Augment added.
	Added int
}

// TurnSet selects which out-of-order turns Augment considers.
type TurnSet uint8

const (
	// UsableTurns considers only the turns the routing graph can use: a
	// positive first step followed by an earlier positive direction, and
	// a negative last step after a later negative direction. A turn of
	// any other kind would only enlarge the direction sets B and so
	// block usable ones. The default.
	UsableTurns TurnSet = iota
	// AllTurns considers every turn against the order, as §3.2 words its
	// second stage: "for each CDG vertex (u, D_i) the algorithm adds edges
	// to all the neighbor vertices (v, D_j)".
	AllTurns
	// NoTurns adds none: plain direction order with direction bits.
	NoTurns
	// EveryTurn allows every same-sign out-of-order turn without asking
	// the channel dependency graph (an upper bound on the routes the
	// hardware can express; not deadlock-free).
	EveryTurn
)

// BaseTurn reports whether a→b is a direction-order turn (or going
// straight on).
func (t *Torus) BaseTurn(a, b Dir) bool { return a <= b && b != t.Opposite(a) }

// Allowed reports whether a packet arriving at switch w in direction a may
// leave in direction b.
func (x *Turns) Allowed(w int, a, b Dir) bool {
	if x.t.BaseTurn(a, b) {
		return true
	}
	i := int(a)*2*x.t.n + int(b)
	return x.extra[w][i>>6]&(1<<(i&63)) != 0
}

func (x *Turns) allow(w int, a, b Dir) {
	i := int(a)*2*x.t.n + int(b)
	x.extra[w][i>>6] |= 1 << (i & 63)
	x.Added++
}

// Augment returns the turns of t: direction order plus the out-of-order
// turns of set that Theorem 2 admits, considered channel by channel (switch
// index, then direction, then the leaving direction in order). A turn
// a→b at switch v (arriving from u = v−a) joins the channel dependency
// graph when direction a is not among the directions B(v, b) that paths
// from channel (v, b) can use; every channel that reaches (u, a) then
// learns B(v, b).
func (t *Torus) Augment(set TurnSet) *Turns {
	x := &Turns{t: t, extra: make([][4]uint64, t.N)}
	if set == NoTurns {
		return x
	}
	n2 := 2 * t.n
	used := make([]uint16, len(t.nb)) // B per channel s*2n+d
	var work []int32
	for c, v := range t.nb {
		if v >= 0 {
			used[c] = 1 << (c % n2)
			work = append(work, int32(c))
		}
	}
	// propagate pushes B of the channels on work back to the channels
	// that depend on them until nothing changes.
	propagate := func() {
		for len(work) > 0 {
			c := int(work[len(work)-1])
			work = work[:len(work)-1]
			v, b := c/n2, Dir(c%n2)
			for a := Dir(0); int(a) < n2; a++ {
				u := t.nb[v*n2+int(t.Opposite(a))] // the switch a leads from into v
				if u < 0 || !x.Allowed(v, a, b) {
					continue
				}
				p := int(u)*n2 + int(a)
				if used[p]|used[c] != used[p] {
					used[p] |= used[c]
					work = append(work, int32(p))
				}
			}
		}
	}
	propagate()
	for c, v := range t.nb {
		if v < 0 {
			continue
		}
		a := Dir(c % n2)
		for b := Dir(0); b < a; b++ {
			if b == t.Opposite(a) || t.nb[int(v)*n2+int(b)] < 0 {
				continue
			}
			if set == UsableTurns && t.Positive(a) != t.Positive(b) {
				continue
			}
			if set == EveryTurn {
				if t.Positive(a) == t.Positive(b) {
					x.allow(int(v), a, b)
				}
				continue
			}
			d := int(v)*n2 + int(b)
			if used[d]&(1<<a) != 0 {
				continue
			}
			x.allow(int(v), a, b)
			if used[c]|used[d] != used[c] {
				used[c] |= used[d]
				work = append(work, int32(c))
				propagate()
			}
		}
	}
	return x
}
