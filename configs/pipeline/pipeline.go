// Package pipeline is the data flow of one simulation point (DESIGN §1):
// build the topology, inject the failures, route, verify and measure the
// tables, simulate, and make the result record. The CLI's run, sim, route
// and slurm commands all go through it, so a point evaluated by a campaign
// and the same point typed on the command line give the same record.
//
// Every outcome is a record: an engine that cannot route the network is a
// result (verdict routing_failed), not an error; only a point that cannot
// be evaluated at all gets verdict error, with the cause kept in Outcome.Err.
package pipeline

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"flitsim/configs"
	"flitsim/fabric"
	"flitsim/faults"
	"flitsim/results"
	"flitsim/routing"
	"flitsim/routing/engines"
	"flitsim/sim"
	"flitsim/traffic"
)

// Networks builds each topology once and shares it between points and
// workers (a network is immutable once built), and keeps the failure
// draws most recently made of them: points that share a topology,
// failure level and fault seed (every routing and traffic seed of it,
// consecutive in a campaign's order) share one draw. It is safe for
// concurrent use.
type Networks struct {
	mu     sync.Mutex
	nets   map[string]*netEntry
	failed kept[failEntry]
	// twins, when on (ShareTwins), holds the records of points whose
	// draw failed nothing, by their twin key.
	twins   kept[twinEntry]
	twinsOn bool
}

// kept is a map that keeps its newest entries, at most max.
type kept[E any] struct {
	m     map[string]*E
	order []string // oldest first
	max   int
}

// get returns key's entry, making it (and forgetting the oldest) if it is
// not kept.
func (k *kept[E]) get(key string) *E {
	e := k.m[key]
	if e == nil {
		e = new(E)
		k.m[key] = e
		k.order = append(k.order, key)
		if len(k.order) > k.max {
			delete(k.m, k.order[0])
			k.order = k.order[1:]
		}
	}
	return e
}

// keptDraws bounds the failure draws Networks keeps.
const keptDraws = 64

type failEntry struct {
	once sync.Once
	net  *fabric.Network
	rec  faults.Record
	err  error
}

type netEntry struct {
	once sync.Once
	net  *fabric.Network
	err  error
}

// NewNetworks returns an empty cache.
func NewNetworks() *Networks {
	return &Networks{nets: map[string]*netEntry{},
		failed: kept[failEntry]{m: map[string]*failEntry{}, max: keptDraws},
		twins:  kept[twinEntry]{m: map[string]*twinEntry{}, max: keptTwins}}
}

// Failed returns the network of spec after the failures of fs (Fail),
// drawing them once however many points ask for them while they are
// among the draws kept.
func (n *Networks) Failed(spec string, fs faults.Spec) (*fabric.Network, faults.Record, error) {
	base, err := n.Get(spec)
	if err != nil {
		return nil, faults.Record{}, err
	}
	key := fmt.Sprintf("%s|%+v", spec, fs)
	n.mu.Lock()
	e := n.failed.get(key)
	n.mu.Unlock()
	e.once.Do(func() { e.net, e.rec, e.err = Fail(base, fs) })
	return e.net, e.rec, e.err // shared: for reading only
}

// ShareTwins makes the points that Run evaluates with n share their work
// with their twins: points that differ only in the fault seed and whose
// draws failed nothing (every seed of a 0 % level, or a level too small
// to fail one component) run on the same network with the same routing
// and traffic, so all but the first take its record, with their own
// index, key and fault seed. The records are those each would have made
// (the run is deterministic); only the work is saved. The outcome of a
// twin carries the record alone (no network, tables or result), so only
// callers that want records (a campaign's run) share.
func (n *Networks) ShareTwins() {
	n.mu.Lock()
	n.twinsOn = true
	n.mu.Unlock()
}

// keptTwins bounds the records kept for twins. A level's points follow
// one another (fault seed, then traffic seed and routing), so a record is
// asked for within a level's points.
const keptTwins = 256

type twinEntry struct {
	once sync.Once
	rec  results.Record
	err  error
}

// twin returns the entry of p's twins, and whether p shares one: its draw
// (failed) must have failed nothing, and sharing must be on.
func (n *Networks) twin(p configs.Point, failed faults.Record) (*twinEntry, bool) {
	if len(failed.Links)+len(failed.Switches) > 0 || failed.Redrawn > 0 {
		return nil, false
	}
	key, ok := p.TwinKey()
	if !ok {
		return nil, false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.twinsOn {
		return nil, false
	}
	return n.twins.get(key), true
}

// Get returns the network of a topology spec (kind:key=value,… or
// file:PATH), building it on first use.
func (n *Networks) Get(spec string) (*fabric.Network, error) {
	n.mu.Lock()
	e := n.nets[spec]
	if e == nil {
		e = &netEntry{}
		n.nets[spec] = e
	}
	n.mu.Unlock()
	e.once.Do(func() { e.net, e.err = fabric.Build(spec) })
	return e.net, e.err
}

// Add makes spec name an already built network (one the CLI loaded).
func (n *Networks) Add(spec string, net *fabric.Network) {
	e := &netEntry{net: net}
	e.once.Do(func() {})
	n.mu.Lock()
	n.nets[spec] = e
	n.mu.Unlock()
}

// Load reads a network from a topology spec, or from a netlist file named
// by its path alone, and refuses one whose HCAs are not all connected.
func Load(arg string) (*fabric.Network, error) {
	if !strings.Contains(arg, ":") {
		if _, err := os.Stat(arg); err == nil {
			arg = "file:" + arg
		} else if _, ok := fabric.LookupGenerator(arg); !ok {
			return nil, fmt.Errorf("%q is neither a topology spec nor a readable file", arg)
		}
	}
	net, err := fabric.Build(arg)
	if err != nil {
		return nil, err
	}
	if reached, all := net.HCAsConnected(); !all {
		return nil, fmt.Errorf("%s: its HCAs are not all connected (the first reaches %d of %d): nothing can route it", arg, reached, net.NumHCAs())
	}
	return net, nil
}

// Fail injects the failures of spec, or returns net itself when spec
// fails nothing.
func Fail(net *fabric.Network, spec faults.Spec) (*fabric.Network, faults.Record, error) {
	if spec.LinkPercent+spec.SwitchPercent+spec.MixedPercent == 0 && len(spec.Fixed) == 0 {
		return net, faults.Record{Seed: spec.Seed}, nil
	}
	return faults.Inject(net, spec)
}

// Routed is the outcome of routing a network: the tables, their
// verification and metrics, or the engine's failure.
type Routed struct {
	Tables  *routing.Tables
	Verdict routing.Verdict
	Metrics routing.Metrics
	// Failure is why the engine could not route (nil when it did); its
	// VLsNeeded says how many VLs it would have needed, when it knows
	// (at least, when AtLeast is set).
	Failure error
	// Elapsed is the engine's own time (wall clock, not verification or
	// metrics): a measurement, never part of a result.
	Elapsed time.Duration
}

// OK reports complete, loop-free tables.
func (r *Routed) OK() bool { return r.Failure == nil && r.Verdict.OK() }

// Problem says why the tables are unusable, or "".
func (r *Routed) Problem() string {
	switch {
	case r.Failure != nil:
		return r.Failure.Error()
	case !r.Verdict.OK():
		return "incomplete tables: " + r.Verdict.Problem
	}
	return ""
}

// Route routes net with engine (built in or opensm:NAME), verifies the
// tables and measures them. An engine's failure to route is in
// Routed.Failure; the error is for what is no routing result at all (a
// missing OpenSM, tables that cannot be verified).
func Route(net *fabric.Network, engine string, opts routing.Options) (*Routed, error) {
	return RouteWatched(net, engine, opts, nil)
}

// RouteWatched is Route telling w, if not nil, how far it has come: the
// engine's own stages (routing.Watch), then "verification" and "metrics"
// as each starts (no units: 0 of 0).
func RouteWatched(net *fabric.Network, engine string, opts routing.Options, w routing.Watch) (*Routed, error) {
	start := time.Now()
	tb, err := engines.ComputeWatched(engine, net, opts, w)
	elapsed := time.Since(start)
	if err != nil {
		var f *routing.Failure
		if errors.As(err, &f) || engine == "file" {
			return &Routed{Failure: err, Elapsed: elapsed}, nil
		}
		return nil, err
	}
	r := &Routed{Tables: tb, Elapsed: elapsed}
	if w != nil {
		w("verification", 0, 0)
	}
	if r.Verdict, err = routing.Verify(net, tb); err != nil {
		return nil, err
	}
	if r.Verdict.OK() {
		if w != nil {
			w("metrics", 0, 0)
		}
		if r.Metrics, err = routing.Measure(net, tb); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Simulator runs one simulation: sim.Run, or the reference simulator's Run.
type Simulator func(*fabric.Network, *routing.Tables, sim.Params) (*sim.Result, error)

// Outcome is everything one point produced.
type Outcome struct {
	Record results.Record
	// Net is the network after the failures; nil when it could not be built.
	Net    *fabric.Network
	Faults faults.Record
	Routed *Routed
	Result *sim.Result
	// Err is why the point could not be evaluated (Record.Verdict error).
	Err error
	// Seconds is the wall time of each step (not part of the record,
	// which is the same on every machine).
	Seconds Phases
}

// Phases is the wall time of a point's steps in seconds: building the
// network (or taking the shared one) and failing it, routing with
// verification and metrics, simulating (with the jobs' solo runs).
type Phases struct {
	Fail, Route, Sim float64
}

// Evaluate runs point p of the campaign whose hash is given with the fast
// simulator and returns its record.
func Evaluate(p configs.Point, hash string, nets *Networks) results.Record {
	return Run(p, hash, nets, sim.Run).Record
}

// Run evaluates point p: fail, route, verify, simulate with simulate.
func Run(p configs.Point, hash string, nets *Networks, simulate Simulator) *Outcome {
	o := &Outcome{Record: newRecord(p, hash)}
	r := &o.Record
	step := time.Now()
	lap := func(into *float64) {
		now := time.Now()
		*into += now.Sub(step).Seconds()
		step = now
	}
	base, err := nets.Get(p.Topology.Spec)
	if err != nil {
		return o.fail(err)
	}
	if p.Workload != nil && p.Params.Jobs == nil {
		if err := p.Place(base); err != nil {
			return o.fail(err)
		}
		r.Finite = p.Params.Finite()
	}
	if f := p.Faults; p.Timed != nil && (f.LinkPercent > 0 || f.SwitchPercent > 0 || f.MixedPercent > 0) {
		return o.runTimed(p, base, simulate)
	}
	if o.Net, o.Faults, err = nets.Failed(p.Topology.Spec, p.Faults); err != nil {
		return o.fail(err)
	}
	r.Switches, r.HCAs = o.Net.NumSwitches, o.Net.NumHCAs()
	r.FailedLinks, r.FailedSwitch, r.Redrawn = len(o.Faults.Links), len(o.Faults.Switches), o.Faults.Redrawn
	if p.Params.Jobs != nil && o.Net.NumHCAs() != base.NumHCAs() {
		return o.fail(fmt.Errorf("the jobs are placed on all %d HCAs of %s, the failures took %d of them (take_hcas)",
			base.NumHCAs(), base.Name, base.NumHCAs()-o.Net.NumHCAs()))
	}
	lap(&o.Seconds.Fail)
	if e, ok := nets.twin(p, o.Faults); ok {
		ran := false
		e.once.Do(func() {
			ran = true
			o.finish(p, simulate, lap)
			e.rec, e.err = o.Record, o.Err
		})
		if !ran {
			rec := e.rec
			rec.Point, rec.Key, rec.FaultSeed = p.Index, p.Key, p.FaultSeed
			return &Outcome{Record: rec, Err: e.err, Seconds: o.Seconds}
		}
		return o
	}
	return o.finish(p, simulate, lap)
}

// finish routes the point's network and simulates it.
func (o *Outcome) finish(p configs.Point, simulate Simulator, lap func(*float64)) *Outcome {
	var err error
	o.Routed, err = Route(o.Net, p.Routing.Engine, p.Options)
	lap(&o.Seconds.Route)
	if err != nil {
		return o.fail(err)
	}
	o.recordRouting(p.Params.HW.BubbleVLs)
	if !o.Routed.OK() {
		return o
	}
	defer lap(&o.Seconds.Sim)
	if o.Result, err = simulate(o.Net, o.Routed.Tables, p.Params); err != nil {
		return o.fail(err)
	}
	if len(p.Params.Jobs) > 1 && !p.NoSlowdown {
		if err := Slowdowns(o.Result, o.Net, o.Routed.Tables, p.Params, simulate); err != nil {
			return o.fail(err)
		}
	}
	IdealTimes(o.Result, p.Params)
	return o.recordResult(p)
}

// recordResult copies the simulation's result into the record.
func (o *Outcome) recordResult(p configs.Point) *Outcome {
	r, res := &o.Record, o.Result
	r.Verdict, r.ThroughputGBs, r.HCABandwidth = results.Verdict(res.Verdict), res.ThroughputGBs, res.HCABandwidthGBs
	r.ThroughputCI, r.SampledWindows = res.ThroughputCIGBs, res.SampledWindows
	r.HCACompletion = res.HCACompletionNs
	r.SimTimeNs, r.RuntimeNs, r.Events, r.FlitHops = res.SimTimeNs, res.RuntimeNs, res.Events, res.FlitHops
	r.DeadlockCycle = len(res.DeadlockCycle)
	if len(res.Jobs) > 0 {
		if err := o.recordJobs(p); err != nil {
			return o.fail(err)
		}
	}
	return o
}

// recordJobs copies the per-job results into the record, with the
// routing's metrics of §5.1 for the jobs.
func (o *Outcome) recordJobs(p configs.Point) error {
	m, err := routing.MeasureJobs(o.Net, o.Routed.Tables, traffic.Ranks(p.Params.Jobs))
	if err != nil {
		return fmt.Errorf("job metrics: %w", err)
	}
	r := &o.Record
	r.JobRouting = &results.JobRoutingInfo{EFIEffectiveMax: m.EFIEffectiveMax, EFIEffectiveJobMean: m.EFIEffectiveJobMean,
		DarkFiberPct: m.DarkFiberPct, LinksPerJobMean: m.LinksPerJobMean, MultiSwitchJobs: m.MultiSwitchJobs}
	for i, j := range o.Result.Jobs {
		jr := results.JobRecord{JobResult: j, Mix: p.Workload != nil && !p.Workload.Declared(j.ID)}
		if i < len(m.PerJob) {
			jr.EFIEffective, jr.Links = m.PerJob[i].EFIMax, m.PerJob[i].Links
		}
		r.Jobs = append(r.Jobs, jr)
	}
	return nil
}

// Slowdowns runs every job of p by itself on the same nodes with the same
// tables and sets each job's slowdown in res (the run of them all). When
// finite jobs ended that run, an infinite job runs alone over the same
// time, so that its throughput is measured over the same window.
func Slowdowns(res *sim.Result, net *fabric.Network, t *routing.Tables, p sim.Params, simulate Simulator) error {
	alone := make([]*sim.JobResult, len(p.Jobs))
	window := res.Verdict != sim.Steady
	for j := range p.Jobs {
		q := p
		q.Jobs = p.Jobs[j : j+1]
		q.Record, q.TraceHash = false, false
		if window && !q.Jobs[0].Finite() {
			q.MaxTime, q.SteadyFraction = int64(res.SimTimeNs*1000+0.5), 2
		}
		r, err := simulate(net, t, q)
		if err != nil {
			return fmt.Errorf("job %s alone: %w", p.Jobs[j].ID, err)
		}
		a := r.Jobs[0]
		alone[j] = &a
	}
	sim.SetSlowdowns(res.Jobs, alone)
	return nil
}

// newRecord is the point's identity, before anything ran.
func newRecord(p configs.Point, hash string) results.Record {
	r := results.Record{Campaign: hash, Point: p.Index, Key: p.Key, Topology: p.Topology.Spec, TopologyLabel: p.Topology.Label,
		FaultKind: p.FaultKind, FaultLabel: p.FaultLabel, FaultPercent: p.Percent, FaultSeed: p.FaultSeed, TrafficSeed: p.Params.Seed,
		Routing: p.Routing.Label, Engine: p.Routing.Engine, Traffic: p.Traffic.Kind, Finite: p.Params.Traffic.Finite(),
		TrafficIndex: p.TrafficIndex, MsgBytes: p.Params.Traffic.MessageBytes}
	if p.Workload != nil || p.Params.Jobs != nil {
		r.MsgBytes, r.Finite = 0, p.Params.Finite() // each job has its own
	}
	if o := p.Params.Traffic.Order; o != traffic.ByHCA && o != "" {
		r.Order = string(o)
	}
	if l := p.Traffic.TrafficLabel(); l != p.Traffic.Kind {
		r.TrafficLabel = l
	}
	return r
}

// recordRouting copies the routing outcome into the record; routes whose
// dependency cycles lie within torus rings are deadlock-free when the
// hardware has bubble flow control on their VLs (bubbleVLs).
func (o *Outcome) recordRouting(bubbleVLs int) {
	r, rt := &o.Record, o.Routed
	var f *routing.Failure
	if errors.As(rt.Failure, &f) {
		r.VLsNeeded = f.VLsNeeded
	}
	if rt.Tables != nil {
		r.VLsNeeded, r.VLsUsed, r.DeadlockFree = rt.Tables.VLsNeeded, rt.Verdict.VLsUsed, rt.Verdict.DeadlockFreeWith(bubbleVLs)
	}
	if !rt.OK() {
		r.Verdict, r.RoutingError = results.RoutingFailed, rt.Problem()
		return
	}
	r.RoutingOK = true
	r.EFIMax, r.EFIMean, r.PathLenMax = rt.Metrics.EFIMax, rt.Metrics.EFIMean, rt.Metrics.PathLenMax
}

func (o *Outcome) fail(err error) *Outcome {
	o.Err = err
	o.Record.Verdict, o.Record.Error = results.Failed, err.Error()
	return o
}
