package pipeline

import (
	"fmt"
	"strings"
	"time"

	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/routing"
	"flitsim/sim"
)

// SMReroute is the subnet manager's answer to failed cables, without
// traffic (seeds/001 §4.2.3.1; issue 51): the cables fail at 0; the
// subnet manager notices them DetectS later and routes the fabric anew
// (RouteS, or the engine's time measured here when RouteS < 0); then it
// writes the LFT blocks (64 LIDs each) that differ from the old tables,
// switch after switch in node order, MADRate blocks a second. Until a
// switch has its new blocks it forwards by the old tables, so a pair may
// stay broken, or loop, while the fabric holds a mixture of both
// (routing.MixedReach).
type SMReroute struct {
	Net     *fabric.Network
	Engine  string
	Options routing.Options
	Faults  faults.Spec // cables only: a failed switch renumbers the fabric's nodes
	DetectS float64
	RouteS  float64 // < 0: measured
	MADRate float64 // LFT blocks written per second
	// FivePhase updates by the thesis' protocol (§5.2.3) in a simulation
	// (Timeline): the high LIDs' Up*/Down* tables on VL EscapeVL first,
	// the sources migrated to them, DrainS to drain, the new base tables,
	// the sources back.
	FivePhase bool
	DrainS    float64
	EscapeVL  int
}

// RerouteStep is the fabric at one instant of a reroute.
type RerouteStep struct {
	AtS      float64 `json:"at_s"`
	Event    string  `json:"event"`
	Switches int     `json:"switches_written"`
	Blocks   int     `json:"blocks_written"`
	Broken   int     `json:"broken_pairs"`
	Looping  int     `json:"looping_pairs"`
	// Loops are the mixture's forwarding loops.
	Loops []NamedLoop `json:"loops,omitempty"`
}

// NamedLoop is a forwarding loop (routing.Loop) by switch names, and when
// it existed in a run through a reroute: from the first table state that
// held it to the next that did not (UntilNs 0: it never went).
type NamedLoop struct {
	Switches []string `json:"switches"`
	LID      uint16   `json:"lid"`
	FromNs   float64  `json:"from_ns,omitempty"`
	UntilNs  float64  `json:"until_ns,omitempty"`
}

// String writes the loop as a → b → … → a (LID l).
func (l NamedLoop) String() string {
	return fmt.Sprintf("%s → %s (LID %d)", strings.Join(l.Switches, " → "), l.Switches[0], l.LID)
}

// namedLoops names the loops of a mixture of net's tables.
func namedLoops(net *fabric.Network, ls []routing.Loop) []NamedLoop {
	var out []NamedLoop
	for _, l := range ls {
		n := NamedLoop{LID: l.LID}
		for _, s := range l.Switches {
			n.Switches = append(n.Switches, net.Nodes[s].Name)
		}
		out = append(out, n)
	}
	return out
}

// SMRerouteReport is a reroute's outcome.
type SMRerouteReport struct {
	Network       string        `json:"network"`
	Engine        string        `json:"engine"`
	Failed        faults.Record `json:"failed"`
	Pairs         int           `json:"pairs"`
	DetectS       float64       `json:"detect_s"`
	RouteS        float64       `json:"route_s"`
	RouteMeasured bool          `json:"route_measured"`
	MADRate       float64       `json:"mad_rate"`
	// Blocks and Switches are the LFT blocks that differ and the switches
	// they are in: what the subnet manager writes.
	Blocks   int           `json:"blocks"`
	Switches int           `json:"switches"`
	Steps    []RerouteStep `json:"steps"`
	// ReachableS is when every pair is delivered again for good (-1:
	// never); PairSeconds the pairs broken or looping integrated over
	// time.
	ReachableS  float64 `json:"reachable_s"`
	PairSeconds float64 `json:"pair_seconds"`
}

// reroutePlan is a reroute's two routing states: the fabric before (the
// run's tables) and after the failures, and the LFT blocks that differ.
type reroutePlan struct {
	old, nw *Routed
	fnet    *fabric.Network
	rep     *SMRerouteReport
	// next are nw's tables in the numbering of the fabric before the
	// failures (nw's own when only cables failed), and dead marks that
	// fabric's switches that failed or were cut off.
	next *routing.Tables
	dead []bool
	// blocks[s] lists the blocks of switch s that differ (none on a dead
	// one: the subnet manager cannot write it).
	blocks [][]int
}

// plan routes the fabric before and after the failures and finds the
// blocks to write; switches lets switches fail (their fabric is
// renumbered: the simulation's Timeline takes them, the static steps of
// Run do not).
func (r SMReroute) plan(switches bool) (*reroutePlan, error) {
	if !switches && (r.Faults.SwitchPercent > 0 || r.Faults.MixedPercent > 0) {
		return nil, &InputError{fmt.Errorf("reroute: cable failures only (a failed switch leaves the fabric renumbered)")}
	}
	for _, f := range r.Faults.Fixed {
		if f.Switch && !switches {
			return nil, &InputError{fmt.Errorf("%s: reroute: cable failures only, not switch %s", f.Where, f.Node)}
		}
	}
	if r.Faults.TakeHCAs {
		return nil, &InputError{fmt.Errorf("reroute: switches with HCAs cannot fail while traffic runs (take_hcas)")}
	}
	if r.MADRate <= 0 || r.DetectS < 0 {
		return nil, &InputError{fmt.Errorf("reroute: want a positive MAD rate and a detection delay ≥ 0")}
	}
	old, err := Route(r.Net, r.Engine, r.Options)
	if err != nil {
		return nil, err
	}
	if !old.OK() {
		return nil, &InputError{fmt.Errorf("%s on %s: %s", r.Engine, r.Net.Name, old.Problem())}
	}
	fnet, rec, err := faults.Inject(r.Net, r.Faults)
	if err != nil {
		return nil, &InputError{err}
	}
	began := time.Now()
	nw, err := Route(fnet, r.Engine, r.Options)
	if err != nil {
		return nil, err
	}
	if !nw.OK() {
		return nil, &InputError{fmt.Errorf("%s on %s after the failures: %s", r.Engine, r.Net.Name, nw.Problem())}
	}
	rep := &SMRerouteReport{Network: r.Net.Name, Engine: r.Engine, Failed: rec, DetectS: r.DetectS, RouteS: r.RouteS, MADRate: r.MADRate}
	if r.RouteS < 0 {
		rep.RouteS, rep.RouteMeasured = time.Since(began).Seconds(), true
	}

	next, dead := nw.Tables, make([]bool, r.Net.NumSwitches)
	if fnet.NumSwitches != r.Net.NumSwitches {
		if next, err = nw.Tables.Renumbered(fnet, r.Net); err != nil {
			return nil, err
		}
		alive := fnet.ByName()
		for s := range r.Net.NumSwitches {
			_, ok := alive[r.Net.Nodes[s].Name]
			dead[s] = !ok
		}
	}
	// The blocks that differ, per switch.
	a, b := old.Tables, next
	blocks := make([][]int, r.Net.NumSwitches)
	for s := range r.Net.NumSwitches {
		if dead[s] {
			continue
		}
		ra, rb := a.Row(s), b.Row(s)
		for lo := 0; lo < len(ra); lo += sim.LFTBlock {
			hi := min(lo+sim.LFTBlock, len(ra))
			for l := lo; l < hi; l++ {
				if ra[l] != rb[l] {
					blocks[s] = append(blocks[s], lo/sim.LFTBlock)
					break
				}
			}
		}
		if len(blocks[s]) > 0 {
			rep.Blocks += len(blocks[s])
			rep.Switches++
		}
	}
	return &reroutePlan{old: old, nw: nw, fnet: fnet, rep: rep, next: next, dead: dead, blocks: blocks}, nil
}

// Run plays the reroute.
func (r SMReroute) Run() (*SMRerouteReport, error) {
	pl, err := r.plan(false)
	if err != nil {
		return nil, err
	}
	fnet, rep, a, b := pl.fnet, pl.rep, pl.old.Tables, pl.nw.Tables
	done := make([]bool, fnet.NumSwitches)
	written := func(sw int, _ uint16) bool { return done[sw] }
	step := func(at float64, event string, switches, nblocks int) {
		m := routing.MixedReach(fnet, a, b, written)
		rep.Pairs = m.Total
		if n := len(rep.Steps); n > 0 {
			prev := rep.Steps[n-1]
			rep.PairSeconds += float64(prev.Broken+prev.Looping) * (at - prev.AtS)
		}
		rep.Steps = append(rep.Steps, RerouteStep{AtS: at, Event: event, Switches: switches, Blocks: nblocks, Broken: m.Broken, Looping: m.Looping,
			Loops: namedLoops(fnet, m.Loops)})
	}
	step(0, "failure", 0, 0)
	t := r.DetectS + rep.RouteS
	step(t, "routed", 0, 0)
	switches, nblocks := 0, 0
	for s := range fnet.NumSwitches {
		n := len(pl.blocks[s])
		if n == 0 {
			continue
		}
		t += float64(n) / r.MADRate
		done[s] = true
		switches++
		nblocks += n
		step(t, fnet.Nodes[s].Name, switches, nblocks)
	}
	// Reachable from the step after the last one that lost pairs on.
	rep.ReachableS = 0
	for i, st := range rep.Steps {
		if st.Broken+st.Looping > 0 {
			rep.ReachableS = -1
			if i+1 < len(rep.Steps) {
				rep.ReachableS = rep.Steps[i+1].AtS
			}
		}
	}
	return rep, nil
}
