// Package reference is flitsim's reference simulator: a second, deliberately
// simple implementation of the model specified in the package comment of
// flitsim/sim, written from that specification alone. The fast simulator
// (package sim) is tested against it packet by packet.
//
// Every flit moves by its own events, one per step of each hop: it fully
// arrives in an input buffer, the crossbar moves it into an output buffer,
// the output buffer starts it onto the cable; every freed buffer place
// sends its credit back as an event of its own, and every sink consumes
// flit by flit through its host bus. Events are kept in one binary heap
// ordered by (instant, phase, sequence number); the phases are the steps
// of an instant in the specification:
//
//	0 arrive:  a flit has fully arrived, a credit arrives, a sink is done with a flit
//	1 route:   an adaptively routed packet's head chooses its way at a switch
//	2 cross:   a crossbar moves a flit into an output buffer
//	3 cable:   an output buffer starts a flit onto its cable
//	4 decide:  a switch output arbitrates; an HCA decides whether to inject
//	5 sample:  the steady-state controller closes a window
//
// A decision acts at once: what it causes at its own instant in an earlier
// phase (the granted packet's first flit crossing, that flit or an
// injected packet's first flit starting onto the cable) is done right away,
// inside the decision.
//
// Decisions are scheduled at every instant at which one could succeed: when
// a head packet has arrived and been routed, when an input buffer's
// previous packet has crossed, when an output's crossbar path frees, when
// credits arrive, when a flit leaves an output buffer, and for HCAs when a
// message is created, the link frees or credits arrive.
//
// The simulator checks itself all the time and returns an error on the
// first violation: a buffer over its capacity, credits below zero or above
// the buffer, a flit crossing before it fully arrived, a crossbar moving
// flits faster than one per crossbar flit time, an output buffer over its
// capacity, a packet not leaving as one train, and flits not conserved at
// the end.
//
// Where the specification leaves a choice open, the reference reads it as
// follows:
//   - Standard deviations (steadiness of a sink, the batch means of
//     ThroughputCIGBs) are sample standard deviations (n−1); a run is
//     steady when the number of steady sinks is ≥ SteadyFraction·N in
//     floating point; under the network rule, the mean of the window
//     totals is a running (Welford) mean.
//   - A deadlocked run's last instant is the last instant at which anything
//     happened in the network (a flit, credit or consumption event, a grant
//     or an injection); sample instants up to it are processed. A run cut
//     by the time limit ends at MaxTime, events at MaxTime included.
//   - Two eligible packets with the same output VL and input port (two VL
//     buffers of one port mapped onto one VL): the lower input VL first.
//   - A switch port beyond the radix or without a cable counts as no port:
//     the packet never moves on.
//   - The hiccup phase of sink i uses the terminal index i.
//   - Deliveries of one instant (at different sinks) are ordered by
//     destination node; TraceHash is not computed.
package reference

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// simulator is the state of one run.
type simulator struct {
	net *fabric.Network
	tab *routing.Tables
	p   sim.Params
	// ad routes every packet per hop when the tables are an adaptive
	// engine's (nil: the tables route); bias are its modes' biases.
	ad   *routing.Adaptive
	bias routing.Bias
	// jobModes are the jobs' own modes (nil: the engine's).
	jobModes []*routing.Mode
	// ser counts the counters over time (nil: off).
	ser *sim.SeriesTally
	// aaP are the parameters of application-aware routing (for the HCAs
	// with an hca.aa).
	aaP sim.AppAwareParams

	ft, fx, pf, cab, lat int64 // flit on an HCA's cable, crossbar flit, bus flit, cable, switch latency (ps)
	vls                  int   // HW.VLs
	obuf                 int   // HW.OutputBufferFlits
	voq                  bool  // HW.VOQ

	ports [][]*port // [node][port number]; nil where unconnected
	hcas  []*hca    // by terminal
	src   traffic.Source
	jobs  []traffic.Job // the workload's jobs, nil for one pattern

	// finite: some messages are counted, and the run completes when they
	// are all delivered (else the traffic is infinite and the steady-state
	// controller ends it); totalMessages is their number, countedDone
	// those delivered.
	finite        bool
	totalMessages int64
	countedDone   int64
	infinite      bool    // some terminal sends forever
	endAt         int64   // with infinite traffic beside: completed, end after this instant (-1 not yet)
	jobLast       []int64 // per job: its last delivery
	jobMsgs       []int64 // per job: messages delivered

	q          eventQueue
	now        int64
	curPhase   phase
	netPending int   // flit and credit events in the queue
	lastActive int64 // last instant at which anything happened in the network
	err        error

	ended   bool
	verdict sim.Verdict
	end     int64 // the run's last instant

	// Counters.
	events         int64
	flitHops       int64
	flitsInjected  int64
	flitsConsumed  int64 // flits the sinks' buses are done with
	flitsDelivered int64 // flits of delivered packets (Result.FlitsConsumed)
	packets        int64
	messages       int64
	inFlight       int64 // packets injected, not delivered
	payload        int64 // payload delivered, bytes
	firstInject    int64 // -1 before any injection
	deliveries     []sim.Delivery

	// Steady-state controller.
	totals      welford   // per-window totals over sinks, GB/s
	windowTotal []float64 // the same, window by window (the batch means)
	steadySinks int

	// tl is the run's timeline (timed.go; nil: the fabric never changes).
	tl *timeline

	// audit makes the run check, between instants, that no decision was
	// missed (for tests; it costs a scan of every output per instant).
	audit bool
}

// Run simulates like sim.Run, one event per flit per hop.
//
// It normalizes p first, and rejects tables that do not fit the network,
// tables using more VLs than p.HW.VLs, networks with fewer than two HCAs
// and HCAs that are not cabled to a switch. An error is also returned when
// the run breaks one of the model's rules (see the package comment).
func Run(net *fabric.Network, t *routing.Tables, p sim.Params) (*sim.Result, error) {
	wall := time.Now()
	if err := p.Normalize(); err != nil {
		return nil, fmt.Errorf("reference: parameters: %w", err)
	}
	if err := p.HW.CheckNetwork(net); err != nil {
		return nil, fmt.Errorf("reference: parameters: %w", err)
	}
	s, err := newSimulator(net, t, p)
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	runErr := s.run()
	if err := traffic.Err(s.src); err != nil {
		return nil, err // the traffic's error first: it explains the run's end
	}
	if runErr != nil {
		return nil, fmt.Errorf("reference: %w", runErr)
	}
	res := s.result()
	res.WallSeconds = time.Since(wall).Seconds()
	if res.WallSeconds > 0 {
		res.FlitHopsPerS = float64(res.FlitHops) / res.WallSeconds
	}
	return res, nil
}

// newSimulator checks the inputs and builds the initial state: every port
// with full credits and empty buffers, every terminal with its first
// message.
func newSimulator(net *fabric.Network, t *routing.Tables, p sim.Params) (*simulator, error) {
	if t.NumSwitches() != net.NumSwitches || t.NumLIDs != int(net.MaxLID())+1 {
		return nil, fmt.Errorf("tables for %d switches and %d LIDs do not fit network %q with %d switches and max LID %d",
			t.NumSwitches(), t.NumLIDs, net.Name, net.NumSwitches, net.MaxLID())
	}
	if t.Source != nil && (t.Source.Switches() != net.NumSwitches || t.Adaptive != nil) {
		return nil, fmt.Errorf("source routes of %s do not fit network %q (%d switches) or come with adaptive routing", t.Engine, net.Name, net.NumSwitches)
	}
	n := net.NumHCAs()
	if n < 2 {
		return nil, fmt.Errorf("network %q has %d HCAs, a run needs at least 2", net.Name, n)
	}
	if mv := t.MaxVL(net); mv >= p.HW.VLs {
		return nil, fmt.Errorf("tables (%s) use VL %d but the hardware has %d VLs", t.Engine, mv, p.HW.VLs)
	}
	s := &simulator{
		net: net, tab: t, p: p,
		ft: p.HW.FlitPs(), fx: p.HW.CrossbarFlitPs(), pf: p.HW.PCIeFlitPs(), cab: p.HW.CablePs(), lat: p.HW.SwitchLatencyPs,
		vls: p.HW.VLs, obuf: p.HW.OutputBufferFlits, voq: p.HW.VOQ,
		firstInject: -1,
	}
	// A message's wire time: each packet's time on an HCA's cable, packet
	// by packet.
	wire := func(bytes int) int64 {
		var w int64
		for left := bytes; left > 0; left -= min(left, p.HW.MTU) {
			w += p.HW.PacketPs(min(left, p.HW.MTU), s.ft)
		}
		return w
	}
	var err error
	if s.src, err = traffic.Open(p.Traffic, p.Jobs, net.HCASwitches(), func(name string) *rand.Rand { return fabric.Stream(p.Seed, name) }, wire); err != nil {
		return nil, fmt.Errorf("traffic: %w", err)
	}
	if len(p.Jobs) > 0 {
		s.jobs, s.jobLast, s.jobMsgs = p.Jobs, make([]int64, len(p.Jobs)), make([]int64, len(p.Jobs))
	}
	counted, infinite := s.src.Total()
	s.finite, s.totalMessages, s.infinite, s.endAt = counted > 0 || !infinite, counted, infinite, -1

	// Ports and their input buffers.
	s.ports = make([][]*port, len(net.Nodes))
	for i := range net.Nodes {
		s.ports[i] = make([]*port, net.Nodes[i].Radix+1)
		for pn := 1; pn <= net.Nodes[i].Radix; pn++ {
			if net.LinkAt(i, pn) < 0 {
				continue
			}
			pt := &port{node: i, num: pn, isSwitch: net.IsSwitch(i), xbar: 0, lastCross: -1,
				lastVL: s.vls - 1, decideAt: -1, ft: p.HW.LinkFlitPs(net, net.LinkAt(i, pn)), ring: net.Ring(i, pn)}
			size := p.HW.HCABufferFlits
			if pt.isSwitch {
				size = p.HW.InputBufferFlits
				pt.lastPort = make([]int, s.vls)
			}
			pt.in = make([]*inBuf, s.vls)
			for v := range pt.in {
				pt.in[v] = &inBuf{at: pt, vl: v, cap: size, lastRead: -1}
			}
			s.ports[i][pn] = pt
		}
	}
	// Cables: every sending side starts with credits for the whole buffer.
	for i := range s.ports {
		for pn, pt := range s.ports[i] {
			if pt == nil {
				continue
			}
			e, _ := net.Peer(i, pn)
			pt.peer = s.ports[e.Node][e.Port]
			pt.capacity = pt.peer.in[0].cap
			pt.credits = make([]int, s.vls)
			for v := range pt.credits {
				pt.credits[v] = pt.capacity
			}
		}
	}

	// Terminals.
	for term := 0; term < n; term++ {
		node := net.NumSwitches + term
		pn := net.HCAPort(node)
		if pn == 0 {
			return nil, fmt.Errorf("HCA %s (terminal %d) is not cabled", net.Nodes[node].Name, term)
		}
		pt := s.ports[node][pn]
		if !pt.peer.isSwitch {
			return nil, fmt.Errorf("HCA %s (terminal %d) is cabled on port %d to HCA %s, not to a switch",
				net.Nodes[node].Name, term, pn, net.Nodes[pt.peer.node].Name)
		}
		h := &hca{term: term, node: node, port: pt, sw: pt.peer.node, decideAt: -1, laterAt: -1,
			rng: fabric.Stream(p.Seed, fmt.Sprintf("traffic/hca/%d", term))}
		// The phase spans (1 − hiccup_sync) of the period; in phase at 0.
		span := p.HW.HiccupPeriodPs
		if p.HW.HiccupSync > 0 {
			span = int64(float64(span) * (1 - p.HW.HiccupSync))
		}
		if p.HW.HiccupPs > 0 && span > 0 {
			h.phi = fabric.Stream(p.Seed, fmt.Sprintf("sim/hiccup/%d", term)).Int64N(span)
		}
		pt.hca = h
		s.hcas = append(s.hcas, h)
	}
	if p.Counters && p.CounterWindow > 0 {
		s.ser = sim.NewSeriesTally(p.CounterWindow, len(p.Jobs))
	}
	if err := s.setAdaptive(); err != nil {
		return nil, err
	}
	if err := s.setTimeline(); err != nil {
		return nil, err
	}
	return s, nil
}

// setAdaptive prepares per-packet routing for an adaptive engine's tables
// and checks the jobs' own routing modes.
func (s *simulator) setAdaptive() error {
	s.jobModes = make([]*routing.Mode, len(s.jobs))
	for i, j := range s.jobs {
		if j.Routing == "" {
			continue
		}
		if s.tab.Adaptive == nil {
			return fmt.Errorf("job %s: routing %q needs an adaptive engine, the network is routed by %s", j.ID, j.Routing, s.tab.Engine)
		}
		m, err := routing.ParseMode(j.Routing)
		if err != nil {
			return fmt.Errorf("job %s: %w", j.ID, err)
		}
		s.jobModes[i] = &m
	}
	if s.tab.Adaptive == nil {
		return nil
	}
	s.ad = s.tab.Adaptive
	s.bias = routing.Bias{Low: s.p.UGALBiasLow, High: s.p.UGALBiasHigh, Step: s.p.UGALBiasStep}
	for _, h := range s.hcas {
		h.routeRng = fabric.Stream(s.p.Seed, fmt.Sprintf("route/hca/%d", h.term))
		h.respRng = fabric.Stream(s.p.Seed, fmt.Sprintf("route/resp/%d", h.term))
	}
	// The application-aware ranks: the engine's mode or their job's.
	s.aaP = s.p.AppAwareParams()
	for _, h := range s.hcas {
		m, kind := s.ad.Mode, s.p.Traffic.Kind
		if s.jobs != nil {
			j := traffic.JobOf(s.src, h.term)
			if j < 0 {
				continue
			}
			if s.jobModes[j] != nil {
				m = *s.jobModes[j]
			}
			kind = s.jobs[j].Traffic.Kind
		}
		if m == routing.ModeAppAware {
			h.aa = sim.NewAppAware(sim.AppAwareDefault(kind))
		}
	}
	return nil
}

// seriesJob is the series terminal h counts in: its job's, 0 without
// jobs, -1 when it has no job.
func (s *simulator) seriesJob(h *hca) int {
	if s.jobs == nil {
		return 0
	}
	return traffic.JobOf(s.src, h.term)
}

// hcaAt returns the HCA of node i.
func (s *simulator) hcaAt(i int) *hca { return s.hcas[i-s.net.NumSwitches] }

// failf records the first violation; the run stops at the next event.
func (s *simulator) failf(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf("at %d ps: "+format, append([]any{s.now}, args...)...)
	}
}

// post schedules an event. An event at the current instant in an earlier
// phase than the one being processed is caused by a decision, which acts at
// once (a grant at t moves its first flit at t and may start it onto the
// cable at t): it is handled right away.
func (s *simulator) post(e event) {
	if e.t < s.now {
		s.failf("internal: event %d scheduled in the past (%d ps)", e.kind, e.t)
		return
	}
	e.ph = phaseOf[e.kind]
	if e.t == s.now && e.ph < s.curPhase {
		s.handle(&e)
		return
	}
	if e.kind.network() {
		s.netPending++
	}
	s.q.push(e)
}

// handle processes one event.
func (s *simulator) handle(e *event) {
	if s.err != nil {
		return
	}
	s.events++
	switch e.kind {
	case evArrive:
		s.arrive(e.h, e.k)
	case evCredit:
		s.credit(e.port, e.vl)
	case evConsumed:
		s.consumed(e.hca)
	case evRoute:
		s.routeAdaptive(e.h)
	case evCross:
		s.cross(e.h, e.k)
	case evCableStart:
		s.cableStart(e.port)
	case evDecide:
		if e.port.hca != nil {
			s.decideHCA(e.port.hca)
		} else {
			s.decideSwitch(e.port)
		}
	case evSample:
		s.sample()
	case evLink:
		s.postDecide(e.port, s.now)
	case evResend:
		s.resend(e.h.p)
	case evMigrate:
		for _, h := range s.hcas {
			s.postDecideHCA(h, s.now)
		}
	}
}

func (s *simulator) finish(verdict sim.Verdict, at int64) {
	s.ended, s.verdict, s.end = true, verdict, at
}

// run is the event loop and the deadlock and time-limit controllers.
func (s *simulator) run() error {
	for _, h := range s.hcas {
		s.nextPacket(h)
		s.postDecideHCA(h, 0)
	}
	if !s.finite {
		s.post(event{t: s.p.SampleWindow, kind: evSample})
	} else if s.totalMessages == 0 {
		s.finish(sim.Completed, 0)
	}
	for !s.ended && s.err == nil {
		if s.endAt >= 0 && (s.q.len() == 0 || s.q.nextInstant() > s.endAt) {
			s.finish(sim.Completed, s.endAt)
			break
		}
		if s.audit {
			s.auditDecisions()
		}
		// Deadlock: packets in the network, no flit or credit under way,
		// and no scheduled decision that can succeed. The state is frozen
		// then, so a scheduled decision can be judged now for its instant;
		// every decision that could ever become possible is scheduled.
		if s.netPending == 0 && s.inFlight > 0 && (s.q.len() == 0 || s.q.nextInstant() > s.lastActive) && s.frozen() {
			s.finish(sim.Deadlock, s.lastActive)
			break
		}
		if s.q.len() == 0 && s.tl != nil && s.tl.lostPackets > 0 && s.inFlight == 0 {
			s.finish(sim.Lost, s.lastActive) // messages missing: their packets lost, not resent
			break
		}
		if s.q.len() == 0 {
			return fmt.Errorf("at %d ps: nothing left to happen, %d of %d messages delivered and no packet in the network",
				s.now, s.messages, s.totalMessages)
		}
		if s.q.nextInstant() > s.p.MaxTime {
			s.finish(sim.NotConverged, s.p.MaxTime)
			break
		}
		e := s.q.pop()
		if e.kind.network() {
			s.netPending--
		}
		s.now, s.curPhase = e.t, e.ph
		s.handle(&e)
	}
	if s.err != nil {
		return s.err
	}
	return s.checkConservation()
}

// auditDecisions checks, once every event of the current instant has been
// handled, that no switch output has an eligible packet and no HCA can
// inject, now or at any time before the next event (the state does not
// change until then, and eligibility only grows with time while it does
// not, so the instant just before the next event stands for the interval).
func (s *simulator) auditDecisions() {
	next := s.p.MaxTime + 1
	if s.q.len() > 0 {
		next = min(s.q.nextInstant(), next)
	}
	if next <= s.now {
		return
	}
	for _, t := range []int64{s.now, next - 1} {
		for node := 0; node < s.net.NumSwitches; node++ {
			for _, o := range s.ports[node] {
				if o != nil && s.pick(o, t) != nil {
					s.failf("missed decision: output %s has an eligible packet at %d ps", s.portName(o), t)
					return
				}
			}
		}
		for _, h := range s.hcas {
			if s.canInject(h, t) {
				s.failf("missed decision: HCA %s can inject at %d ps", s.portName(h.port), t)
				return
			}
		}
	}
}

// frozen reports whether no scheduled decision can succeed. Only valid when
// no flit or credit is under way.
func (s *simulator) frozen() bool {
	possible := false
	s.q.each(func(e *event) {
		switch {
		case possible || e.kind != evDecide:
		case e.port.hca != nil:
			// A terminal whose source said Later asks it again then: it
			// may create a message, which nothing frozen can hold back.
			h := e.port.hca
			possible = s.canInject(h, e.t) || (h.later && h.cur == nil && !h.done)
		default:
			possible = s.pick(e.port, e.t) != nil
		}
	})
	return !possible
}

// checkConservation checks at the end that every injected flit is consumed
// or still in the network: in an HCA's output queue, a switch's output
// buffer (queued for the cable, or stored until its packet has crossed),
// on a cable or in an input buffer.
func (s *simulator) checkConservation() error {
	var inNet int64
	for _, ports := range s.ports {
		for _, pt := range ports {
			if pt == nil {
				continue
			}
			if pt.isSwitch {
				inNet += int64(pt.held)
			} else {
				inNet += int64(len(pt.queue))
			}
			for _, b := range pt.in {
				inNet += int64(b.occ)
			}
		}
	}
	s.q.each(func(e *event) {
		if e.kind == evArrive {
			inNet++
		}
	})
	if s.tl != nil {
		inNet += s.tl.lostFlits
	}
	if s.flitsInjected != s.flitsConsumed+inNet {
		return fmt.Errorf("at the end (%d ps): flits not conserved: %d injected, %d consumed, %d in the network",
			s.end, s.flitsInjected, s.flitsConsumed, inNet)
	}
	return nil
}

// result assembles what the run reports.
func (s *simulator) result() *sim.Result {
	r := &sim.Result{
		Verdict:       s.verdict,
		SimTimeNs:     float64(s.end) / 1000,
		Events:        s.events,
		FlitHops:      s.flitHops,
		Packets:       s.packets,
		Messages:      s.messages,
		FlitsInjected: s.flitsInjected,
		FlitsConsumed: s.flitsDelivered,
	}
	if s.tl != nil {
		r.PacketsLost, r.PacketsResent = s.tl.lostPackets, s.tl.resent
	}
	if s.verdict == sim.Deadlock {
		r.FlitsStuck = s.flitsInjected - s.flitsDelivered
		r.DeadlockCycle = s.deadlockCycle()
	}
	if s.tl != nil {
		r.Timed = true
	}
	bw := make([]float64, len(s.hcas))
	switch {
	case s.finite && s.verdict == sim.Completed:
		runtime := int64(0)
		if s.firstInject >= 0 {
			runtime = s.end - s.firstInject
		}
		r.RuntimeNs = float64(runtime) / 1000
		if runtime > 0 {
			var counted int64
			for i, h := range s.hcas {
				if s.src.Counted(i) {
					counted += h.sent
				}
				// One pattern: what each sent; jobs: what each received.
				x := h.sent
				if s.jobs != nil {
					x = h.payload
				}
				bw[i] = float64(x) * 1000 / float64(runtime)
			}
			r.ThroughputGBs = float64(counted) * 1000 / float64(runtime)
		}
	case s.finite:
		// Not completed: no runtime, no throughput (the spec).
	case s.totals.n > 0:
		for i, h := range s.hcas {
			bw[i] = h.stats.mean
			r.ThroughputGBs += h.stats.mean
		}
		r.ThroughputCIGBs = batchMeansHalfWidth(s.windowTotal)
		r.SampledWindows = s.totals.n
		r.SteadySinks = s.steadySinks
	default:
		// Infinite traffic, nothing sampled: the payload delivered over
		// the run's last instant.
		if s.end > 0 {
			r.ThroughputGBs = float64(s.payload) * 1000 / float64(s.end)
			for i, h := range s.hcas {
				bw[i] = float64(h.payload) * 1000 / float64(s.end)
			}
		}
		r.SteadySinks = s.steadySinks
	}
	r.HCABandwidthGBs = summarize(bw)
	if s.finite && s.verdict == sim.Completed {
		var done []float64
		for _, h := range s.hcas {
			if h.lastDone > 0 {
				done = append(done, float64(h.lastDone-s.firstInject)/1000)
			}
		}
		if len(done) > 0 {
			r.HCACompletionNs = summarize(done)
		}
	}
	if s.jobs != nil {
		t := sim.JobTally{Recv: make([]int64, len(s.hcas)), Last: s.jobLast, Messages: s.jobMsgs,
			Expected: traffic.JobMessages(s.src), End: s.end}
		for i, h := range s.hcas {
			t.Recv[i] = h.payload
		}
		if s.verdict == sim.Steady {
			t.Steady = make([]float64, len(s.hcas))
			for i, h := range s.hcas {
				t.Steady[i] = h.stats.mean
			}
		}
		if s.tl != nil {
			t.Lost = s.tl.lostByJob
		}
		for j := range s.jobs {
			if st := traffic.TraceStats(s.src, j); st != nil {
				if t.Trace == nil {
					t.Trace = make([][]traffic.RankStats, len(s.jobs))
				}
				t.Trace[j] = st
			}
		}
		r.Jobs = sim.JobResults(s.jobs, t)
	}
	aa := make([]*sim.AppAware, len(s.hcas))
	for i, h := range s.hcas {
		aa[i] = h.aa
	}
	sim.SetAppAwareResults(r, s.jobs, aa)
	if s.p.Counters {
		t := s.tally()
		r.Counters = sim.CounterResults(s.net, s.p.HW, t)
		if s.jobs != nil {
			for j, jc := range sim.JobCounterResults(s.jobs, t, s.ft) {
				r.Jobs[j].Counters = jc
			}
		}
	}
	if s.p.Record {
		sort.SliceStable(s.deliveries, func(i, j int) bool {
			a, b := s.deliveries[i], s.deliveries[j]
			if a.DonePs != b.DonePs {
				return a.DonePs < b.DonePs
			}
			return a.Dst < b.Dst
		})
		r.Deliveries = s.deliveries
	}
	return r
}

// summarize returns min, quartiles, median and max, interpolating linearly
// between order statistics.
func summarize(v []float64) sim.Stats {
	if len(v) == 0 {
		return sim.Stats{}
	}
	x := append([]float64(nil), v...)
	sort.Float64s(x)
	q := func(f float64) float64 {
		pos := f * float64(len(x)-1)
		lo := int(pos)
		if lo >= len(x)-1 {
			return x[len(x)-1]
		}
		frac := pos - float64(lo)
		return x[lo] + frac*(x[lo+1]-x[lo])
	}
	return sim.Stats{Min: x[0], Q1: q(0.25), Median: q(0.5), Q3: q(0.75), Max: x[len(x)-1]}
}
