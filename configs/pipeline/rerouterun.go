package pipeline

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/sim"
)

// Timeline is the reroute as a simulation plays it (sim.Timeline, the
// package doc of sim: "Timed events"), on the fabric before the failures
// routed by the old tables: the failed cables go down at failAt; from
// DetectS + RouteS after it the subnet manager writes the blocks that
// differ, switch after switch in node order, each block 1/MADRate after
// the one before (its instant is the end of its write), and a switch's
// SL→VL table with its first block; lost packets are sent again retry
// after their injection (0: never). It returns the timeline, the static
// report of the reroute (its steps counted from the failure) and the old
// tables.
func (r SMReroute) Timeline(failAt, retry int64) (*sim.Timeline, *SMRerouteReport, *routing.Tables, error) {
	pl, err := r.plan(true)
	if err != nil {
		return nil, nil, nil, err
	}
	tl, err := r.timeline(pl, failAt, retry)
	if err != nil {
		return nil, nil, nil, err
	}
	return tl, pl.rep, pl.old.Tables, nil
}

// timeline is Timeline on a plan made.
func (r SMReroute) timeline(pl *reroutePlan, failAt, retry int64) (*sim.Timeline, error) {
	tl := &sim.Timeline{Next: pl.next, RetryPs: retry}
	byName := r.Net.ByName()
	down := map[int]bool{}
	for _, f := range pl.rep.Failed.Links {
		a, ok := byName[f.A]
		l := -1
		if ok {
			l = r.Net.LinkAt(a, f.PortA)
		}
		if l < 0 {
			return nil, fmt.Errorf("reroute: failed cable %s/%d-%s/%d is not in %s", f.A, f.PortA, f.B, f.PortB, r.Net.Name)
		}
		down[l] = true
	}
	// A failed (or cut off) switch: every cable of it.
	for l, lk := range r.Net.Links {
		if a, b := int(lk.A.Node), int(lk.B.Node); a < r.Net.NumSwitches && pl.dead[a] || b < r.Net.NumSwitches && pl.dead[b] {
			down[l] = true
		}
	}
	for l := range r.Net.Links {
		if down[l] {
			tl.Links = append(tl.Links, sim.LinkEvent{AtPs: failAt, Link: l})
		}
	}
	ps := func(s float64) int64 { return int64(math.Round(s * 1e6 * float64(fabric.Microsecond))) }
	start := failAt + ps(pl.rep.DetectS+pl.rep.RouteS)
	if r.FivePhase {
		esc, err := r.escape(pl)
		if err != nil {
			return nil, err
		}
		// Phase 1 writes every block of the high LIDs (as many as the
		// base LIDs'), phase 2 migrates the sources, which drain for
		// DrainS; phase 3 writes the base blocks that differ (below), phase
		// 4 migrates back after the last.
		all := r.Net.NumSwitches * ((pl.old.Tables.NumLIDs + sim.LFTBlock - 1) / sim.LFTBlock)
		tl.Escape, tl.MigrateAtPs = esc, start+ps(float64(all)/r.MADRate)
		start = tl.MigrateAtPs + ps(r.DrainS)
		tl.ReturnAtPs = start
	}
	k := 0
	for s, bs := range pl.blocks {
		for i, b := range bs {
			k++
			at := start + ps(float64(k)/r.MADRate)
			if i == 0 {
				tl.Writes = append(tl.Writes, sim.TableWrite{AtPs: at, Switch: s, Block: sim.SL2VLBlock})
			}
			tl.Writes = append(tl.Writes, sim.TableWrite{AtPs: at, Switch: s, Block: b})
			tl.ReturnAtPs = max(tl.ReturnAtPs, at)
		}
	}
	if tl.Escape == nil {
		tl.ReturnAtPs = 0
	}
	return tl, nil
}

// escape routes the rest of the fabric by Up*/Down* on VL EscapeVL, the
// five-phase update's high LIDs, which the base tables must leave free.
func (r SMReroute) escape(pl *reroutePlan) (*routing.Tables, error) {
	v := r.EscapeVL
	if m := max(pl.old.Tables.MaxVL(r.Net), pl.next.MaxVLOf(r.Net, pl.old.Tables.SLsUsed())); m >= v {
		return nil, &InputError{fmt.Errorf("five-phase update: the base tables use VL %d, the high LIDs' is VL %d: route the base on fewer VLs (routing option vls = %d)", m, v, v)}
	}
	up, err := Route(pl.fnet, "updn", routing.Options{VLs: 1})
	if err != nil {
		return nil, err
	}
	if !up.OK() {
		return nil, &InputError{fmt.Errorf("five-phase update: Up*/Down* for the high LIDs: %s", up.Problem())}
	}
	esc := up.Tables
	if pl.fnet.NumSwitches != r.Net.NumSwitches {
		if esc, err = esc.Renumbered(pl.fnet, r.Net); err != nil {
			return nil, err
		}
	}
	for s := range r.Net.NumSwitches {
		for lid := range esc.NumLIDs {
			esc.SetSL(s, uint16(lid), uint8(v))
		}
	}
	return esc, nil
}

// RerouteRun is a simulation through a reroute: traffic (Params) runs on
// the fabric, the cables of Reroute fail at FailAtPs, the subnet manager
// rewrites the tables as SMReroute.Timeline says, lost packets are resent
// after RetryPs; WindowPs cuts the run into windows for the throughput
// over time. Infinite traffic without a time limit runs until the last
// table write plus the time before the failure (at least ten windows).
type RerouteRun struct {
	Reroute  SMReroute
	Params   sim.Params
	FailAtPs int64
	RetryPs  int64
	WindowPs int64
	Sim      Simulator
}

// RerouteWindow is the traffic of one window of a run through a reroute.
type RerouteWindow struct {
	StartNs       float64 `json:"start_ns"`
	ThroughputGBs float64 `json:"throughput_gbs"`
	Packets       int     `json:"packets"`
}

// RerouteRunReport is a run through a reroute beside the same run
// without the failures.
type RerouteRunReport struct {
	Reroute *SMRerouteReport `json:"reroute"`
	// FailNs and TablesNs: when the cables failed and when the last
	// block was written (every switch holds the new tables).
	FailNs   float64 `json:"fail_ns"`
	TablesNs float64 `json:"tables_ns"`
	// RecoveredNs is the start of the first window after TablesNs from
	// which every window delivers at least RecoverShare of what the
	// fabric sustained before the failure or sustains after it, whichever
	// is less (-1: never within the run).
	RecoveredNs float64 `json:"recovered_ns"`
	// ReachableNs is when every HCA pair is delivered again for good by
	// the tables the switches hold (routing.MixedReach after each
	// switch's writes; with the five-phase update, the migration to the
	// high LIDs); -1: never, -2: not followed (failed switches renumber
	// the fabric the walk needs).
	ReachableNs float64 `json:"reachable_ns"`
	// Transient is what the table states did to the pairs until then
	// (nil: not followed, as ReachableNs -2).
	Transient *RerouteTransient `json:"transient,omitempty"`
	// Result is the run through the reroute, Baseline the same traffic on
	// the intact fabric (its jobs are Result's jobs' Alone), Failed on the
	// failed fabric routed by the new tables from the start.
	Result   *sim.Result `json:"result"`
	Baseline *sim.Result `json:"baseline"`
	Failed   *sim.Result `json:"failed"`
	// Windows, Base and Rerouted are their throughput over time.
	Windows  []RerouteWindow `json:"windows"`
	Base     []RerouteWindow `json:"baseline_windows"`
	Rerouted []RerouteWindow `json:"failed_windows"`
	// Deadlock: the mixed tables deadlocked the run (Result names the
	// cycle).
	Deadlock bool `json:"transient_deadlock"`
	// MigrateNs and ReturnNs: with the five-phase update, when the
	// sources went to the high LIDs and came back.
	MigrateNs float64 `json:"migrate_ns,omitempty"`
	ReturnNs  float64 `json:"return_ns,omitempty"`
	Writes    int     `json:"table_writes"`
	// Timeline and Tables are what the run played, Routed the routing of
	// the intact fabric (Tables).
	Timeline *sim.Timeline   `json:"-"`
	Tables   *routing.Tables `json:"-"`
	Routed   *Routed         `json:"-"`
}

// RecoverShare is the share of the throughput a run must deliver again, in
// every window from some instant on, to have recovered: of the intact
// fabric's before the failure or of the failed fabric's, whichever is
// less.
const RecoverShare = 0.9

// Run simulates the reroute and the same traffic on the intact fabric.
func (rr RerouteRun) Run() (*RerouteRunReport, error) {
	if rr.WindowPs <= 0 {
		return nil, &InputError{fmt.Errorf("reroute: want a positive window")}
	}
	if rr.Reroute.FivePhase && rr.Reroute.EscapeVL == 0 {
		rr.Reroute.EscapeVL = rr.Params.HW.VLs - 1 // the last data VL
	}
	pl, err := rr.Reroute.plan(true)
	if err != nil {
		return nil, err
	}
	tl, err := rr.Reroute.timeline(pl, rr.FailAtPs, rr.RetryPs)
	if err != nil {
		return nil, err
	}
	rep, old := pl.rep, pl.old.Tables
	run := rr.Sim
	if run == nil {
		run = sim.Run
	}
	net := rr.Reroute.Net
	last := rr.FailAtPs
	for _, w := range tl.Writes {
		last = max(last, w.AtPs)
	}
	base := rr.Params
	base.Record = true
	if base.MaxTime == 0 && !base.Finite() {
		base.MaxTime = last + max(rr.FailAtPs, 10*rr.WindowPs)
	}
	b, err := run(net, old, base)
	if err != nil {
		return nil, err
	}
	p := base
	p.Timeline = tl
	res, err := run(net, old, p)
	if err != nil {
		return nil, err
	}
	// The failed fabric routed by the new tables from the start: what it
	// sustains once the reroute is over.
	fp := base
	fp.Record = true
	f, err := run(pl.fnet, pl.nw.Tables, fp)
	if err != nil {
		return nil, err
	}
	out := &RerouteRunReport{Reroute: rep, FailNs: float64(rr.FailAtPs) / 1000, Result: res, Baseline: b, Failed: f,
		Writes: len(tl.Writes), Timeline: tl, Tables: old, Routed: pl.old, Deadlock: res.Verdict == sim.Deadlock}
	out.TablesNs = float64(last) / 1000
	if tl.Escape != nil {
		out.MigrateNs, out.ReturnNs = float64(tl.MigrateAtPs)/1000, float64(tl.ReturnAtPs)/1000
	}
	end := max(int64(res.SimTimeNs*1000), int64(b.SimTimeNs*1000))
	out.Windows = windows(res.Deliveries, rr.WindowPs, end)
	out.Base = windows(b.Deliveries, rr.WindowPs, end)
	out.Rerouted = windows(f.Deliveries, rr.WindowPs, end)
	out.RecoveredNs = recovered(out.Windows, out.Rerouted, rr.WindowPs, rr.FailAtPs, last)
	out.ReachableNs, out.Transient = mixtures(pl, tl, rr.FailAtPs)
	if res.Jobs != nil {
		alone := make([]*sim.JobResult, len(b.Jobs))
		for j := range b.Jobs {
			alone[j] = &b.Jobs[j]
		}
		sim.SetSlowdowns(res.Jobs, alone)
	}
	return out, nil
}

// windows cuts deliveries into windows of w ps up to end: payload per
// second and packets.
func windows(ds []sim.Delivery, w, end int64) []RerouteWindow {
	n := int(end/w) + 1
	out := make([]RerouteWindow, n)
	bytes := make([]int64, n)
	for i := range out {
		out[i].StartNs = float64(int64(i)*w) / 1000
	}
	for _, d := range ds {
		i := int(d.DonePs / w)
		if i >= n {
			continue
		}
		out[i].Packets++
		bytes[i] += int64(d.Bytes)
	}
	for i := range out {
		out[i].ThroughputGBs = float64(bytes[i]) * 1e3 / float64(w) // bytes/ps → GB/s
	}
	return out
}

// recovered returns the start (ns) of the first whole window from the
// last write on from which every whole window delivers at least
// RecoverShare of the lesser of two means: of the whole windows before
// the failure, and of the failed fabric's run (failed) over the same
// windows from the failure's on; -1 when none does or no window precedes
// the failure.
func recovered(ws, failed []RerouteWindow, w, failAt, last int64) float64 {
	before := int(failAt / w)              // windows [0, before) end by the failure
	whole := min(len(ws), len(failed)) - 1 // the last window is cut by the run's end
	if before == 0 || whole <= before {
		return -1
	}
	mean := func(xs []RerouteWindow) float64 {
		var m float64
		for _, x := range xs {
			m += x.ThroughputGBs
		}
		return m / float64(len(xs))
	}
	target := RecoverShare * min(mean(ws[:before]), mean(failed[before:whole]))
	from := -1
	for i := int((last + w - 1) / w); i < whole; i++ {
		if ws[i].ThroughputGBs < target {
			from = -1
			continue
		}
		if from < 0 {
			from = i
		}
	}
	if from < 0 {
		return -1
	}
	return ws[from].StartNs
}

// runTimed evaluates a point whose failures happen while traffic runs
// ([faults.timed]): on the intact fabric base, the point's engine before
// and after, the subnet manager as the entry declares it.
func (o *Outcome) runTimed(p configs.Point, base *fabric.Network, simulate Simulator) *Outcome {
	t := p.Timed
	s := func(ps int64) float64 { return float64(ps) / 1e12 }
	rr := RerouteRun{
		Reroute: SMReroute{Net: base, Engine: p.Routing.Engine, Options: p.Options, Faults: p.Faults,
			DetectS: s(t.Detect), RouteS: s(t.RouteTime), MADRate: t.MADRate, FivePhase: t.FivePhase, DrainS: s(t.Drain)},
		Params: p.Params, FailAtPs: t.At, RetryPs: t.Retry, WindowPs: t.WindowSize, Sim: simulate,
	}
	out, err := rr.Run()
	if err != nil {
		return o.fail(err)
	}
	r := &o.Record
	o.Net, o.Faults, o.Routed, o.Result = base, out.Reroute.Failed, out.Routed, out.Result
	r.Switches, r.HCAs = base.NumSwitches, base.NumHCAs()
	r.FailedLinks, r.Redrawn = len(o.Faults.Links), o.Faults.Redrawn
	o.recordRouting(p.Params.HW.BubbleVLs)
	r.Timed = &results.TimedRecord{FailNs: out.FailNs, TablesNs: out.TablesNs, ReachableNs: out.ReachableNs, RecoveredNs: out.RecoveredNs,
		PacketsLost: out.Result.PacketsLost, PacketsResent: out.Result.PacketsResent, TransientDeadlock: out.Deadlock,
		IntactGBs: out.Baseline.ThroughputGBs, FailedGBs: out.Failed.ThroughputGBs, WindowNs: float64(t.WindowSize) / 1000,
		Sweep: t.Sweep, MaxBroken: -1, MaxLooping: -1}
	if tr := out.Transient; tr != nil {
		r.Timed.MaxBroken, r.Timed.MaxLooping = tr.MaxBroken, tr.MaxLooping
	}
	for _, w := range out.Windows[:len(out.Windows)-1] { // the last is cut by the run's end
		r.Timed.Windows = append(r.Timed.Windows, w.ThroughputGBs)
	}
	return o.recordResult(p)
}

// RerouteTransient is what the tables the switches held from the failure
// until the last write did to the HCA pairs (routing.MixedReach on the
// failed fabric after the failure and after each switch's last write;
// with the five-phase update, until the migration to the high LIDs,
// whose tables are all written before it).
type RerouteTransient struct {
	// BrokenAtFailure is the pairs the failure itself broke (the old
	// tables on the failed fabric); MaxBroken the most pairs any table
	// state sent into a dead end (a failed cable or another HCA: a black
	// hole), MaxLooping the most it sent round a forwarding loop.
	BrokenAtFailure int `json:"broken_at_failure"`
	MaxBroken       int `json:"max_broken_pairs"`
	MaxLooping      int `json:"max_looping_pairs"`
	// Loops are the distinct forwarding loops of the states, each with
	// the time it existed.
	Loops []NamedLoop `json:"loops,omitempty"`
}

// mixtures walks the table states of a run through a reroute: when every
// pair is delivered again for good (RerouteRunReport.ReachableNs) and the
// transient loops and black holes.
func mixtures(pl *reroutePlan, tl *sim.Timeline, failAt int64) (float64, *RerouteTransient) {
	if pl.fnet.NumSwitches != len(pl.dead) {
		return -2, nil
	}
	tr := &RerouteTransient{}
	open := map[string]int{} // a loop's switches → its index in tr.Loops, while it lasts
	lost := func(at int64, written func(sw int, lid uint16) bool) bool {
		m := routing.MixedReach(pl.fnet, pl.old.Tables, pl.nw.Tables, written)
		tr.MaxBroken, tr.MaxLooping = max(tr.MaxBroken, m.Broken), max(tr.MaxLooping, m.Looping)
		now := map[string]bool{}
		for _, l := range namedLoops(pl.fnet, m.Loops) {
			k := strings.Join(l.Switches, " ")
			now[k] = true
			if _, ok := open[k]; !ok {
				l.FromNs = float64(at) / 1000
				open[k] = len(tr.Loops)
				tr.Loops = append(tr.Loops, l)
			}
		}
		for k, i := range open {
			if !now[k] {
				tr.Loops[i].UntilNs = float64(at) / 1000
				delete(open, k)
			}
		}
		return m.Broken+m.Looping > 0
	}
	none := func(int, uint16) bool { return false }
	if !lost(failAt, none) {
		return float64(failAt) / 1000, tr // the failure broke no pair
	}
	tr.BrokenAtFailure = tr.MaxBroken
	if tl.Escape != nil {
		return float64(tl.MigrateAtPs) / 1000, tr // every source on the high LIDs, Up*/Down* of the failed fabric
	}
	at := map[[2]int]int64{} // (switch, block) → its write
	done := make([]int64, pl.fnet.NumSwitches)
	for _, w := range tl.Writes {
		if w.Block != sim.SL2VLBlock {
			at[[2]int{w.Switch, w.Block}] = w.AtPs
			done[w.Switch] = max(done[w.Switch], w.AtPs)
		}
	}
	var steps []int64
	for _, t := range done {
		if t > 0 {
			steps = append(steps, t)
		}
	}
	sort.Slice(steps, func(i, j int) bool { return steps[i] < steps[j] })
	out := int64(-1)
	for _, t := range steps {
		written := func(sw int, lid uint16) bool {
			w, ok := at[[2]int{sw, int(lid) / sim.LFTBlock}]
			return ok && w <= t
		}
		if lost(t, written) {
			out = -1
		} else if out < 0 {
			out = t
		}
	}
	if out < 0 {
		return -1, tr
	}
	return float64(out) / 1000, tr
}
