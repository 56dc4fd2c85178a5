package routing

import (
	"fmt"
	"slices"

	"flitsim/fabric"
)

// UpdateReport is what a plain update from tables old to tables new may do
// while the switches hold a mixture of both (seeds/001 §5.2.3): OpenSM
// writes a switch's table 64 entries at a time, switch by switch, so a
// packet may meet the old entry at one switch and the new one at the next.
// It answers the three conditions of Def. 5.5 for such an update.
type UpdateReport struct {
	// OldDeadlockFree and NewDeadlockFree: condition 1, each state alone.
	OldDeadlockFree bool `json:"old_deadlock_free"`
	NewDeadlockFree bool `json:"new_deadlock_free"`
	// ChangedPairs counts the HCA pairs whose path differs between the two
	// states: their packets may be processed by both, and overtake each
	// other (condition 2, per-flow consistency, broken for them).
	ChangedPairs int `json:"changed_pairs"`
	Pairs        int `json:"pairs"`
	// LoopDests counts the destinations a mixture of old and new entries
	// can send round a forwarding loop (a packet that never arrives).
	LoopDests int `json:"loop_destinations"`
	// MixedDeadlockFree: condition 3, the channel dependencies of every
	// path a mixture of the two states can give a packet (each switch
	// holding the old or the new entry and SL→VL table, the packet the SL
	// of its source's old or new path) are acyclic; otherwise MixedCycle
	// is one cycle of them, which only the mixture closes.
	MixedDeadlockFree bool  `json:"mixed_deadlock_free"`
	MixedCycle        []Hop `json:"mixed_cycle,omitempty"`
}

// PropertyPreserving reports whether the update meets Def. 5.5 as a plain
// update: both states deadlock-free, no path changed, no mixture closing
// a cycle or a loop.
func (r UpdateReport) PropertyPreserving() bool {
	return r.OldDeadlockFree && r.NewDeadlockFree && r.ChangedPairs == 0 && r.LoopDests == 0 && r.MixedDeadlockFree
}

// CheckUpdate examines a plain update of net's tables from old to new.
// Both must route net (Verify's OK).
func CheckUpdate(net *fabric.Network, old, new *Tables) (UpdateReport, error) {
	var r UpdateReport
	for i, t := range []*Tables{old, new} {
		v, err := Verify(net, t)
		if err != nil {
			return r, err
		}
		if !v.OK() {
			return r, fmt.Errorf("%s tables: %s", [2]string{"old", "new"}[i], v.Problem)
		}
		if i == 0 {
			r.OldDeadlockFree = v.DeadlockFree
		} else {
			r.NewDeadlockFree = v.DeadlockFree
		}
	}
	if old.Source != nil || new.Source != nil {
		return r, fmt.Errorf("source routes are not written to switches: no update to check")
	}
	g := newGraph(net)
	var deps []uint64
	seenDep := map[uint64]bool{}
	for i, lid := range g.dests {
		dst := int(g.destSwitch[i])
		// Per-flow: the switch path from each source switch under each state.
		for s := 0; s < g.S; s++ {
			k := g.sources(s, dst)
			if k <= 0 {
				continue
			}
			r.Pairs += k
			if s != dst && !samePath(g, old, new, s, dst, lid) {
				r.ChangedPairs += k
			}
		}
		// A loop in the union of the two next hops toward lid.
		if unionLoops(g, old, new, dst, lid) {
			r.LoopDests++
		}
		// The mixed paths' dependencies: states (switch, in port, SL, VL
		// of the channel in) reached from every source switch.
		type state struct {
			u, in int
			sl    uint8
			ch    int32
			vl    uint8
		}
		seen := map[state]bool{}
		var stack []state
		for s := 0; s < g.S; s++ {
			if g.numHCAs(s) == 0 || s == dst {
				continue
			}
			for _, t := range []*Tables{old, new} {
				st := state{u: s, in: 0, sl: t.SL(s, lid), ch: -1}
				if !seen[st] {
					seen[st] = true
					stack = append(stack, st)
				}
			}
		}
		for len(stack) > 0 {
			st := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if st.u == dst {
				continue
			}
			for _, t := range []*Tables{old, new} {
				p := int(t.Port(st.u, lid))
				ch := g.chanAt(st.u, p)
				if ch < 0 || int(g.chTo(ch)) >= g.S {
					continue
				}
				for _, m := range []*Tables{old, new} { // the SL→VL table this switch holds
					vl := m.VL(st.u, st.in, p, st.sl)
					if st.ch >= 0 {
						e := edgeKey(st.ch*MaxVLs+int32(st.vl), ch*MaxVLs+int32(vl))
						if !seenDep[e] {
							seenDep[e] = true
							deps = append(deps, e)
						}
					}
					to := g.chans.To(ch)
					next := state{u: int(to.Node), in: int(to.Port), sl: st.sl, ch: ch, vl: vl}
					if !seen[next] && len(seen) < 1<<24 {
						seen[next] = true
						stack = append(stack, next)
					}
				}
			}
		}
	}
	var c cdg
	c.reserve(len(deps))
	for _, e := range deps {
		c.add(int32(e>>32), int32(uint32(e)))
	}
	c.layout()
	cyc := c.findCycle()
	r.MixedDeadlockFree = cyc == nil
	for _, node := range cyc {
		ch, vl := node/MaxVLs, int(node%MaxVLs)
		from, to := g.chans.From(ch), g.chans.To(ch)
		r.MixedCycle = append(r.MixedCycle, Hop{From: net.Nodes[from.Node].Name, FromPort: int(from.Port),
			To: net.Nodes[to.Node].Name, ToPort: int(to.Port), VL: vl})
	}
	return r, nil
}

// samePath reports whether the switch paths from s to lid's switch dst
// are the same under both tables (and both arrive).
func samePath(g *graph, a, b *Tables, s, dst int, lid uint16) bool {
	u := s
	for hops := 0; u != dst; hops++ {
		pa, pb := a.Port(u, lid), b.Port(u, lid)
		if pa != pb || hops > g.S {
			return false
		}
		ch := g.chanAt(u, int(pa))
		if ch < 0 {
			return false
		}
		u = int(g.chTo(ch))
		if u >= g.S {
			return false
		}
	}
	return true
}

// unionLoops reports whether the graph of both tables' next hops toward
// lid (two arcs per switch at most) has a cycle among the switches.
func unionLoops(g *graph, a, b *Tables, dst int, lid uint16) bool {
	color := make([]uint8, g.S) // 0 new, 1 on the path, 2 done
	var visit func(u int) bool
	visit = func(u int) bool {
		color[u] = 1
		if u != dst {
			for _, t := range []*Tables{a, b} {
				ch := g.chanAt(u, int(t.Port(u, lid)))
				if ch < 0 {
					continue
				}
				v := int(g.chTo(ch))
				if v >= g.S {
					continue
				}
				if color[v] == 1 || color[v] == 0 && visit(v) {
					return true
				}
			}
		}
		color[u] = 2
		return false
	}
	for s := 0; s < g.S; s++ {
		if color[s] == 0 && visit(s) {
			return true
		}
	}
	return false
}

// FivePhase is the verdict of the thesis' five-phase update protocol
// (§5.2.3, Fig. 5.7) on the same update: every node has a base and a high
// LID (LMC = 1); the base LIDs are routed by the old and the new tables on
// VLs 0..n−2, the high LIDs by Up*/Down* on VL n−1. Phase 2 drains every
// reliable connection and migrates it to the high LIDs, phase 3 writes the
// new base tables while no packet uses them, phase 4 migrates back. No
// packet meets a mixture, every flow's packets one state, and the
// dependencies of base and high paths lie on disjoint VLs: Def. 5.5 holds
// if both base states and Up*/Down* are deadlock-free and fit.
type FivePhase struct {
	VLs int `json:"vls"` // the hardware's data VLs, n
	// OldVLs and NewVLs are the VLs the base states use (at most n−1).
	OldVLs           int    `json:"old_vls"`
	NewVLs           int    `json:"new_vls"`
	HighDeadlockFree bool   `json:"high_deadlock_free"`
	Holds            bool   `json:"holds"`
	Problem          string `json:"problem,omitempty"`
}

// CheckFivePhase judges the five-phase protocol for an update of net from
// old to new on hardware with vls data VLs (report: CheckUpdate's).
func CheckFivePhase(net *fabric.Network, old, new *Tables, vls int, report UpdateReport) (FivePhase, error) {
	f := FivePhase{VLs: vls, OldVLs: old.MaxVL(net) + 1, NewVLs: new.MaxVL(net) + 1}
	high, err := Compute("updn", net, DefaultOptions())
	if err != nil {
		return f, fmt.Errorf("the high LIDs' Up*/Down*: %w", err)
	}
	v, err := Verify(net, high)
	if err != nil {
		return f, err
	}
	f.HighDeadlockFree = v.OK() && v.DeadlockFree && v.VLsUsed <= 1
	switch {
	case vls < 2:
		f.Problem = "the protocol needs a VL for the high LIDs besides the base LIDs' (vls ≥ 2)"
	case f.OldVLs > vls-1 || f.NewVLs > vls-1:
		f.Problem = fmt.Sprintf("the base tables use %d and %d VLs; VL %d is the high LIDs': route them with vls = %d", f.OldVLs, f.NewVLs, vls-1, vls-1)
	case !report.OldDeadlockFree || !report.NewDeadlockFree:
		f.Problem = "a base state alone can deadlock (Def. 5.5, condition 1)"
	case !f.HighDeadlockFree:
		f.Problem = "Up*/Down* for the high LIDs is not deadlock-free on one VL"
	default:
		f.Holds = true
	}
	return f, nil
}

// Mixture is what a mixture of two tables does to a fabric's HCA pairs
// (MixedReach): Broken pairs meet a port without a cable (a failed one) or
// an HCA that is not their destination, a black hole; Looping pairs
// circle; Total counts the pairs (the HCAs, each to every other). Loops
// are the distinct forwarding loops, in the order found.
type Mixture struct {
	Broken, Looping, Total int
	Loops                  []Loop
	seen                   map[string]bool
}

// Loop is a forwarding loop: the switches in the order a packet for LID
// visits them, from the lowest numbered (the first LID found on it).
type Loop struct {
	Switches []int
	LID      uint16
}

// MixedReach walks the HCA pairs of net while its switches hold a
// mixture of two tables: switch u forwards a packet for lid by new when
// written(u, lid), by old otherwise; a walk loops when it comes back to a
// switch of its own. Both tables must be of net's switches and LIDs (old
// may have been computed before cables failed: net.Without keeps ports
// and LIDs).
func MixedReach(net *fabric.Network, old, new *Tables, written func(sw int, lid uint16) bool) Mixture {
	g := newGraph(net)
	var m Mixture
	// fate per switch for the current destination: 0 unknown, 1 delivers,
	// 2 broken, 3 loops, 4 on the walk being followed.
	fate := make([]int8, g.S)
	var path []int
	for i, lid := range g.dests {
		dst, dn := int(g.destSwitch[i]), g.destNode[i]
		clear(fate)
		for s := 0; s < g.S; s++ {
			k := g.sources(s, dst)
			if k <= 0 {
				continue
			}
			m.Total += k
			path = path[:0]
			u, f := s, int8(0)
			for f == 0 {
				if fate[u] == 4 {
					f = 3 // back on its own walk
					m.addLoop(path[slices.Index(path, u):], lid)
					break
				}
				if fate[u] != 0 {
					f = fate[u]
					break
				}
				fate[u] = 4
				path = append(path, u)
				t := old
				if written(u, lid) {
					t = new
				}
				ch := g.chanAt(u, int(t.Port(u, lid)))
				switch {
				case ch < 0:
					f = 2
				case g.chTo(ch) == dn:
					f = 1
				case int(g.chTo(ch)) >= g.S:
					f = 2
				default:
					u = int(g.chTo(ch))
				}
			}
			for _, v := range path {
				fate[v] = f
			}
			switch f {
			case 2:
				m.Broken += k
			case 3:
				m.Looping += k
			}
		}
	}
	return m
}

// addLoop adds the loop through cycle (rotated to start at its lowest
// switch) unless it is known.
func (m *Mixture) addLoop(cycle []int, lid uint16) {
	i := slices.Index(cycle, slices.Min(cycle))
	c := append(slices.Clone(cycle[i:]), cycle[:i]...)
	key := fmt.Sprint(c)
	if m.seen[key] {
		return
	}
	if m.seen == nil {
		m.seen = map[string]bool{}
	}
	m.seen[key] = true
	m.Loops = append(m.Loops, Loop{Switches: c, LID: lid})
}
