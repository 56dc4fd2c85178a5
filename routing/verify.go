package routing

import (
	"fmt"
	"math/bits"
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
	// RingCyclesOnly: the graph has cycles, but every one lies within one
	// torus ring (its channels one direction along one line, on one VL),
	// so that bubble flow control on RingVLs (a bit per VL) makes the
	// routing deadlock-free (seeds/003). Cycle is then one such ring.
	RingCyclesOnly bool `json:"ring_cycles_only,omitempty"`
	RingVLs        int  `json:"ring_vls,omitempty"`
	// VLsUsed counts the VLs the HCA paths use.
	VLsUsed int `json:"vls_used"`
	// Problem describes the first defect found ("" when OK).
	Problem string `json:"problem,omitempty"`
}

// OK reports whether the tables are a usable routing (complete and loop
// free); deadlock-freedom is reported separately.
func (v Verdict) OK() bool { return v.Complete && v.LoopFree }

// DeadlockFreeWith reports whether the routing cannot deadlock on hardware
// with bubble flow control on the VLs of bubbleVLs (fabric.Hardware's
// BubbleVLs): an acyclic dependency graph, or cycles only within rings on
// VLs with bubbles.
func (v Verdict) DeadlockFreeWith(bubbleVLs int) bool {
	return v.DeadlockFree || v.RingCyclesOnly && v.RingVLs&^bubbleVLs == 0
}

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
	vf := newVerifier(newGraph(net), t)
	if t.Source != nil {
		vf.verifySource()
	} else {
		vf.verifyTables()
	}
	for _, u := range vf.vlUsed {
		if u {
			vf.v.VLsUsed++
		}
	}
	if t.Adaptive != nil {
		// The forwarding entries are only each pair's first minimal
		// route; packets take any candidate on VL = hops taken, which
		// strictly grows along every route, and NewDragonfly sized VLs
		// for the longest route the network allows: no cycle can close
		// by construction (Dragonfly.Verify walks every route to check
		// it; too slow to run per campaign point on Aries).
		vf.v.VLsUsed = t.Adaptive.VLs
		return vf.v, nil
	}
	vf.findCycle()
	return vf.v, nil
}

// verifyTables resolves every destination's tree and collects its
// dependencies. Blocks of destinations are shared among one worker per
// processor, each with its own work space; the verdict merges theirs and is
// the same whatever the schedule (the problem named is the first
// destination's).
func (vf *verifier) verifyTables() {
	const block = 64
	g, t := vf.g, vf.t
	blocks := (len(g.dests) + block - 1) / block
	// Each worker has its own marks (stamp, depBits): at most 1 GiB of
	// them in all, however many processors.
	perWorker := 4 * len(vf.stamp)
	if !t.HasSL2VL() {
		perWorker += g.chans.Len() * MaxVLs * g.stride / 8
	}
	ws := []*verifier{vf}
	for len(ws) < min(workers(blocks), max(1, (1<<30)/perWorker)) {
		ws = append(ws, newVerifier(g, t))
	}
	if nbits := g.chans.Len() * MaxVLs * g.stride; !t.HasSL2VL() && int64(nbits) <= 1<<31 {
		for _, w := range ws {
			w.depBits = make([]uint64, (nbits+63)/64)
		}
	}
	ports, sls := make([][]uint8, len(ws)), make([][]uint8, len(ws))
	noSL := make([]uint8, block*g.S) // every SL 0: tables without SLs
	eachBlock(len(g.dests), block, len(ws), func(k, lo, hi int) {
		w, S := ws[k], g.S
		if ports[k] == nil {
			ports[k], sls[k] = make([]uint8, block*S), noSL
			if t.sl != nil {
				sls[k] = make([]uint8, block*S)
			}
		}
		lids := g.dests[lo:hi]
		if t.sl != nil {
			t.columns(lids, ports[k], sls[k])
		} else {
			t.columns(lids, ports[k], nil)
		}
		for j := range lids {
			w.col, w.slCol = ports[k][j*S:(j+1)*S], sls[k][j*S:(j+1)*S]
			w.resolve(lo + j)
			w.countUndelivered(lo + j)
			w.addDependencies(lo + j)
		}
	})
	for _, w := range ws[1:] {
		v := &vf.v
		v.Complete = v.Complete && w.v.Complete
		v.LoopFree = v.LoopFree && w.v.LoopFree
		v.Unreachable += w.v.Unreachable
		v.Looping += w.v.Looping
		if w.v.Problem != "" && (v.Problem == "" || w.problemAt < vf.problemAt) {
			v.Problem, vf.problemAt = w.v.Problem, w.problemAt
		}
		for i, u := range w.vlUsed {
			vf.vlUsed[i] = vf.vlUsed[i] || u
		}
		vf.deps = append(vf.deps, w.deps...)
	}
	if vf.depBits != nil {
		for _, w := range ws[1:] {
			for i, x := range w.depBits {
				vf.depBits[i] |= x
			}
			w.depBits = nil
		}
		vf.deps, vf.depBits = vf.bitDeps(), nil
	}
}

// bitDeps lists the dependencies marked in depBits (prev·stride+port, see
// addDependencies) as edge keys, each once and in the order findCycle sorts
// them into (its sort then only confirms it): by prev, then by the node the
// port leads to, on prev's VL.
func (vf *verifier) bitDeps() []uint64 {
	g := vf.g
	n := 0
	for _, word := range vf.depBits {
		n += bits.OnesCount64(word)
	}
	deps := make([]uint64, 0, n)
	for i, word := range vf.depBits {
		for word != 0 {
			b := i*64 + bits.TrailingZeros64(word)
			word &= word - 1
			prev, p := int32(b/g.stride), b%g.stride
			to := g.chanAt(int(g.chTo(prev/MaxVLs)), p)*MaxVLs + prev%MaxVLs
			deps = append(deps, edgeKey(prev, to))
		}
	}
	// A node's ports lead to channels in no particular order.
	for i := 0; i < len(deps); {
		j := i + 1
		for j < len(deps) && deps[j]>>32 == deps[i]>>32 {
			j++
		}
		slices.Sort(deps[i:j])
		i = j
	}
	return deps
}

// fate is where a switch's packets to the destination being checked end up.
type fate uint8

const (
	fateUnknown  fate = iota
	fateOnWalk        // on the walk being followed
	fateDelivers      // reach the destination HCA
	fateBroken        // meet a missing route, a dark port or another HCA
	fateLoops         // circle forever
)

// verifier is the work space of Verify.
type verifier struct {
	g     *graph
	t     *Tables
	v     Verdict
	state []fate // per switch, for the current destination
	// col and slCol are every switch's output port and service level for
	// the current destination (Tables.columns).
	col, slCol []uint8
	// problemAt is the destination the verdict's Problem names.
	problemAt int
	walk      []int32
	// deps are the CDG's edges (from<<32 | to), nodes channel·MaxVLs+VL;
	// stamp marks the (channel, VL[, SL]) already followed to the current
	// destination.
	deps  []uint64
	edges edgeSet // the distinct deps addDependencies met
	// depBits, when the tables have no SL→VL tables and it fits, marks
	// the deps met instead of edges: bit prev·stride+port.
	depBits []uint64
	stamp   []int32
	vlUsed  []bool
}

func newVerifier(g *graph, t *Tables) *verifier {
	// With SL→VL changes the rest of a path depends on the SL and the VL
	// it holds on a channel; without, the VL is the SL.
	keys := g.chans.Len() * MaxVLs
	if t.HasSL2VL() {
		keys *= MaxVLs
	}
	return &verifier{g: g, t: t, v: Verdict{Complete: true, LoopFree: true, DeadlockFree: true},
		state: make([]fate, g.S), stamp: make([]int32, keys), vlUsed: make([]bool, MaxVLs)}
}

// resolve finds where every switch's packets to destination i end up,
// following the LFTs until a switch whose fate is known.
func (vf *verifier) resolve(i int) {
	g := vf.g
	dst := int(g.destSwitch[i])
	dport := int(g.hcaPort[int(g.destNode[i])-g.S])
	clear(vf.state)
	for s := 0; s < g.S; s++ {
		if vf.state[s] != fateUnknown {
			continue
		}
		vf.walk = vf.walk[:0]
		u := int32(s)
		var end fate
		for {
			if vf.state[u] == fateOnWalk {
				end = fateLoops
				break
			}
			if vf.state[u] != fateUnknown {
				end = vf.state[u]
				break
			}
			vf.state[u] = fateOnWalk
			vf.walk = append(vf.walk, u)
			p := vf.col[u]
			if int(u) == dst && int(p) == dport {
				end = fateDelivers
				break
			}
			if p == NoPath || p == 0 {
				end = fateBroken
				break
			}
			ch := g.chanAt(int(u), int(p))
			if ch < 0 || int(g.chTo(ch)) >= g.S {
				end = fateBroken // dark port, or delivered to the wrong HCA
				break
			}
			u = g.chTo(ch)
		}
		for _, w := range vf.walk {
			vf.state[w] = end
		}
	}
}

// countUndelivered adds the HCA pairs to destination i that are not
// delivered to the verdict, and names the first.
func (vf *verifier) countUndelivered(i int) {
	g, v := vf.g, &vf.v
	dst := int(g.destSwitch[i])
	for s := 0; s < g.S; s++ {
		k := g.sources(s, dst)
		if k <= 0 || vf.state[s] == fateDelivers {
			continue
		}
		v.Complete = false
		v.Unreachable += k
		if vf.state[s] == fateLoops {
			v.LoopFree = false
			v.Looping += k
		}
		if v.Problem == "" {
			what := "has no route"
			if vf.state[s] == fateLoops {
				what = "loops"
			}
			v.Problem = fmt.Sprintf("traffic from %s to LID %d (%s) %s", g.net.Nodes[s].Name, g.dests[i], g.net.Nodes[g.destNode[i]].Name, what)
			vf.problemAt = i
		}
	}
}

// addDependencies adds the dependencies of the delivered paths to
// destination i, memoized per (channel, VL, SL): from there on a path to
// this destination is always the same.
func (vf *verifier) addDependencies(i int) {
	g, t := vf.g, vf.t
	dst := int(g.destSwitch[i])
	mark := int32(i + 1)
	bySL := t.HasSL2VL()
	deps, stamp, vlUsed := vf.deps, vf.stamp, vf.vlUsed
	for s := 0; s < g.S; s++ {
		if g.numHCAs(s) == 0 || vf.state[s] != fateDelivers || s == dst {
			continue
		}
		sl := vf.slCol[s]
		u, in := s, 0
		prev := int32(-1)
		for u != dst {
			p := int(vf.col[u])
			ch := g.chanAt(u, p)
			vl := t.VL(u, in, p, sl)
			vlUsed[vl] = true
			node := ch*MaxVLs + int32(vl)
			if prev >= 0 {
				if vf.depBits != nil {
					// Without SL→VL tables a dependency keeps its VL,
					// so (prev, port) names it; bitDeps lists them.
					b := int(prev)*g.stride + p
					vf.depBits[b>>6] |= 1 << (b & 63)
				} else if e := edgeKey(prev, node); vf.edges.add(e) {
					deps = append(deps, e)
				}
			}
			key := node
			if bySL {
				key = node*MaxVLs + int32(sl)
			}
			if stamp[key] == mark {
				break
			}
			stamp[key] = mark
			prev = node
			to := g.chans.To(ch)
			u, in = int(to.Node), int(to.Port)
		}
		vlUsed[t.InjectVL(sl)] = true
	}
	vf.deps = deps
}

// findCycle looks for a cycle in the dependencies collected and, if there
// is one, reports it as the verdict's Cycle.
func (vf *verifier) findCycle() {
	g := vf.g
	slices.Sort(vf.deps)
	deps := slices.Compact(vf.deps)
	var c cdg
	c.reserve(len(deps))
	for _, e := range deps {
		c.add(int32(e>>32), int32(uint32(e)))
	}
	c.layout()
	cyc := c.findCycle()
	if cyc == nil {
		return
	}
	vf.v.DeadlockFree = false
	if len(g.net.Dims) > 0 {
		only, vls, other := g.ringCycles(deps)
		vf.v.RingCyclesOnly, vf.v.RingVLs = only, vls
		if !only {
			cyc = other
		}
	}
	for _, node := range cyc {
		ch, vl := node/MaxVLs, int(node%MaxVLs)
		from, to := g.chans.From(ch), g.chans.To(ch)
		vf.v.Cycle = append(vf.v.Cycle, Hop{From: g.net.Nodes[from.Node].Name, FromPort: int(from.Port),
			To: g.net.Nodes[to.Node].Name, ToPort: int(to.Port), VL: vl})
	}
}
