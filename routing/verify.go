package routing

import (
	"fmt"
	"slices"

	"flitsim/fabric"
)

// Hop is one channel on one virtual lane: the cable leaving From at
// FromPort and entering To at ToPort.
type Hop struct {
	From     string `json:"from"`
	FromPort int    `json:"from_port"`
	To       string `json:"to"`
	ToPort   int    `json:"to_port"`
	VL       int    `json:"vl"`
}

// String formats a hop as from[port]→to[port]@vl.
func (h Hop) String() string {
	return fmt.Sprintf("%s[%d]→%s[%d]@VL%d", h.From, h.FromPort, h.To, h.ToPort, h.VL)
}

// Verdict is what verification found.
type Verdict struct {
	// Complete: every HCA reaches every other HCA.
	Complete bool `json:"complete"`
	// LoopFree: no packet to an HCA can circle forever.
	LoopFree bool `json:"loop_free"`
	// Unreachable and Looping count the HCA pairs (source, destination)
	// that are not delivered, and how many of those circle.
	Unreachable int `json:"unreachable_pairs"`
	Looping     int `json:"looping_pairs"`
	// DeadlockFree: the channel dependency graph over (channel, VL) is
	// acyclic; otherwise Cycle is one cycle of it.
	DeadlockFree bool  `json:"deadlock_free"`
	Cycle        []Hop `json:"cycle,omitempty"`
	// VLsUsed counts the VLs the HCA paths use.
	VLsUsed int `json:"vls_used"`
	// Problem describes the first defect found ("" when OK).
	Problem string `json:"problem,omitempty"`
}

// OK reports whether the tables are a usable routing (complete and loop
// free); deadlock-freedom is reported separately.
func (v Verdict) OK() bool { return v.Complete && v.LoopFree }

// Verify checks tables on net: reachability and loop-freedom of every HCA
// pair, and acyclicity of the channel dependency graph (Definition 3.7)
// whose nodes are (channel, VL) pairs, parallel cables distinct. The cables
// between HCAs and switches are left out of the CDG: an injection channel
// has no predecessor and an ejection channel no successor, so neither can
// be on a cycle.
func Verify(net *fabric.Network, t *Tables) (Verdict, error) {
	if err := t.check(net); err != nil {
		return Verdict{}, err
	}
	g := newGraph(net)
	v := Verdict{Complete: true, LoopFree: true, DeadlockFree: true}
	state := make([]uint8, g.S) // per destination: 0 unknown, 1 on walk, 2 delivers, 3 broken, 4 loops
	var walk []int32
	nvl := MaxVLs
	// With SL→VL changes the rest of a path depends on the SL and the VL
	// it holds on a channel; without, the VL is the SL.
	keys := 2 * len(net.Links) * nvl
	if t.HasSL2VL() {
		keys *= nvl
	}
	stamp := make([]int32, keys)
	var edges []uint64
	vlUsed := make([]bool, MaxVLs)
	for di, lid := range g.dests {
		dn := int(g.destNode[di])
		dst := int(g.hcaSwitch[dn-g.S])
		dport := int(g.hcaPort[dn-g.S])
		for i := range state {
			state[i] = 0
		}
		// Resolve every switch: follow the LFT until a known state.
		for s := 0; s < g.S; s++ {
			if state[s] != 0 {
				continue
			}
			walk = walk[:0]
			u := int32(s)
			var end uint8
			for {
				if state[u] == 1 {
					end = 4
					break
				}
				if state[u] != 0 {
					end = state[u]
					break
				}
				state[u] = 1
				walk = append(walk, u)
				p := t.Port(int(u), lid)
				if int(u) == dst && int(p) == dport {
					end = 2
					break
				}
				if p == NoPath || p == 0 {
					end = 3
					break
				}
				e, ok := net.Peer(int(u), int(p))
				if !ok || int(e.Node) >= g.S {
					end = 3 // dark port, or delivered to the wrong HCA
					break
				}
				u = e.Node
			}
			for _, w := range walk {
				state[w] = end
			}
		}
		for s := 0; s < g.S; s++ {
			k := g.numHCAs(s)
			if s == dst {
				k--
			}
			if k <= 0 || state[s] == 2 {
				continue
			}
			v.Complete = false
			v.Unreachable += k
			if state[s] == 4 {
				v.LoopFree = false
				v.Looping += k
			}
			if v.Problem == "" {
				what := "has no route"
				if state[s] == 4 {
					what = "loops"
				}
				v.Problem = fmt.Sprintf("traffic from %s to LID %d (%s) %s", net.Nodes[s].Name, lid, net.Nodes[dn].Name, what)
			}
		}
		// Dependencies of the delivered paths, memoized per (channel, VL,
		// SL): from there on a path to this destination is always the same.
		mark := int32(di + 1)
		for s := 0; s < g.S; s++ {
			if g.numHCAs(s) == 0 || state[s] != 2 || s == dst {
				continue
			}
			sl := t.SL(s, lid)
			u, in := s, 0
			prev := int32(-1)
			for u != dst {
				p := int(t.Port(u, lid))
				ch := g.channelAt(u, p)
				vl := t.VL(u, in, p, sl)
				vlUsed[vl] = true
				node := ch*int32(nvl) + int32(vl)
				if prev >= 0 {
					edges = append(edges, edgeKey(prev, node))
				}
				key := node
				if t.HasSL2VL() {
					key = node*int32(nvl) + int32(sl)
				}
				if stamp[key] == mark {
					break
				}
				stamp[key] = mark
				prev = node
				to, tp := g.chTo(ch)
				u, in = int(to), int(tp)
			}
			if g.numHCAs(s) > 0 {
				vlUsed[t.InjectVL(sl)] = true
			}
		}
	}
	for _, u := range vlUsed {
		if u {
			v.VLsUsed++
		}
	}
	slices.Sort(edges)
	edges = slices.Compact(edges)
	var deps cdg
	for _, e := range edges {
		deps.add(int32(e>>32), int32(uint32(e)))
	}
	deps.layout()
	if cyc := deps.findCycle(); cyc != nil {
		v.DeadlockFree = false
		for _, node := range cyc {
			ch, vl := node/int32(nvl), int(node%int32(nvl))
			to, tp := g.chTo(ch)
			v.Cycle = append(v.Cycle, Hop{From: net.Nodes[g.chFrom[ch]].Name, FromPort: int(g.chFromPrt[ch]),
				To: net.Nodes[to].Name, ToPort: int(tp), VL: vl})
		}
	}
	return v, nil
}
