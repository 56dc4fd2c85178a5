package angara

// Graph is the routing graph of §3.1 with the turns of §3.2: per switch
// the vertices begin, FS_k (reached by a positive first step in dimension
// k), dirbit_v (reached by steps whose directions form the sign vector v,
// taken in order), LS_k (reached by a negative last step in dimension k)
// and end. A path from begin(u) to end(w) is a legal Angara route from u
// to w (Theorem 1).
//
// States are numbered begin = 0, FS_k = 1+k, dirbit_v = n+v for
// v in 1 … 3ⁿ−1 (digit k of v in base 3: 0 unused, 1 +, 2 −), LS_k =
// n+3ⁿ+k, end = 2n+3ⁿ; vertex = switch·States + state.
type Graph struct {
	T     *Torus
	Turns *Turns
	// States is the number of vertices per switch, 3ⁿ + 2n + 1.
	States int
	// Distinct drops the edges that spell a route a second way when the
	// route is minimal on a torus without failures: a first step in order
	// (FS_k → dirbit of a later direction, or FS_k → end) is then the same
	// route as its dirbit path, and so is a last step in order. With
	// Distinct set, minimal paths and minimal routes of an intact torus
	// correspond one to one (what §4.3 counts); it loses routes that turn
	// back after a first step, which detour around failures, so the
	// engines search the paper's graph.
	Distinct bool
	// NoSteps drops every first and last step: direction order with
	// direction bits alone.
	NoSteps bool
	p3      int
	last    []Dir     // [v] the last (greatest) direction of dirbit_v
	with    [][]int32 // [v][d] dirbit value after a step d, -1 if the direction bit rule forbids it
}

// NewGraph returns the routing graph of t with turns x.
func NewGraph(t *Torus, x *Turns, distinct bool) *Graph {
	n := t.n
	p3 := 1
	for i := 0; i < n; i++ {
		p3 *= 3
	}
	g := &Graph{T: t, Turns: x, States: p3 + 2*n + 1, Distinct: distinct, p3: p3,
		last: make([]Dir, p3), with: make([][]int32, p3)}
	for v := 0; v < p3; v++ {
		g.with[v] = make([]int32, 2*n)
		digit := make([]int, n)
		x := v
		for k := 0; k < n; k++ {
			digit[k] = x % 3
			x /= 3
		}
		neg := false
		for k := n - 1; k >= 0 && !neg; k-- {
			if digit[k] == 2 {
				g.last[v], neg = Dir(n+k), true
			}
		}
		for k := n - 1; k >= 0 && !neg; k-- {
			if digit[k] == 1 {
				g.last[v] = Dir(k)
				break
			}
		}
		pow := 1
		for k := 0; k < n; k++ {
			for s, want := range [2]int{1, 2} {
				d := k + s*n
				switch digit[k] {
				case 0:
					g.with[v][d] = int32(v + want*pow)
				case want:
					g.with[v][d] = int32(v)
				default:
					g.with[v][d] = -1
				}
			}
			pow *= 3
		}
	}
	return g
}

// State numbers.
func (g *Graph) fs(k int) int     { return 1 + k }
func (g *Graph) dirbit(v int) int { return g.T.n + v }
func (g *Graph) ls(k int) int     { return g.T.n + g.p3 + k }

// End is the end state.
func (g *Graph) End() int { return 2*g.T.n + g.p3 }

// noStep marks the edge to end, which takes no hop.
const noStep Dir = 255

// Succ calls f for every edge out of vertex (s, st): the switch and state
// it leads to and the direction of the hop (noStep for the edge to end).
func (g *Graph) Succ(s, st int, f func(s2, st2 int, d Dir)) {
	t, n := g.T, g.T.n
	step := func(d Dir, st2 int) {
		if w := t.Next(s, d); w >= 0 {
			f(w, st2, d)
		}
	}
	switch {
	case st == 0: // begin
		for d := Dir(0); int(d) < 2*n; d++ {
			if t.Positive(d) && !g.NoSteps {
				step(d, g.fs(int(d)))
			}
			step(d, g.dirbit(int(g.with[0][d])))
		}
		f(s, g.End(), noStep)
	case st <= n: // FS_k: arrived by a positive first step d = k
		a := Dir(st - 1)
		for b := Dir(0); int(b) < 2*n; b++ {
			if b == a || b == t.Opposite(a) {
				continue
			}
			if b > a && g.Distinct {
				continue
			}
			if b < a && !g.Turns.Allowed(s, a, b) {
				continue
			}
			step(b, g.dirbit(int(g.with[0][b])))
		}
		if !g.Distinct {
			f(s, g.End(), noStep)
		}
	case st < n+g.p3: // dirbit_v: arrived by its last direction a
		v := st - n
		a := g.last[v]
		for b := Dir(0); int(b) < 2*n; b++ {
			if b == t.Opposite(a) {
				continue
			}
			if b >= a {
				if w := g.with[v][b]; w >= 0 {
					step(b, g.dirbit(int(w)))
				}
			}
			if t.Positive(b) || b == a || g.NoSteps {
				continue
			}
			// In order, a last step spells a dirbit route again
			// unless the direction bit rule forbids that one.
			if b > a && (!g.Distinct || g.with[v][b] < 0) || b < a && g.Turns.Allowed(s, a, b) {
				step(b, g.ls(t.Dim(b)))
			}
		}
		f(s, g.End(), noStep)
	case st < g.End(): // LS_k
		f(s, g.End(), noStep)
	}
}

// StateName names a state for messages and tests.
func (g *Graph) StateName(st int) string {
	t, n := g.T, g.T.n
	switch {
	case st == 0:
		return "begin"
	case st <= n:
		return "FS" + t.DirName(Dir(st-1))
	case st < n+g.p3:
		v, s := st-n, ""
		for k := 0; k < n; k++ {
			switch v % 3 {
			case 1:
				s += t.DirName(Dir(k))
			case 2:
				s += t.DirName(Dir(n + k))
			}
			v /= 3
		}
		return "dirbit" + s
	case st < g.End():
		return "LS" + t.DirName(Dir(n+st-n-g.p3))
	}
	return "end"
}
