package routing

import (
	"fmt"
	"strings"
)

// Mode is an adaptive routing mode of a group topology (seeds/004 §2.2):
// how a packet chooses among its Candidates at its source switch.
type Mode uint8

// The modes. A candidate's cost is the occupancy of its first output at
// the deciding switch (the flits that output holds in the next hop's input
// buffers: credits in use over all VLs) times the hops it takes from there,
// plus a bias on non-minimal candidates; the cheapest wins, the earlier
// candidate on a tie (minimal ones come first).
const (
	// ModeMin takes the cheaper of the two minimal candidates.
	ModeMin Mode = iota
	// ModeValiant always takes the first non-minimal candidate (minimal
	// when there is no third group).
	ModeValiant
	// ModeUGAL chooses among all four without bias (Aries ADAPTIVE_0).
	ModeUGAL
	// ModeUGALImb starts as ModeUGAL and reconsiders at every further
	// switch of the source group, before the packet's first global hop:
	// a non-minimal route is dropped for a cheaper minimal one, its bias
	// growing by Bias.Step per hop taken (ADAPTIVE_1, increasingly minimal
	// bias).
	ModeUGALImb
	// ModeUGALLow and ModeUGALHigh add Bias.Low and Bias.High to the
	// non-minimal candidates (ADAPTIVE_2 and ADAPTIVE_3).
	ModeUGALLow
	ModeUGALHigh
	// ModeAppAware is seeds/004's application-aware routing (§4.2,
	// Algorithm 1): each rank sends each message with ModeUGAL (ModeUGALImb
	// for all-to-all) or ModeUGALHigh, as its NIC's latency and stall
	// counters say (the simulators' sim.AppAware). It is a choice of mode
	// per message, never a packet's mode itself.
	ModeAppAware
	// The deterministic modes of Aries (seeds/004 §2.2), which look at no
	// congestion: ModeInOrder sends every packet of a source and
	// destination pair on one minimal path (IN_ORDER), ModeMinHash each
	// packet on a minimal path hashed from the pair and the packet's
	// address (MIN_HASH), ModeNMinHash each on a non-minimal path so hashed
	// (NMIN_HASH; minimal where no third group exists). Their one
	// candidate is Hashed's.
	ModeInOrder
	ModeMinHash
	ModeNMinHash
)

var modeNames = [...]string{"min", "valiant", "ugal", "ugal-imb", "ugal-low", "ugal-high", "app-aware", "in-order", "min-hash", "nmin-hash"}

// Hashing reports whether m routes by a hash (Hashed) rather than among
// random candidates by congestion.
func (m Mode) Hashing() bool { return m == ModeInOrder || m == ModeMinHash || m == ModeNMinHash }

// HashKey is the key a hashing mode routes a packet by: its source and
// destination terminals and its address (the packet's number at its
// source; ModeInOrder ignores it).
func HashKey(m Mode, src, dst int, addr int64) uint64 {
	if m == ModeInOrder {
		addr = 0
	}
	x := uint64(src)<<40 ^ uint64(dst)<<16 ^ uint64(addr)*0x9e3779b97f4a7c15
	// splitmix64's finalizer: every input bit moves every output bit.
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// String returns the mode's engine name.
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("mode(%d)", m)
}

// ParseMode returns the mode of an engine name.
func ParseMode(name string) (Mode, error) {
	for i, n := range modeNames {
		if n == name {
			return Mode(i), nil
		}
	}
	return 0, fmt.Errorf("unknown adaptive routing mode %q (known: %s)", name, strings.Join(modeNames[:], ", "))
}

// ModeNames lists the adaptive modes' names.
func ModeNames() []string { return append([]string(nil), modeNames[:]...) }

// Bias holds the non-minimal biases, in flit·hops (the unit of a cost).
type Bias struct {
	Low, High int64 // ModeUGALLow, ModeUGALHigh
	Step      int64 // ModeUGALImb: per hop taken in the source group
}

// Adaptive is the per-packet routing an adaptive engine's Tables carry: the
// routing function and the mode the engine was chosen with. The tables'
// forwarding entries hold each pair's first minimal route (for
// reachability, metrics and the ejection port); the simulators route every
// packet by Adaptive instead.
type Adaptive struct {
	*Dragonfly
	Mode Mode
}

// Occupancy returns the flits switch output port p holds in the next hop's
// input buffers (credits in use, over all VLs), as the deciding simulator
// sees them.
type Occupancy func(port int) int64

// cost is what candidate r costs a packet at switch s bound for dst.
func (d *Dragonfly) cost(s, dst int, r Route, occ Occupancy) int64 {
	first := r
	p, _ := d.Next(s, dst, &first)
	if p == 0 {
		return 0
	}
	return occ(p) * int64(d.Hops(s, dst, r))
}

// Choose returns the route a packet takes from its source switch s to
// switch dst in mode m, among its candidates (as Candidates drew them: the
// minimal ones first).
func (d *Dragonfly) Choose(m Mode, b Bias, s, dst int, cands []Route, occ Occupancy) Route {
	if s == dst || len(cands) == 0 {
		return Route{Via: -1, Phase: 1}
	}
	set, bias := cands, int64(0)
	switch m {
	case ModeInOrder, ModeMinHash, ModeNMinHash:
		return cands[0]
	case ModeMin:
		set = cands[:min(2, len(cands))]
	case ModeValiant:
		if len(cands) > 2 {
			return cands[2]
		}
		return cands[0]
	case ModeUGALLow:
		bias = b.Low
	case ModeUGALHigh:
		bias = b.High
	}
	best, bestCost := 0, int64(0)
	for i, r := range set {
		c := d.cost(s, dst, r, occ)
		if !r.Minimal() {
			c += bias
		}
		if i == 0 || c < bestCost {
			best, bestCost = i, c
		}
	}
	return set[best]
}

// Reconsider returns the route a packet on route r takes on from switch s
// in mode m: in ModeUGALImb, while r is non-minimal and the packet is still
// in the group of its source switch src before its first global hop, it
// switches to the cheaper minimal candidate when that costs less than going
// on with r plus Bias.Step per hop taken. Otherwise it returns r. Switching
// keeps every route within VLs hops: at most diameter hops taken, then a
// minimal route.
func (d *Dragonfly) Reconsider(m Mode, b Bias, src, s, dst int, r Route, cands []Route, occ Occupancy) Route {
	if m != ModeUGALImb || r.Minimal() || r.Phase != 0 || r.Hops == 0 || s == dst || d.group[s] != d.group[src] || len(cands) < 2 {
		return r
	}
	best, bestCost := r, d.cost(s, dst, r, occ)+int64(r.Hops)*b.Step
	for _, c := range cands[:2] {
		c.Hops = r.Hops
		if x := d.cost(s, dst, c, occ); x < bestCost {
			best, bestCost = c, x
		}
	}
	return best
}

// Step routes a packet whose head is at switch s, bound for switch dst, and
// returns the port and VL it leaves by as Next does, advancing r: before
// its first hop (at its source switch src) it chooses r among its
// candidates; in ugal-imb the further switches of its source group
// reconsider. A Valiant detour may pass its source switch again; it
// chooses only once.
func (d *Dragonfly) Step(m Mode, b Bias, src, s, dst int, r *Route, cands []Route, occ Occupancy) (port, vl int) {
	if s == src && r.Hops == 0 {
		*r = d.Choose(m, b, s, dst, cands, occ)
	} else {
		*r = d.Reconsider(m, b, src, s, dst, *r, cands, occ)
	}
	return d.Next(s, dst, r)
}

// routeAdaptive is the route function of the adaptive engines: the
// routing function of the group topology, with each pair's first minimal
// route in the forwarding tables.
func routeAdaptive(m Mode) func(g *graph, o Options) (*Tables, error) {
	return func(g *graph, o Options) (*Tables, error) {
		d, err := NewDragonfly(g.net)
		if err != nil {
			return nil, &Failure{Engine: m.String(), Reason: err.Error()}
		}
		if d.VLs > o.VLs {
			return nil, needsVLs(m.String(), d.VLs, o.VLs)
		}
		d.Spread = o.Spread
		t := NewTables(g.net, m.String())
		for s := 0; s < g.S; s++ {
			for i, lid := range g.dests {
				dsw := int(g.destSwitch[i])
				if dsw == s {
					t.SetPort(s, lid, int(g.hcaPort[int(g.destNode[i])-g.S]))
					continue
				}
				r := Route{Via: -1, Phase: 1}
				p, _ := d.Next(s, dsw, &r)
				t.SetPort(s, lid, p)
			}
		}
		t.VLsNeeded, t.VLsUsed = d.VLs, d.VLs
		t.Adaptive = &Adaptive{Dragonfly: d, Mode: m}
		t.Notes = append(t.Notes, fmt.Sprintf("per-packet adaptive routing (%s): VL = switch-to-switch hops taken, %d VLs", m, d.VLs))
		if d.Spread {
			t.Notes = append(t.Notes, "hops inside a group spread over every shortest way by a hash of the packet")
		}
		return t, nil
	}
}
