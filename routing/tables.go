// Package routing computes, verifies and measures forwarding tables.
//
// Every engine produces the same output, shaped like InfiniBand's: a linear
// forwarding table per switch (destination LID → output port), a service
// level for every path, and per switch an SL→VL table by (input port,
// output port). Verification checks any Tables on any network: every HCA
// pair reachable, no forwarding loop, and whether the channel dependency
// graph of each virtual lane is acyclic (reported with an example cycle).
package routing

import (
	"fmt"
	"slices"

	"flitsim/fabric"
)

// NoPath marks a destination a switch cannot forward to.
const NoPath uint8 = 255

// MaxVLs is the largest number of virtual lanes a table can use (the
// InfiniBand SL space).
const MaxVLs = 16

// Values of Tables.SLSource.
const (
	SLsFromLog   = "opensm-log"
	SLsByFlitsim = "flitsim-layering"
)

// Tables is the result of routing one network.
//
// Paths are destination-based: LFT(s, lid) is the output port at switch s
// for packets to lid (0 for the switch's own LID). The service level of a
// path depends on its source switch and destination LID: all HCAs on one
// switch share the route from there, and the cable from an HCA to its switch
// can close no dependency cycle, so that granularity loses nothing. The SL
// is mapped to a VL at every hop by the switch's SL→VL table (identity
// unless an engine sets one, as Torus-2QoS does at datelines).
type Tables struct {
	// Engine names the routing that produced the tables.
	Engine string
	// NumLIDs is MaxLID+1 of the network.
	NumLIDs  int
	switches int
	lft      []uint8   // [switch*NumLIDs + lid]
	sl       []uint8   // [switch*NumLIDs + lid]; nil = SL 0 everywhere
	sl2vl    [][]uint8 // per switch [(in*(radix+1)+out)*MaxVLs + sl]; nil = identity
	// sl2vlShared marks the switches whose SL→VL table others share
	// (VLsByOutput): SetVL copies it first.
	sl2vlShared []bool
	injectVL    []uint8 // HCA ports' SL→VL [sl]; nil = identity
	radix       []int
	// VLsNeeded is how many virtual lanes the engine needed for
	// deadlock-freedom; VLsUsed how many its tables use after balancing.
	VLsNeeded, VLsUsed int
	// SLSource says who chose the service levels when not the engine
	// itself: "" (the engine), SLsFromLog (OpenSM's own choice, read from
	// its log) or SLsByFlitsim (flitsim's cycle breaking of the LFTs).
	SLSource string
	// Notes are engine remarks worth showing a user (roots chosen,
	// fall-backs taken, …).
	Notes []string
	// Fallbacks counts the destinations Nue routed on its escape paths, of
	// Destinations routed; Shortcuts the switches it moved onto a shorter
	// path through a former island; Spliced the islands it reached along
	// their escape paths instead of falling back; Relieved the switches it
	// moved off its busiest channel after routing.
	Fallbacks, Destinations, Shortcuts, Spliced, Relieved int
	// Adaptive, when set, routes every packet per hop (the adaptive
	// engines on group topologies); the forwarding entries then hold each
	// pair's first minimal route.
	Adaptive *Adaptive
	// Source, when set, routes every packet by its source route (the
	// Angara engines); the forwarding entries then hold only each
	// switch's own HCAs' ports, where a finished route ejects.
	Source *SourceRoutes
}

// NewTables returns empty tables for net: every entry NoPath except each
// switch's own LID (port 0), every SL 0, identity SL→VL.
func NewTables(net *fabric.Network, engine string) *Tables {
	n := int(net.MaxLID()) + 1
	t := &Tables{Engine: engine, NumLIDs: n, switches: net.NumSwitches,
		lft: make([]uint8, net.NumSwitches*n), radix: make([]int, net.NumSwitches), VLsNeeded: 1, VLsUsed: 1}
	for i := range t.lft {
		t.lft[i] = NoPath
	}
	for s := 0; s < net.NumSwitches; s++ {
		t.lft[s*n+int(net.Nodes[s].LID)] = 0
		t.radix[s] = net.Nodes[s].Radix
	}
	return t
}

// NumSwitches returns the number of switches the tables cover.
func (t *Tables) NumSwitches() int { return t.switches }

// Row returns switch s's forwarding table, indexed by LID, for reading
// only (the simulator prefetches from it).
func (t *Tables) Row(s int) []uint8 { return t.lft[s*t.NumLIDs : (s+1)*t.NumLIDs] }

// Port returns the output port at switch s for lid, or NoPath.
func (t *Tables) Port(s int, lid uint16) uint8 {
	if int(lid) >= t.NumLIDs {
		return NoPath
	}
	return t.lft[s*t.NumLIDs+int(lid)]
}

// columns copies, for a block of destination LIDs, every switch's output
// port into ports[j*switches+s] and, when sls is not nil, its service level
// into sls likewise. Walking the tables switch by switch reads each block
// of nearby LIDs from one cache line, where following one destination
// through every switch would miss the cache at every switch.
func (t *Tables) columns(lids []uint16, ports, sls []uint8) {
	S, n := t.switches, t.NumLIDs
	for s := 0; s < S; s++ {
		row := t.lft[s*n : (s+1)*n]
		for j, lid := range lids {
			p := NoPath
			if int(lid) < n {
				p = row[lid]
			}
			ports[j*S+s] = p
		}
		if sls == nil {
			continue
		}
		for j, lid := range lids {
			var sl uint8
			if t.sl != nil && int(lid) < n {
				sl = t.sl[s*n+int(lid)]
			}
			sls[j*S+s] = sl
		}
	}
}

// setColumns is the inverse of columns: it writes ports[j*switches+s] as
// switch s's output port for lids[j].
func (t *Tables) setColumns(lids []uint16, ports []uint8) { t.writeColumns(t.lft, lids, ports) }

// writeColumns writes cols[j*switches+s] into a, an array shaped as the
// LFTs (a row of LIDs per switch), as switch s's entry for lids[j].
func (t *Tables) writeColumns(a []uint8, lids []uint16, cols []uint8) {
	S, n := t.switches, t.NumLIDs
	for s := 0; s < S; s++ {
		row := a[s*n : (s+1)*n]
		for j, lid := range lids {
			row[lid] = cols[j*S+s]
		}
	}
}

// columnWriter lets an engine that routes one destination at a time from
// every switch fill a column (switch → output port) per destination and
// writes them into the tables a block at a time (setColumns).
type columnWriter struct {
	t     *Tables
	ports []uint8 // lids[j]'s column at ports[j*switches:]
	lids  []uint16
}

// columnBlock is how many destination columns a columnWriter holds.
const columnBlock = 64

func newColumnWriter(t *Tables) *columnWriter {
	return &columnWriter{t: t, ports: make([]uint8, columnBlock*t.switches)}
}

// column returns lid's column, every entry NoPath; the entries are
// written to the tables by a later column or flush call.
func (w *columnWriter) column(lid uint16) []uint8 {
	if len(w.lids) == columnBlock {
		w.flush()
	}
	S := w.t.switches
	col := w.ports[len(w.lids)*S : (len(w.lids)+1)*S]
	w.lids = append(w.lids, lid)
	for i := range col {
		col[i] = NoPath
	}
	return col
}

// flush writes the columns held into the tables.
func (w *columnWriter) flush() {
	w.t.setColumns(w.lids, w.ports)
	w.lids = w.lids[:0]
}

// SetPort sets the output port at switch s for lid.
func (t *Tables) SetPort(s int, lid uint16, port int) {
	t.lft[s*t.NumLIDs+int(lid)] = uint8(port)
}

// SL returns the service level of paths from HCAs on switch s to lid.
func (t *Tables) SL(s int, lid uint16) uint8 {
	if t.sl == nil {
		return 0
	}
	return t.sl[s*t.NumLIDs+int(lid)]
}

// SetSL sets the service level of paths from HCAs on switch s to lid.
func (t *Tables) SetSL(s int, lid uint16, sl uint8) {
	if t.sl == nil {
		if sl == 0 {
			return
		}
		t.sl = make([]uint8, len(t.lft))
	}
	t.sl[s*t.NumLIDs+int(lid)] = sl
}

// VL returns the virtual lane a packet of service level sl takes out of
// switch s through outPort, having entered through inPort.
func (t *Tables) VL(s, inPort, outPort int, sl uint8) uint8 {
	if t.sl2vl == nil || t.sl2vl[s] == nil {
		return sl
	}
	m := t.sl2vl[s]
	return m[(inPort*(t.radix[s]+1)+outPort)*MaxVLs+int(sl)]
}

// SetVL sets the SL→VL mapping of switch s for (inPort, outPort, sl).
func (t *Tables) SetVL(s, inPort, outPort int, sl, vl uint8) {
	if t.sl2vl == nil {
		t.sl2vl = make([][]uint8, t.switches)
	}
	switch {
	case t.sl2vl[s] == nil:
		t.sl2vl[s] = identityVLs(t.radix[s])
	case t.sl2vlShared != nil && t.sl2vlShared[s]:
		t.sl2vl[s], t.sl2vlShared[s] = slices.Clone(t.sl2vl[s]), false
	}
	t.sl2vl[s][(inPort*(t.radix[s]+1)+outPort)*MaxVLs+int(sl)] = vl
}

// identityVLs returns an SL→VL table of a switch of the given radix that
// maps every SL to the VL of its number.
func identityVLs(radix int) []uint8 {
	r := radix + 1
	m := make([]uint8, r*r*MaxVLs)
	for i := range MaxVLs { // identity, then doubled by copies
		m[i] = uint8(i)
	}
	for n := MaxVLs; n < len(m); n *= 2 {
		copy(m[n:], m[:n])
	}
	return m
}

// VLsByOutput gives each switch an SL→VL table that depends on the output
// port alone: byOut(s, out) returns the SL→VL mapping out of port out of
// switch s (nil: identity), whatever the input port. Switches whose
// tables come out equal share one, which SetVL copies before changing
// (a 36-port switch's table is 21 KB; a torus's switches mostly map
// alike).
func (t *Tables) VLsByOutput(byOut func(s, out int) *[MaxVLs]uint8) {
	if t.sl2vl == nil {
		t.sl2vl = make([][]uint8, t.switches)
	}
	if t.sl2vlShared == nil {
		t.sl2vlShared = make([]bool, t.switches)
	}
	seen := map[string]int{} // a table's bytes → the first switch with it
	var row []uint8
	for s := range t.switches {
		r := t.radix[s] + 1
		row = slices.Grow(row[:0], r*MaxVLs)[:r*MaxVLs]
		for out := range r {
			vl := byOut(s, out)
			for sl := range MaxVLs {
				if vl == nil {
					row[out*MaxVLs+sl] = uint8(sl)
				} else {
					row[out*MaxVLs+sl] = vl[sl]
				}
			}
		}
		key := fmt.Sprint(r, string(row))
		if first, ok := seen[key]; ok {
			t.sl2vl[s] = t.sl2vl[first]
			t.sl2vlShared[s], t.sl2vlShared[first] = true, true
			continue
		}
		seen[key] = s
		m := make([]uint8, r*len(row))
		for in := range r {
			copy(m[in*len(row):], row)
		}
		t.sl2vl[s] = m
	}
}

// InjectVL returns the virtual lane an HCA sends a packet of service
// level sl on (its port's SL→VL table; the same on every HCA).
func (t *Tables) InjectVL(sl uint8) uint8 {
	if t.injectVL == nil {
		return sl
	}
	return t.injectVL[sl]
}

// SetInjectVL maps service level sl to virtual lane vl on every HCA port.
// The cable from an HCA to its switch closes no dependency cycle, so any
// mapping is deadlock-free; it lets an engine use more SLs than the HCAs
// have VLs.
func (t *Tables) SetInjectVL(sl, vl uint8) {
	if t.injectVL == nil {
		t.injectVL = make([]uint8, MaxVLs)
		for i := range t.injectVL {
			t.injectVL[i] = uint8(i)
		}
	}
	t.injectVL[sl] = vl
}

// MaxVL returns the highest virtual lane a packet of an SL in use can be
// put on in net: on an HCA's cable, or out of any connected switch port.
func (t *Tables) MaxVL(net *fabric.Network) int {
	if t.Adaptive != nil {
		return t.Adaptive.VLs - 1
	}
	return t.MaxVLOf(net, t.SLsUsed())
}

// SLsUsed returns, per SL, whether a packet can carry it (SL 0 always).
func (t *Tables) SLsUsed() []bool {
	used := make([]bool, MaxVLs)
	used[0] = true
	for _, sl := range t.sl {
		used[sl] = true
	}
	return used
}

// MaxVLOf returns the highest virtual lane a packet of an SL marked in
// used can be put on in net by these tables' SL→VL maps (packets that
// carry another tables' SLs, as while new tables are written).
func (t *Tables) MaxVLOf(net *fabric.Network, used []bool) int {
	m := 0
	for sl, u := range used {
		if !u {
			continue
		}
		m = max(m, int(t.InjectVL(uint8(sl))))
		if t.sl2vl == nil {
			m = max(m, sl)
			continue
		}
		for s, tab := range t.sl2vl {
			if tab == nil {
				m = max(m, sl)
				continue
			}
			r := t.radix[s] + 1
			for in := 0; in < r; in++ {
				for out := 1; out < r; out++ { // nothing leaves through port 0
					if net.LinkAt(s, out) >= 0 {
						m = max(m, int(tab[(in*r+out)*MaxVLs+sl]))
					}
				}
			}
		}
	}
	return m
}

// HasSL2VL reports whether any switch maps SLs to other VLs.
func (t *Tables) HasSL2VL() bool { return t.sl2vl != nil }

// check reports tables that do not fit net.
func (t *Tables) check(net *fabric.Network) error {
	if t.switches != net.NumSwitches || t.NumLIDs != int(net.MaxLID())+1 {
		return fmt.Errorf("tables for %d switches and %d LIDs do not fit a network with %d switches and max LID %d",
			t.switches, t.NumLIDs, net.NumSwitches, net.MaxLID())
	}
	if t.Source != nil {
		return t.Source.check(net.NumSwitches)
	}
	return nil
}

// Bytes returns the memory the tables hold, for capacity planning.
func (t *Tables) Bytes() int {
	b := len(t.lft) + len(t.sl)
	seen := map[*uint8]bool{} // a shared table counted once
	for _, m := range t.sl2vl {
		if len(m) > 0 && !seen[&m[0]] {
			seen[&m[0]] = true
			b += len(m)
		}
	}
	return b
}

// Renumbered returns tables of net with t's entries, t being tables of
// sub, a copy of net without some switches (fabric.Network.Without keeps
// names, LIDs and port numbers): each switch of sub's rows, SLs and SL→VL
// maps land on the switch of net with its name; net's other switches
// keep no route (NoPath) but to themselves. Source routes and adaptive
// routing are not renumbered (an error).
func (t *Tables) Renumbered(sub, net *fabric.Network) (*Tables, error) {
	if t.Source != nil || t.Adaptive != nil {
		return nil, fmt.Errorf("routing %s: source routes and adaptive routing cannot be renumbered", t.Engine)
	}
	out := NewTables(net, t.Engine)
	out.VLsNeeded, out.VLsUsed = t.VLsNeeded, t.VLsUsed
	byName := net.ByName()
	n := min(t.NumLIDs, out.NumLIDs)
	for sf := range sub.NumSwitches {
		si, ok := byName[sub.Nodes[sf].Name]
		if !ok || si >= net.NumSwitches {
			return nil, fmt.Errorf("switch %s of %s is not a switch of %s", sub.Nodes[sf].Name, sub.Name, net.Name)
		}
		for lid := range n {
			out.SetPort(si, uint16(lid), int(t.Port(sf, uint16(lid))))
			out.SetSL(si, uint16(lid), t.SL(sf, uint16(lid)))
		}
		if t.sl2vl != nil && t.sl2vl[sf] != nil {
			r := t.radix[sf] + 1
			for in := range r {
				for o := 1; o < r; o++ {
					for sl := range MaxVLs {
						out.SetVL(si, in, o, uint8(sl), t.VL(sf, in, o, uint8(sl)))
					}
				}
			}
		}
	}
	if t.injectVL != nil {
		for sl := range MaxVLs {
			out.SetInjectVL(uint8(sl), t.InjectVL(uint8(sl)))
		}
	}
	return out, nil
}
