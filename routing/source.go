package routing

import "fmt"

// SourceRoutes are source routes (seeds/003, Angara): for every ordered
// pair of switches (a, b) the output ports a packet from an HCA on a to an
// HCA on b leaves by at a and at every switch after it, up to b. The
// source writes the route into the packet's header; the switches on the
// way follow it and look at their forwarding tables only once the route is
// done, at b, for the port of the destination HCA. A pair of one switch
// has the empty route.
type SourceRoutes struct {
	n     int
	off   []int32 // [a*n+b] start of the route in ports
	end   []int32 // [a*n+b] its end; -1: the pair has no route
	ports []uint8
	// header names each route as its engine spells it ("" if it does not).
	header []string
}

// NewSourceRoutes returns routes between n switches with every pair of
// distinct switches unrouted.
func NewSourceRoutes(n int) *SourceRoutes {
	r := &SourceRoutes{n: n, off: make([]int32, n*n), end: make([]int32, n*n)}
	for i := range r.end {
		if i/n != i%n {
			r.end[i] = -1
		}
	}
	return r
}

// Switches returns the number of switches the routes are between.
func (r *SourceRoutes) Switches() int { return r.n }

// Set records the route from a to b: its output ports, and its header as
// the engine spells it (may be empty).
func (r *SourceRoutes) Set(a, b int, ports []uint8, header string) {
	i := a*r.n + b
	r.off[i] = int32(len(r.ports))
	r.ports = append(r.ports, ports...)
	r.end[i] = int32(len(r.ports))
	if header != "" {
		if r.header == nil {
			r.header = make([]string, r.n*r.n)
		}
		r.header[i] = header
	}
}

// Route returns the ports of the route from a to b, and false when the
// pair has none.
func (r *SourceRoutes) Route(a, b int) ([]uint8, bool) {
	i := a*r.n + b
	if r.end[i] < 0 {
		return nil, false
	}
	return r.ports[r.off[i]:r.end[i]], true
}

// Header returns the route's header as its engine spelled it, or "".
func (r *SourceRoutes) Header(a, b int) string {
	if r.header == nil {
		return ""
	}
	return r.header[a*r.n+b]
}

// Port returns the port a packet on the route from a to b leaves by after
// hop switch-to-switch hops: the route's port while it lasts, 0 once it is
// done (the packet is at b), NoPath when the pair has no route.
func (r *SourceRoutes) Port(a, b, hop int) uint8 {
	i := a*r.n + b
	e := r.end[i]
	if e < 0 {
		return NoPath
	}
	if k := r.off[i] + int32(hop); k < e {
		return r.ports[k]
	}
	return 0
}

// Unrouted counts the pairs of distinct switches without a route.
func (r *SourceRoutes) Unrouted() int {
	n := 0
	for _, e := range r.end {
		if e < 0 {
			n++
		}
	}
	return n
}

// Forward returns the port a packet from an HCA on switch src to lid, on
// switch dst, leaves switch u by after hop switch-to-switch hops: with
// source routes the route's port while it lasts, then u's forwarding entry
// (the destination HCA's port at dst); without, u's forwarding entry. It
// returns NoPath for a source-routed pair without a route.
func (t *Tables) Forward(src, dst, hop, u int, lid uint16) uint8 {
	if t.Source != nil {
		if p := t.Source.Port(src, dst, hop); p != 0 {
			return p
		}
	}
	return t.Port(u, lid)
}

// check reports source routes that do not fit tables of s switches.
func (r *SourceRoutes) check(s int) error {
	if r.n != s {
		return fmt.Errorf("source routes between %d switches do not fit a network of %d", r.n, s)
	}
	return nil
}
