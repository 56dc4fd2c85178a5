package angara

import (
	"fmt"
	"math"
	"strings"
)

// Routes are per-pair source routes between the switches of a torus: for
// each (source, destination) the directions of its hops, written as the
// Angara header would carry them (a first step, the ordered direction
// list, a last step).
type Routes struct {
	T *Torus
	// Nodes are the switches routed between (all when the engine was
	// given no subset), in increasing order.
	Nodes []int
	off   []int32 // [src*N+dst] start of the route in dirs
	end   []int32 // [src*N+dst] its end
	dirs  []Dir
	flags []uint8 // [src*N+dst]
}

// Route flags.
const (
	routed    = 1 << iota // the pair has a route
	firstStep             // the first hop is a first step (FS)
	lastStep              // the last hop is a last step (LS)
)

func newRoutes(t *Torus, nodes []int) *Routes {
	p := t.N * t.N
	return &Routes{T: t, Nodes: nodes, off: make([]int32, p), end: make([]int32, p), flags: make([]uint8, p)}
}

// set records the route of (s, w): its hops and whether the first is a
// first step and the last a last step.
func (r *Routes) set(s, w int, hops []Dir, fs, ls bool) {
	i := s*r.T.N + w
	r.off[i] = int32(len(r.dirs))
	r.dirs = append(r.dirs, hops...)
	r.end[i] = int32(len(r.dirs))
	f := uint8(routed)
	if fs {
		f |= firstStep
	}
	if ls {
		f |= lastStep
	}
	r.flags[i] = f
}

// Hops returns the directions of the route from s to w, and false when the
// pair has none (s == w has an empty route).
func (r *Routes) Hops(s, w int) ([]Dir, bool) {
	if s == w {
		return nil, true
	}
	i := s*r.T.N + w
	if r.flags[i]&routed == 0 {
		return nil, false
	}
	return r.dirs[r.off[i]:r.end[i]], true
}

// Header returns the route from s to w as the Angara header writes it:
// "FS+Y +X +Z LS-X" (first step, the ordered hops, last step; the steps
// only when present, every hop written).
func (r *Routes) Header(s, w int) string {
	h, ok := r.Hops(s, w)
	if !ok {
		return "unrouted"
	}
	f := r.flags[s*r.T.N+w]
	var b strings.Builder
	for i, d := range h {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case i == 0 && f&firstStep != 0:
			b.WriteString("FS")
		case i == len(h)-1 && f&lastStep != 0:
			b.WriteString("LS")
		}
		b.WriteString(r.T.DirName(d))
	}
	return b.String()
}

// each calls f with every routed pair of distinct Nodes and its hops.
func (r *Routes) each(f func(s, w int, h []Dir)) {
	for _, s := range r.Nodes {
		for _, w := range r.Nodes {
			if h, ok := r.Hops(s, w); ok && s != w {
				f(s, w, h)
			}
		}
	}
}

// Unrouted returns the pairs of Nodes without a route.
func (r *Routes) Unrouted() [][2]int {
	var u [][2]int
	for _, s := range r.Nodes {
		for _, w := range r.Nodes {
			if s != w && r.flags[s*r.T.N+w]&routed == 0 {
				u = append(u, [2]int{s, w})
			}
		}
	}
	return u
}

// Metrics are the balance figures of §1.1 and Table 2.
type Metrics struct {
	// MaxLoad and MinLoad are max γ_c and min γ_c: routes per channel over
	// the channels that carry at least one route (so that a subset of
	// nodes is measured on the channels its routes use, as Table 2's
	// 2- and 4-node rows, σ = 0, require).
	MaxLoad, MinLoad int
	// Perfect is Σγ_c / |C| over those channels.
	Perfect float64
	// Sigma4 is σ(4, R).
	Sigma4 float64
	// MaxHops is max D, the longest route.
	MaxHops int
	// Channels is |C|.
	Channels int
}

// Loads returns γ_c per channel (switch·2n + direction).
func (r *Routes) Loads() []int {
	g := make([]int, len(r.T.nb))
	r.each(func(s, _ int, h []Dir) {
		for _, d := range h {
			g[s*2*r.T.n+int(d)]++
			s = r.T.Next(s, d)
		}
	})
	return g
}

// Sigma returns σ(k, R) over the channels that carry a route.
func (r *Routes) Sigma(k float64) float64 { return sigma(r.Loads(), k) }

// sigma returns σ(k) of channel loads over the loaded channels: the k-th
// root of the mean k-th power of their distance from the perfect load.
func sigma(loads []int, k float64) float64 {
	sum, c := 0, 0
	for _, l := range loads {
		if l > 0 {
			sum += l
			c++
		}
	}
	if c == 0 {
		return 0
	}
	perfect := float64(sum) / float64(c)
	acc := 0.0
	for _, l := range loads {
		if l > 0 {
			acc += math.Pow(math.Abs(perfect-float64(l)), k)
		}
	}
	return math.Pow(acc/float64(c), 1/k)
}

// Measure returns the metrics of r.
func (r *Routes) Measure() Metrics {
	var m Metrics
	loads := r.Loads()
	sum := 0
	for _, l := range loads {
		if l == 0 {
			continue
		}
		if m.Channels == 0 || l < m.MinLoad {
			m.MinLoad = l
		}
		m.MaxLoad = max(m.MaxLoad, l)
		sum += l
		m.Channels++
	}
	if m.Channels > 0 {
		m.Perfect = float64(sum) / float64(m.Channels)
	}
	m.Sigma4 = r.Sigma(4)
	r.each(func(_, _ int, h []Dir) { m.MaxHops = max(m.MaxHops, len(h)) })
	return m
}

// String prints the metrics as Table 2 does.
func (m Metrics) String() string {
	return fmt.Sprintf("max γ %d, min γ %d, σ(4) %.3f, max D %d", m.MaxLoad, m.MinLoad, m.Sigma4, m.MaxHops)
}
