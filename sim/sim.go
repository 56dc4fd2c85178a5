package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

// The fast simulator moves whole packets: a packet is one train of flits on
// every link (see the package doc), so each hop costs a head-arrival event
// and an arbitration, and every flit's crossing, departure, credit and
// consumption instant follows by arithmetic. Its parts, one file each:
//
//	kernel.go      events, the event loop
//	queue.go       the calendar queue
//	credits.go     credits per lane, owning their checks
//	switch.go      input buffers, arbitration, crossbar, output buffer, cable
//	hca.go         the HCA: open-loop source, injection, sink with hiccups
//	controllers.go completion, steady state, deadlock; the result
//	domains.go     a run cut into domains, one goroutine each
//	prefetch.go    fetching the lines the next events will use

// packet is what a hop needs of a packet in flight, 32 bytes (two to a
// cache line), kept in a slab and linked into FIFOs; packetInfo, parallel
// to it, holds what its source and sink need.
type packet struct {
	headAt  int64 // its head flit fully arrived at the current node
	ch      int32 // channel it arrived on (its current input buffer)
	out     int32 // channel it leaves the current switch on, -1 none
	next    int32 // next packet in the same input buffer, or the free list
	reqNext int32 // with VOQ: next packet requesting the same output
	flits   uint16
	dstLID  uint16
	sl, vl  uint8 // service level; VL on the current link
	outVL   uint8 // VL on the link it leaves the current switch by
	inPort  uint8 // port of the current switch it arrived on (ch's)
}

// packetInfo is the rest of a packet (simulator.info, parallel to pkts).
type packetInfo struct {
	seq      int64 // sequence number at its source HCA, from 1
	tag      int64 // its message's tag (traffic.Msg.Tag)
	injected int64
	src, dst int32 // HCA node indices
	payload  int32
	lastB    int32  // bytes of its last flit (HW.LastFlitBytes)
	hop      uint16 // switch-to-switch hops taken (source routes), saturating
	last     bool   // last packet of its message
	kind     pktKind
	// queued is when it was queued among its HCA's responses (a response,
	// or a packet sent again: again), for the order of one instant's.
	queued int64
	again  bool
	// esc: injected while the sources were migrated, routed by
	// Timeline.Escape.
	esc bool
	// msg is its message's number at its source and msgPkts the
	// message's packets (0 for an acknowledgement).
	msg     int64
	msgPkts int32
	// msgMode carries a rendezvous' mode + 1 (the adaptivePacket's mode of
	// its RTS) from its GET requests to its data responses.
	msgMode int8
}

// pktKind tells a message's packet from the packets the NICs add
// (sim/doc.go: NIC window, Rendezvous). An RTS's payload field holds its
// message's bytes; a GET request's the payload of the data it asks for.
type pktKind uint8

const (
	kindData    pktKind = iota // a packet of a message (a PUT)
	kindAck                    // a response to a packet (HW.NICWindow)
	kindRTS                    // a rendezvous' request to send
	kindGetReq                 // a rendezvous' GET request
	kindGetData                // a rendezvous' data response: a packet of its message
)

// queued reports whether a packet of kind k waits among its HCA's
// responses rather than in its message order.
func (k pktKind) queued() bool { return k == kindAck || k == kindGetReq || k == kindGetData }

// response reports whether a packet of kind k counts as a response in
// the NIC counters.
func (k pktKind) response() bool { return k == kindAck || k == kindGetData }

// adaptivePacket is what an adaptively routed packet carries besides
// (simulator.apk, parallel to pkts; empty with tables): the switches of
// its source and destination HCAs, its route and the candidates it
// chooses among, its source's job (-1 none), and its message's number at
// its source and packets in all.
type adaptivePacket struct {
	srcSw, dstSw int32
	route        routing.Route
	cands        [4]routing.Route
	ncand        uint8
	job          int32
	msgSeq       int64
	msgPkts      int32
	// mode is the packet's own mode + 1 when its source chose one for its
	// message (application-aware routing), 0 otherwise.
	mode int8
}

// msgKey names a message: its source node and number there.
type msgKey struct {
	src int32
	seq int64
}

// channel is one direction of a cable. When a switch sends on it, it is
// also that switch's output port: arbiter, crossbar path, output buffer.
type channel struct {
	from, to int32
	// reqHead heads the output port's requests: lanes whose head packet
	// routes here, linked by lane.reqNext (with VOQ, packets that are the
	// oldest for this port in their lane, linked by packet.reqNext).
	reqHead          int32
	fromPort, toPort int16
	// ring is the channel's torus ring (fabric.Network.Ring), -1 off the
	// rings: a packet entering it from another channel's needs a bubble.
	ring int16
	// ports is the sending node's radix + 1 (the arbiter's round-robin
	// modulus).
	ports int16
	// blockedVLs has a bit for each of its lanes whose sender notes a
	// blocked need (lane.blocked ≠ 0; VOQ only), so that an arbitration
	// clears those lanes alone.
	blockedVLs uint16
	// usedVLs has a bit for each of its lanes whose sender may hold fewer
	// credits than the buffer's capacity: set when it takes credits,
	// cleared by occupancy once they are all back, so that an adaptive
	// decision reads the lanes in use alone.
	usedVLs uint16
	// lastVL is the VL the arbiter granted last.
	lastVL uint8
	// toDom is the domain of the receiving node (domains.go).
	toDom uint8
	// linkFree is when the cable has sent every flit granted to it; the
	// output buffer holds the flits not yet started.
	linkFree int64
	// ft is a flit's time on this channel's cable (its class's rate).
	ft int64
	// The rest of the arbiter: when the crossbar path is free and the
	// pending arbitration.
	xbarFree int64
	tryAt    int64
}

// lane is one VL of a channel: the receiver's input buffer (a FIFO of
// packets) and, for the channel's sender, its credits and the state of its
// arbitration on that VL. Lane l is channel l/nVL, VL l%nVL. A lane is 128
// bytes, two cache lines in practice (a large slice starts on a page): the
// first holds the buffer and arbitration state, the second the first
// segments of its credit queue. A hop touches each lane it uses once.
type lane struct {
	head, tail int32 // packets in the input buffer, -1 empty
	free       int64 // the buffer's read port is free (its last packet crossed)
	reqNext    int32 // next lane in the output port's request list
	blocked    int32 // credits the smallest packet blocked on this lane waits for, 0 none
	wakeAt     int64 // with VOQ: when the blocked sender is to try again (never: not known)
	cr         laneCredits
	lastIn     uint8 // input port the sender's arbiter last granted on this VL
	// fromDom is the domain of the sending node (domains.go): the
	// sender's fields (cr, blocked, wakeAt, lastIn) are that domain's,
	// the buffer's (head, tail, free, reqNext) the receiver's.
	fromDom uint8
}

// simulator is the state of one run.
type simulator struct {
	p   Params
	net *fabric.Network
	t   *routing.Tables
	// ad is the per-packet routing of an adaptive engine (nil: tables);
	// bias its modes' biases; jobMode each job's mode (-1: the engine's).
	ad      *routing.Adaptive
	bias    routing.Bias
	jobMode []int8
	// aaOn: some rank routes application-aware (its hcaDev.aa), with
	// parameters aaP.
	aaOn  bool
	aaP   AppAwareParams
	hcaSw []int32 // HCA index → its switch
	// occ is the occupancy of switch occSw's ports for routing.Step, made
	// once (a closure per decision would allocate on the hot path).
	occ   routing.Occupancy
	occSw int32
	// msgArrived counts the packets delivered of messages some of whose
	// packets are still on their way (adaptive routing only).
	msgArrived map[msgKey]int32
	src        traffic.Source
	// jobs are the workload's jobs (nil for a single pattern), jobOf each
	// HCA's job (-1 none).
	jobs  []traffic.Job
	jobOf []int32
	// nVL is the number of lanes per channel: VLs 0..nVL-1, the VLs the
	// tables use (at most the hardware's).
	nVL int
	// Times in ps: flit on an HCA's cable (LinkGbps; a channel's own is
	// channel.ft), cable, flit on the host bus, switch latency, flit
	// through a crossbar; output buffer size in flits.
	ft, prop, pcieFt, lat, fx, obuf int64

	voq    bool // HW.VOQ: input buffers keep a queue per output
	sameFt bool // every channel's flit time is ft (no rank rates)
	// wire is HW.WireBytes: a packet's last flit takes its bytes' share
	// of a flit time; trains then holds per switch output channel the
	// packets granted to it whose last flit has not started (roomFrom).
	wire     bool
	trains   [][]obTrain
	bubble   uint32    // HW.BubbleVLs: a bit per VL with bubble flow control
	bubbleN  int32     // a bubble's credits: one full packet's flits
	chans    []channel // numbered as fabric.Channels numbers them
	lanes    []lane
	capacity []int32 // input buffer flits per lane
	cr       credits
	portCh   []int32 // portBase[node]+port-1 → channel leaving that port (fabric.Channels), -1
	portBase []int32
	hcas     []hcaDev
	hcaOf    []int32  // node → index into hcas, -1 for switches
	lids     []uint16 // HCA index → its LID
	pkts     []packet
	info     []packetInfo     // parallel to pkts
	apk      []adaptivePacket // parallel to pkts with adaptive routing
	free     int32            // packet free list
	// minFlits is the size of the smallest packet formed so far
	// (math.MaxInt32 before the first): no request is smaller, which
	// bounds when an output can next grant.
	minFlits int32

	k   kernel
	res Result
	// Totals for the controllers.
	inNetwork   int64 // packets injected, not yet delivered
	firstInject int64
	lastDone    int64
	// counted is the number of messages whose delivery ends the run (the
	// finite pattern's or finite jobs'), countedDone those delivered; with
	// none counted and infinite traffic the steady-state controller ends
	// the run.
	counted, countedDone int64
	infinite             bool
	jobLast              []int64 // per job: its last counted delivery
	jobMsgs              []int64 // per job: messages delivered
	payload              int64   // payload bytes delivered
	// horizon is the last instant at which a flit moves, a credit arrives
	// or a sink finishes a flit, of everything set in motion so far: a
	// deadlocked run ends there.
	horizon int64
	steady  steadyState
	// ctr counts for Params.Counters (nil: off).
	ctr *counting
	// tm is the run's timeline (timed.go; nil: the fabric never changes).
	tm *timed
	// prefetching runs touch's prefetches (prefetch.go).
	prefetching bool
	// watch, if not nil, is told the run's progress once its events reach
	// watchAt (never without a watch), then every watchEvery events
	// (watch.go).
	watch               Watch
	watchAt, watchEvery int64
	// traceBuf is the scratch of an event's trace record.
	traceBuf [32]byte
	// queueAll queues every arbitration (tests: the same run either way;
	// kernel.holding).
	queueAll bool

	// A run cut into domains (Params.Domains > 1; nil otherwise): par is
	// the run's, shared by its domains, and this simulator is domain dom
	// of it. Every domain is a simulator of its own, sharing the fabric's
	// state (channels, lanes, packets, HCAs) and keeping its own kernel,
	// totals, packet free list and credit arena (domains.go).
	par  *domains
	dom  uint8
	dmem domainMem
}

// Run simulates traffic on net routed by t and returns the result. It is a
// pure function of its arguments (wall time aside): no goroutines, no
// clock, no files.
func Run(net *fabric.Network, t *routing.Tables, p Params) (*Result, error) {
	return run(net, t, p, nil)
}

// run is Run, letting a test adjust the simulator before it is cut into
// domains (which copy it) and starts.
func run(net *fabric.Network, t *routing.Tables, p Params, adjust func(*simulator)) (*Result, error) {
	s, err := newSimulator(net, t, p)
	if err != nil {
		return nil, err
	}
	if adjust != nil {
		adjust(s)
	}
	s.cut()
	start := time.Now()
	s.start()
	s.loop()
	if err := traffic.Err(s.src); err != nil {
		return nil, err
	}
	s.finish()
	s.res.WallSeconds = time.Since(start).Seconds()
	if s.res.WallSeconds > 0 {
		s.res.FlitHopsPerS = float64(s.res.FlitHops) / s.res.WallSeconds
	}
	return &s.res, nil
}

func newSimulator(net *fabric.Network, t *routing.Tables, p Params) (*simulator, error) {
	if err := p.Normalize(); err != nil {
		return nil, err
	}
	if err := p.HW.CheckNetwork(net); err != nil {
		return nil, err
	}
	if t.NumSwitches() != net.NumSwitches || t.NumLIDs != int(net.MaxLID())+1 ||
		t.Source != nil && t.Source.Switches() != net.NumSwitches {
		return nil, fmt.Errorf("routing tables do not belong to this network")
	}
	if net.NumHCAs() < 2 {
		return nil, fmt.Errorf("simulation needs at least two HCAs, the network has %d", net.NumHCAs())
	}
	hw := p.HW
	// Every VL the tables can put a packet on must exist in the hardware.
	m := t.MaxVL(net)
	if m >= hw.VLs {
		return nil, fmt.Errorf("routing %s uses VL %d but the hardware has %d VLs", t.Engine, m, hw.VLs)
	}
	if tl := p.Timeline; !tl.Empty() && tl.Next != nil && tl.Next.NumSwitches() == net.NumSwitches {
		m = max(m, tl.Next.MaxVLOf(net, t.SLsUsed())) // the tables written while it runs carry the run's SLs
	}
	if tl := p.Timeline; !tl.Empty() && tl.Escape != nil && tl.Escape.NumSwitches() == net.NumSwitches {
		m = max(m, tl.Escape.MaxVL(net)) // migrated packets' VLs (checked below)
		if n := tl.Next; n != nil && n.NumSwitches() == net.NumSwitches {
			m = max(m, n.MaxVL(net), t.MaxVLOf(net, n.SLsUsed())) // back with the new SLs
		}
	}
	// Lanes exist for VLs 0..m only (at least VL 0, on which HCAs inject
	// adaptively routed packets; an adaptive engine on one switch reports
	// m = -1): no packet ever uses the others, and the arbiters' VL order
	// among the used ones (cyclic, from VL 0) is the same without them; the
	// state per port shrinks by hw.VLs/(m+1).
	s := &simulator{p: p, net: net, t: t, nVL: max(m, 0) + 1, ft: hw.FlitPs(), prop: hw.CablePs(),
		pcieFt: hw.PCIeFlitPs(), lat: hw.SwitchLatencyPs, fx: hw.CrossbarFlitPs(),
		obuf: int64(hw.OutputBufferFlits), voq: hw.VOQ, bubble: uint32(hw.BubbleVLs), bubbleN: int32(hw.PacketFlits(hw.MTU)), free: -1, firstInject: -1, minFlits: math.MaxInt32, k: kernel{endAt: never}, watchAt: never}
	chs := fabric.NewChannels(net)
	s.wireChannels(chs)
	s.lanes = make([]lane, len(s.chans)*s.nVL)
	s.capacity = make([]int32, len(s.lanes))
	for l := range s.lanes {
		s.capacity[l] = int32(hw.InputBufferFlits)
		if int(s.chans[l/s.nVL].to) >= net.NumSwitches {
			s.capacity[l] = int32(hw.HCABufferFlits)
		}
		s.lanes[l] = lane{head: -1, tail: -1, reqNext: -1, wakeAt: never, cr: newLaneCredits(s.capacity[l])}
	}
	s.cr = newCredits(hw.VOQ)
	// HCAs in node order are the traffic pattern's terminals 0..N-1.
	s.hcaOf = make([]int32, len(net.Nodes))
	for i := range s.hcaOf {
		s.hcaOf[i] = -1
	}
	for h := net.NumSwitches; h < len(net.Nodes); h++ {
		hp := net.HCAPort(h)
		if hp == 0 {
			return nil, fmt.Errorf("HCA %q is not cabled", net.Nodes[h].Name)
		}
		out := s.portCh[s.portBase[h]+int32(hp)-1]
		idx := int32(len(s.hcas))
		s.hcaOf[h] = idx
		d := hcaDev{node: int32(h), idx: idx, ch: out, pending: -1,
			rng: fabric.Stream(p.Seed, "traffic/hca/"+strconv.Itoa(int(idx)))}
		d.phase = HiccupPhase(p, int(idx))
		s.hcas = append(s.hcas, d)
		s.lids = append(s.lids, net.Nodes[h].LID)
	}
	// A message's wire time: its full packets and the rest back to back.
	wire := func(bytes int) int64 {
		full, rem := bytes/hw.MTU, bytes%hw.MTU
		w := int64(full) * hw.PacketPs(hw.MTU, s.ft)
		if rem > 0 {
			w += hw.PacketPs(rem, s.ft)
		}
		return w
	}
	var err error
	s.src, err = traffic.Open(p.Traffic, p.Jobs, net.HCASwitches(), func(name string) *rand.Rand { return fabric.Stream(p.Seed, name) }, wire)
	if err != nil {
		return nil, err
	}
	if len(p.Jobs) > 0 {
		s.jobs = p.Jobs
		s.jobLast = make([]int64, len(p.Jobs))
		s.jobMsgs = make([]int64, len(p.Jobs))
		s.jobOf = make([]int32, len(s.hcas))
		for i := range s.jobOf {
			s.jobOf[i] = int32(traffic.JobOf(s.src, i))
		}
	}
	s.counted, s.infinite = s.src.Total()
	if p.Counters {
		s.ctr = newCounting(len(s.chans), len(s.hcas))
		if p.CounterWindow > 0 {
			s.ctr.ser = NewSeriesTally(p.CounterWindow, len(p.Jobs))
		}
	}
	if err := s.setAdaptive(); err != nil {
		return nil, err
	}
	if !p.Timeline.Empty() {
		if err := p.Timeline.Check(net, t, hw); err != nil {
			return nil, err
		}
		s.tm = s.newTimed(p.Timeline, chs)
		if s.msgArrived == nil {
			// A message is delivered when all its packets are: some may be
			// lost, or resent and arrive out of order.
			s.msgArrived = map[msgKey]int32{}
		}
	}
	s.prefetching = s.stateBytes() >= prefetchFrom
	return s, nil
}

// setAdaptive prepares per-packet routing when the tables are an adaptive
// engine's: each HCA's switch, its route stream, and the jobs' own modes.
func (s *simulator) setAdaptive() error {
	for _, j := range s.jobs {
		if j.Routing != "" && s.t.Adaptive == nil {
			return fmt.Errorf("job %s: routing %q needs an adaptive engine (%s), the network is routed by %s",
				j.ID, j.Routing, strings.Join(routing.ModeNames(), ", "), s.t.Engine)
		}
	}
	if s.t.Adaptive == nil {
		return nil
	}
	if s.t.Source != nil {
		return fmt.Errorf("routing %s: tables with both adaptive and source routes", s.t.Engine)
	}
	s.ad = s.t.Adaptive
	s.msgArrived = map[msgKey]int32{}
	s.occ = func(port int) int64 { return s.occupancy(s.portCh[s.portBase[s.occSw]+int32(port)-1]) }
	s.bias = routing.Bias{Low: s.p.UGALBiasLow, High: s.p.UGALBiasHigh, Step: s.p.UGALBiasStep}
	for _, sw := range s.net.HCASwitches() {
		s.hcaSw = append(s.hcaSw, int32(sw))
	}
	for i := range s.hcas {
		s.hcas[i].routeRng = fabric.Stream(s.p.Seed, "route/hca/"+strconv.Itoa(i))
		s.hcas[i].respRng = fabric.Stream(s.p.Seed, "route/resp/"+strconv.Itoa(i))
	}
	if s.jobs != nil {
		s.jobMode = make([]int8, len(s.jobs))
		for i, j := range s.jobs {
			s.jobMode[i] = -1
			if j.Routing != "" {
				m, err := routing.ParseMode(j.Routing)
				if err != nil {
					return fmt.Errorf("job %s: %w", j.ID, err)
				}
				s.jobMode[i] = int8(m)
			}
		}
	}
	// Application-aware ranks: each keeps its own state and needs its
	// HCA's counters.
	for i := range s.hcas {
		m, kind := s.ad.Mode, s.p.Traffic.Kind
		if s.jobs != nil {
			j := s.jobOf[i]
			if j < 0 {
				continue
			}
			if s.jobMode[j] >= 0 {
				m = routing.Mode(s.jobMode[j])
			}
			kind = s.jobs[j].Traffic.Kind
		}
		if m == routing.ModeAppAware {
			s.hcas[i].aa = NewAppAware(AppAwareDefault(kind))
		}
	}
	for i := range s.hcas {
		if s.hcas[i].aa != nil {
			s.aaOn, s.aaP = true, s.p.AppAwareParams()
			if s.ctr == nil {
				s.ctr = newCounting(len(s.chans), len(s.hcas))
			}
			break
		}
	}
	return nil
}

// mode is the adaptive mode of a packet: its own (chosen for its message
// by application-aware routing), else its job's, else the engine's. A
// packet of an application-aware rank without a mode of its own (a
// response) takes ugal.
func (s *simulator) mode(ap *adaptivePacket) routing.Mode {
	if ap.mode > 0 {
		return routing.Mode(ap.mode - 1)
	}
	m := s.ad.Mode
	if ap.job >= 0 && s.jobMode != nil && s.jobMode[ap.job] >= 0 {
		m = routing.Mode(s.jobMode[ap.job])
	}
	if m == routing.ModeAppAware {
		return routing.ModeUGAL
	}
	return m
}

// wireChannels makes a channel (an output port) of every channel the
// network's numbering has, and the table from each (node, port) to the
// channel leaving there.
func (s *simulator) wireChannels(chs *fabric.Channels) {
	net := s.net
	s.chans = make([]channel, chs.Len())
	s.sameFt = true
	for i := range s.chans {
		from, to := chs.From(int32(i)), chs.To(int32(i))
		s.chans[i] = channel{from: from.Node, fromPort: from.Port, to: to.Node, toPort: to.Port,
			ft:      s.p.HW.LinkFlitPs(net, int(chs.Link(int32(i)))),
			reqHead: -1, tryAt: never, lastVL: uint8(s.nVL - 1), ring: int16(net.Ring(int(from.Node), int(from.Port))),
			ports: int16(net.Nodes[from.Node].Radix + 1)}
		s.sameFt = s.sameFt && s.chans[i].ft == s.ft
	}
	if s.wire = s.p.HW.WireBytes; s.wire {
		s.trains = make([][]obTrain, len(s.chans))
	}
	s.portBase = make([]int32, len(net.Nodes)+1)
	for i := range net.Nodes {
		s.portBase[i+1] = s.portBase[i] + int32(net.Nodes[i].Radix)
	}
	s.portCh = make([]int32, s.portBase[len(net.Nodes)])
	for n := range net.Nodes {
		for p := 1; p <= net.Nodes[n].Radix; p++ {
			s.portCh[s.portBase[n]+int32(p)-1] = chs.At(n, p)
		}
	}
}

func (s *simulator) start() {
	for i := range s.hcas {
		d := s
		if s.par != nil { // each HCA's events are its domain's
			d = s.par.doms[s.par.domOf[s.hcas[i].node]]
		}
		d.scheduleHCA(int32(i), 0)
	}
	if s.steadyMode() {
		s.k.q.push(event{at: s.p.SampleWindow, phase: phaseCtl, kind: evSample})
	}
	if s.tm != nil {
		s.startTimed()
	}
}

// steadyMode reports whether the steady-state controller ends the run:
// only infinite traffic, no messages whose delivery completes it.
func (s *simulator) steadyMode() bool { return s.counted == 0 && s.infinite }

// lane returns the lane of channel ch on VL vl.
func (s *simulator) lane(ch int32, vl uint8) int { return int(ch)*s.nVL + int(vl) }

func (s *simulator) newPacket() int32 {
	if s.free < 0 && s.par != nil {
		s.par.refill(s, 1)
	}
	if s.free >= 0 {
		i := s.free
		s.free = s.pkts[i].next
		s.dmem.nfree--
		s.dmem.formed++
		return i
	}
	s.pkts = append(s.pkts, packet{})
	s.info = append(s.info, packetInfo{})
	if s.ad != nil {
		s.apk = append(s.apk, adaptivePacket{})
	}
	return int32(len(s.pkts) - 1)
}

func (s *simulator) freePacket(i int32) {
	s.pkts[i].next = s.free
	s.free = i
	s.dmem.nfree++
}

// creditsAt returns when the sender of lane l will hold n credits. If the
// releases queued so far do not add up to n, it returns never and notes
// the need, so that wakeSender wakes the sender once they do. With VOQ a
// release can come before those already queued (packets of one buffer
// cross side by side), so the need is noted in any case: a later release
// may bring the instant forward.
func (s *simulator) creditsAt(l int, n int32) int64 {
	t := s.cr.when(&s.lanes[l].cr, n, s.k.now)
	if t == never || s.voq {
		// Wake for the smallest waiting packet: a short packet need not
		// wait for a long one's credits.
		ln := &s.lanes[l]
		if ln.blocked == 0 || n < ln.blocked {
			ln.blocked = n
		}
		if s.voq {
			ln.wakeAt = min(ln.wakeAt, t)
			s.chans[l/s.nVL].blockedVLs |= 1 << (l % s.nVL)
		}
	}
	return t
}

// wakeSender lets the sender of lane l try again once the credits queued
// for it, the latest released from instant first on, cover what its
// blocked packet needs (with VOQ: as soon as they do, which a new release
// may bring forward; the sender's next decision notes its need afresh).
func (s *simulator) wakeSender(l int, first int64) {
	ln := &s.lanes[l]
	need := ln.blocked
	if need == 0 || first >= ln.wakeAt {
		return // nothing waits, or the new credits come after the wake-up
	}
	t := s.cr.when(&s.lanes[l].cr, need, s.k.now)
	if t == never {
		return
	}
	if s.voq {
		ln.wakeAt = t
	} else {
		ln.blocked = 0
	}
	ch := int32(l / s.nVL)
	if h := s.hcaOf[s.chans[ch].from]; h >= 0 {
		s.scheduleHCA(h, max(t, s.k.now))
	} else {
		s.requestTry(ch, max(t, s.k.now), s.minFlits)
	}
}

// HiccupPhase is the instant in [0, HiccupPeriodPs) at which the hiccups of
// sink i (the i-th HCA) start: a draw from the stream "sim/hiccup/<i>" in
// [0, HW.HiccupSpan()), 0 when the sinks are in phase or have no hiccups.
func HiccupPhase(p Params, i int) int64 {
	if p.HW.HiccupPs == 0 {
		return 0
	}
	if span := p.HW.HiccupSpan(); span > 0 {
		return fabric.Stream(p.Seed, "sim/hiccup/"+strconv.Itoa(i)).Int64N(span)
	}
	return 0
}
