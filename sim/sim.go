package sim

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/traffic"
)

// packet is one packet in flight, kept in a slab and linked into FIFOs.
type packet struct {
	seq      int64 // sequence number at its source HCA: (src, seq) names a packet in every mode
	src, dst int32 // HCA node indices
	dstLID   uint16
	sl, vl   uint8
	flits    int32
	payload  int32
	last     bool  // last packet of its message
	ch       int32 // channel it arrived on (its current input buffer)
	headAt   int64 // head flit fully received at the current node
	injected int64
	next     int32 // next packet in the same input buffer
	// reference mode: flits of this packet already in the current buffer,
	// and flits already sent on from it
	arrived, sent int32
}

// hca is the injection and consumption state of one HCA.
type hca struct {
	node    int32
	idx     int32 // terminal index for the traffic pattern
	ch      int32 // channel HCA → switch
	in      int32 // channel switch → HCA
	rng     *rand.Rand
	msgLeft int32 // payload bytes left of the current message
	msgDst  int32
	msgSeq  int64
	pktSeq  int64
	nextT   int64 // creation time of the next message (open-loop source)
	done    bool  // no more messages
	payload int64 // payload bytes delivered to this sink
	pending int32 // a packet formed but not yet injected (slab index), -1
	// sink
	sinkFree int64
	phase    int64 // hiccup phase offset
	buckets  []float64
	n        int
	mean, m2 float64
	steady   bool
}

// simulator is the state of one run.
type simulator struct {
	p      Params
	net    *fabric.Network
	t      *routing.Tables
	pat    traffic.Pattern
	nVL    int
	ft     int64 // ps per flit on a link
	msgWire int64 // wire time of one message (flits of all its packets × ft)
	prop   int64 // ps per cable
	pcieFt int64
	lat    int64 // switch latency
	fx     int64 // ps per flit through a switch crossbar
	obuf   int64 // flits per switch output buffer

	// channels: 2·link (A→B), 2·link+1 (B→A)
	chFrom, chTo   []int32
	chFromP, chToP []int16
	portCh         []int32 // portBase[node]+port-1 → outgoing channel
	portBase       []int32
	byLID          []int32
	capacity       []int32 // buffer capacity per (channel, VL) slot
	cr             credits
	qHead, qTail   []int32 // input FIFO per (channel, VL)
	qFree          []int64 // when the FIFO's previous packet has left
	reqNext        []int32 // request list link per (channel, VL) slot
	reqHead        []int32 // per output channel: requesting input slots
	linkFree       []int64 // per channel: when the cable has sent everything granted to it
	xbarFree       []int64 // per switch output channel: when the crossbar may start the next packet
	tryAt          []int64 // per channel (switch outputs) pending try time
	blockedNeed    []int32 // per (channel, VL): credits the smallest blocked packet waits for
	lastVL         []uint8 // per output channel
	lastIn         []int16 // per (output channel, VL): last granted input port
	hcas           []hca
	hcaOf          []int32 // node → index into hcas, -1 for switches
	pkts           []packet
	free           int32
	q              eventQueue
	now            int64
	modelEvents    int64
	inNetwork      int64 // packets injected but not yet at their sink
	seq            int64
	res            Result
	firstInject    int64
	lastDone       int64
	totalMsgs      int64
	payload        int64 // payload bytes delivered
	winN           int     // windows sampled after warmup
	winMean, winM2 float64 // Welford over per-window totals (GB/s)
	trace          uint64
	windows        int64
	steadyCount    int
	stop           bool
}

// Run simulates traffic on net routed by t and returns the result. It is a
// pure function of its arguments (wall time aside): no goroutines, no
// clock, no files.
func Run(net *fabric.Network, t *routing.Tables, p Params) (*Result, error) {
	s, err := newSimulator(net, t, p)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	s.start()
	s.loop()
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
	if t.NumSwitches() != net.NumSwitches || t.NumLIDs != int(net.MaxLID())+1 {
		return nil, fmt.Errorf("routing tables do not belong to this network")
	}
	if net.NumHCAs() < 2 {
		return nil, fmt.Errorf("simulation needs at least two HCAs, the network has %d", net.NumHCAs())
	}
	s := &simulator{p: p, net: net, t: t, nVL: p.HW.VLs, ft: p.HW.FlitPs(), prop: p.HW.CablePs(),
		pcieFt: p.HW.PCIeFlitPs(), lat: p.HW.SwitchLatencyPs, fx: p.HW.CrossbarFlitPs(),
		obuf: int64(p.HW.OutputBufferFlits), free: -1, firstInject: -1}
	full, rem := p.Traffic.MessageBytes/p.HW.MTU, p.Traffic.MessageBytes%p.HW.MTU
	s.msgWire = int64(full*p.HW.PacketFlits(p.HW.MTU)) * s.ft
	if rem > 0 {
		s.msgWire += int64(p.HW.PacketFlits(rem)) * s.ft
	}
	nch := 2 * len(net.Links)
	s.chFrom, s.chTo = make([]int32, nch), make([]int32, nch)
	s.chFromP, s.chToP = make([]int16, nch), make([]int16, nch)
	for l, lk := range net.Links {
		s.chFrom[2*l], s.chFromP[2*l], s.chTo[2*l], s.chToP[2*l] = lk.A.Node, lk.A.Port, lk.B.Node, lk.B.Port
		s.chFrom[2*l+1], s.chFromP[2*l+1], s.chTo[2*l+1], s.chToP[2*l+1] = lk.B.Node, lk.B.Port, lk.A.Node, lk.A.Port
	}
	s.portBase = make([]int32, len(net.Nodes)+1)
	for i := range net.Nodes {
		s.portBase[i+1] = s.portBase[i] + int32(net.Nodes[i].Radix)
	}
	s.portCh = make([]int32, s.portBase[len(net.Nodes)])
	for i := range s.portCh {
		s.portCh[i] = -1
	}
	for ch := 0; ch < nch; ch++ {
		s.portCh[s.portBase[s.chFrom[ch]]+int32(s.chFromP[ch])-1] = int32(ch)
	}
	s.byLID = net.ByLID()
	slots := nch * s.nVL
	s.capacity = make([]int32, slots)
	s.cr = newCredits(slots)
	s.qHead, s.qTail, s.reqNext = make([]int32, slots), make([]int32, slots), make([]int32, slots)
	s.qFree = make([]int64, slots)
	s.blockedNeed = make([]int32, slots)
	s.lastIn = make([]int16, slots)
	for i := 0; i < slots; i++ {
		ch := i / s.nVL
		c := int32(p.HW.InputBufferFlits)
		if int(s.chTo[ch]) >= net.NumSwitches {
			c = int32(p.HW.HCABufferFlits)
		}
		s.capacity[i], s.cr.avail[i] = c, c
		s.qHead[i], s.qTail[i], s.reqNext[i] = -1, -1, -1
	}
	s.reqHead, s.linkFree, s.tryAt = make([]int32, nch), make([]int64, nch), make([]int64, nch)
	s.xbarFree = make([]int64, nch)
	s.lastVL = make([]uint8, nch)
	for i := range s.reqHead {
		s.reqHead[i] = -1
		s.tryAt[i] = never
		s.lastVL[i] = uint8(s.nVL - 1)
	}
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
		s.hcas = append(s.hcas, hca{node: int32(h), idx: idx, ch: out, in: out ^ 1, pending: -1,
			rng:     fabric.Stream(s.p.Seed, "traffic/hca/"+strconv.Itoa(int(idx))),
			buckets: make([]float64, bucketRing)})
		if p.HW.HiccupPs > 0 {
			ph := fabric.Stream(s.p.Seed, "sim/hiccup/"+strconv.Itoa(int(idx)))
			s.hcas[idx].phase = ph.Int64N(p.HW.HiccupPeriodPs)
		}
	}
	pat, err := traffic.New(p.Traffic, len(s.hcas), fabric.Stream(p.Seed, "traffic/pattern"))
	if err != nil {
		return nil, err
	}
	s.pat = pat
	for i := range s.hcas {
		if m := pat.Messages(i); m >= 0 {
			s.totalMsgs += int64(m)
		} else {
			s.totalMsgs = -1
			break
		}
	}
	// Every VL the tables can put a packet on must exist in the hardware.
	if m := t.MaxVL(net); m >= s.nVL {
		return nil, fmt.Errorf("routing %s uses VL %d but the hardware has %d VLs", t.Engine, m, s.nVL)
	}
	return s, nil
}

// z99 is the two-sided 99 % quantile of the standard normal distribution.
const z99 = 2.5758293035489

// bucketRing is how many sample windows a sink keeps: the open one, and the
// next for a delivery at the very instant the open one closes.
const bucketRing = 2

// schedule queues a model event.
func (s *simulator) schedule(e event) {
	if e.kind != evSample {
		s.modelEvents++
	}
	s.q.push(e)
}

func (s *simulator) start() {
	for i := range s.hcas {
		s.scheduleHCA(int32(i), 0)
	}
	if s.totalMsgs < 0 {
		s.q.push(event{at: s.p.SampleWindow, phase: phaseCtl, kind: evSample})
	}
}

func (s *simulator) loop() {
	h := fnv.New64a()
	var buf [32]byte
	for s.q.len() > 0 && !s.stop {
		if s.q.peek().at > s.p.MaxTime {
			s.res.Verdict = NotConverged
			s.now = s.p.MaxTime
			break
		}
		e := s.q.pop()
		checkf(e.at >= s.now, "time went backwards: %d < %d", e.at, s.now)
		s.now = e.at
		if e.kind != evSample {
			s.modelEvents--
		}
		s.res.Events++
		if s.p.TraceHash {
			b := buf[:0]
			b = strconv.AppendInt(b, e.at, 36)
			b = append(b, e.kind, e.vl, byte(e.port), byte(e.port>>8))
			b = strconv.AppendInt(b, int64(e.node), 36)
			b = strconv.AppendInt(b, int64(e.ref), 36)
			h.Write(b)
		}
		switch e.kind {
		case evHeadArrive:
			s.headArrive(e)
		case evTryOut:
			if e.at == s.tryAt[e.ref] {
				s.tryAt[e.ref] = never
				s.tryOut(e.ref)
			}
		case evTryHCA:
			s.tryHCA(e.node)
		case evSample:
			s.sample()
		case evDone:
			s.delivered(&s.hcas[e.node], e.ref)
		}
		if s.modelEvents == 0 && s.inNetwork > 0 {
			s.res.Verdict = Deadlock
			break
		}
	}
	if s.p.TraceHash {
		s.res.TraceHash = strconv.FormatUint(h.Sum64(), 16)
	}
}

// ---------------------------------------------------------------- packets

func (s *simulator) newPacket() int32 {
	if s.free >= 0 {
		i := s.free
		s.free = s.pkts[i].next
		return i
	}
	s.pkts = append(s.pkts, packet{})
	return int32(len(s.pkts) - 1)
}

func (s *simulator) freePacket(i int32) {
	s.pkts[i].next = s.free
	s.free = i
}

// ---------------------------------------------------------------- HCAs

func (s *simulator) scheduleHCA(h int32, at int64) {
	s.schedule(event{at: at, phase: phaseArb, kind: evTryHCA, node: h})
}

// nextPacket forms the HCA's next packet, or returns -1 if it has nothing
// to send before readyAt.
func (s *simulator) nextPacket(hc *hca) int32 {
	if hc.pending >= 0 {
		return hc.pending
	}
	if hc.msgLeft == 0 {
		if hc.done {
			return -1
		}
		if hc.nextT > s.now {
			return -1
		}
		dst, ok := s.pat.Next(int(hc.idx), hc.rng)
		if !ok {
			hc.done = true
			return -1
		}
		hc.msgDst = s.hcas[dst].node
		hc.msgLeft = int32(s.p.Traffic.MessageBytes)
		hc.msgSeq++
		// Open loop: the next message is created one wire time plus a
		// seeded gap after this one, whatever the network does.
		hc.nextT += s.msgWire + traffic.Gap(s.p.Traffic.Load, s.msgWire, hc.rng)
	}
	payload := min(hc.msgLeft, int32(s.p.HW.MTU))
	hc.msgLeft -= payload
	i := s.newPacket()
	dn := &s.net.Nodes[hc.msgDst]
	sw := s.chTo[hc.ch]
	sl := s.t.SL(int(sw), dn.LID)
	hc.pktSeq++
	s.pkts[i] = packet{seq: hc.pktSeq, src: hc.node, dst: hc.msgDst, dstLID: dn.LID, sl: sl, vl: s.t.InjectVL(sl),
		flits: int32(s.p.HW.PacketFlits(int(payload))), payload: payload, last: hc.msgLeft == 0, next: -1}
	hc.pending = i
	return i
}

func (s *simulator) tryHCA(h int32) {
	hc := &s.hcas[h]
	if s.now < s.linkFree[hc.ch] {
		return // a try is already scheduled for when the link frees
	}
	pi := s.nextPacket(hc)
	if pi < 0 {
		if !hc.done && hc.msgLeft == 0 && hc.nextT > s.now {
			s.scheduleHCA(h, hc.nextT)
		}
		return
	}
	pk := &s.pkts[pi]
	slot := int(hc.ch)*s.nVL + int(pk.vl)
	s.cr.settle(slot, s.now)
	if s.cr.avail[slot] < pk.flits {
		if t := s.cr.when(slot, pk.flits, s.now); t != never {
			s.scheduleHCA(h, t)
		} else {
			s.blockedNeed[slot] = pk.flits
		}
		return
	}
	s.cr.avail[slot] -= pk.flits
	checkf(s.cr.avail[slot] >= 0, "negative credits")
	hc.pending = -1
	pk.injected = s.now
	if s.firstInject < 0 {
		s.firstInject = s.now
	}
	s.inNetwork++
	s.res.FlitsInjected += int64(pk.flits)
	s.res.FlitHops += int64(pk.flits)
	s.linkFree[hc.ch] = s.now + int64(pk.flits)*s.ft
	pk.ch = hc.ch
	s.schedule(event{at: s.now + s.ft + s.prop, phase: phaseArrive, kind: evHeadArrive, node: s.chTo[hc.ch], port: s.chToP[hc.ch], vl: pk.vl, ref: pi})
	s.scheduleHCA(h, s.linkFree[hc.ch])
}

// wakeSender lets the sender of channel ch retry once queued credits
// cover what it waits for.
func (s *simulator) wakeSender(ch int32, vl uint8) {
	slot := int(ch)*s.nVL + int(vl)
	need := s.blockedNeed[slot]
	if need == 0 {
		return
	}
	t := s.cr.when(slot, need, s.now)
	if t == never {
		return
	}
	s.blockedNeed[slot] = 0
	from := s.chFrom[ch]
	if h := s.hcaOf[from]; h >= 0 {
		s.scheduleHCA(h, max(t, s.now))
	} else {
		s.requestTry(ch, t)
	}
}

// ---------------------------------------------------------------- sinks

// serve returns when the host bus finishes work ps of consumption started
// at t, pausing during the HCA's PCIe hiccups.
func (s *simulator) serve(hc *hca, t, work int64) int64 {
	P, H := s.p.HW.HiccupPeriodPs, s.p.HW.HiccupPs
	if H == 0 {
		return t + work
	}
	for {
		off := (t - hc.phase) % P
		if off < 0 {
			off += P
		}
		if off < H { // in a hiccup: wait for its end
			t += H - off
			off = H
		}
		room := P - off
		if work <= room {
			return t + work
		}
		work -= room
		t += room
	}
}

// consume takes a packet whose head reached HCA h at time t: its flits
// arrive at t, t+ft, …; each is consumed when it has arrived and the bus is
// free; each consumption releases a credit that reaches the sender after
// the cable delay.
func (s *simulator) consume(hc *hca, pi int32, t int64) {
	pk := &s.pkts[pi]
	slot := int(pk.ch)*s.nVL + int(pk.vl)
	done := hc.sinkFree
	for k := int32(0); k < pk.flits; k++ {
		arr := t + int64(k)*s.ft
		done = s.serve(hc, max(arr, done), s.pcieFt)
		s.cr.push(slot, done+s.prop, s.ft, 1)
	}
	hc.sinkFree = done
	s.schedule(event{at: done, phase: phaseArrive, kind: evDone, node: hc.idx, ref: pi})
	s.wakeSender(pk.ch, pk.vl)
}

// delivered books a packet whose last flit is consumed now.
func (s *simulator) delivered(hc *hca, pi int32) {
	done := s.now
	pk := &s.pkts[pi]
	s.inNetwork--
	s.payload += int64(pk.payload)
	hc.payload += int64(pk.payload)
	s.res.Packets++
	s.res.FlitsConsumed += int64(pk.flits)
	if pk.last {
		s.res.Messages++
	}
	s.lastDone = max(s.lastDone, done)
	if s.totalMsgs < 0 {
		w := done / s.p.SampleWindow
		checkf(w == s.windows || w == s.windows+1, "consumption in window %d while closing %d", w, s.windows)
		hc.buckets[w%bucketRing] += float64(pk.payload)
	}
	if s.p.Record {
		s.res.Deliveries = append(s.res.Deliveries, Delivery{Src: pk.src, Dst: pk.dst, Seq: pk.seq, InjectedPs: pk.injected, DonePs: done})
	}
	s.freePacket(pi)
	if s.totalMsgs >= 0 && s.res.Messages == s.totalMsgs {
		s.stop = true
	}
}

// ---------------------------------------------------------------- switches

func (s *simulator) headArrive(e event) {
	pi := e.ref
	pk := &s.pkts[pi]
	pk.headAt = e.at
	node := e.node
	if h := s.hcaOf[node]; h >= 0 {
		checkf(pk.dst == node, "packet %d for %d delivered to %d", pk.seq, pk.dst, node)
		s.consume(&s.hcas[h], pi, e.at)
		return
	}
	slot := int(pk.ch)*s.nVL + int(pk.vl)
	pk.next = -1
	if s.qTail[slot] >= 0 {
		s.pkts[s.qTail[slot]].next = pi
		s.qTail[slot] = pi
		return
	}
	s.qHead[slot], s.qTail[slot] = pi, pi
	s.becomeHead(slot)
}

// outChannel returns the channel a packet at switch sw leaves on.
func (s *simulator) outChannel(sw int32, pk *packet) int32 {
	p := s.t.Port(int(sw), pk.dstLID)
	if p == routing.NoPath || p == 0 {
		return -1
	}
	return s.portCh[s.portBase[sw]+int32(p)-1]
}

// becomeHead files the head packet of an input buffer as a request at its
// output port.
func (s *simulator) becomeHead(slot int) {
	pi := s.qHead[slot]
	pk := &s.pkts[pi]
	sw := s.chTo[pk.ch]
	out := s.outChannel(sw, pk)
	if out < 0 {
		// No route: the packet blocks its buffer for good (a routing
		// defect; verification reports it before a run).
		return
	}
	s.reqNext[slot] = s.reqHead[out]
	s.reqHead[out] = int32(slot)
	s.requestTry(out, max(s.now, s.ready(slot)))
}

// ready is when the head of an input buffer may cross the crossbar.
func (s *simulator) ready(slot int) int64 {
	return max(s.pkts[s.qHead[slot]].headAt+s.lat, s.qFree[slot])
}

// requestTry makes sure output channel out re-arbitrates at time t.
func (s *simulator) requestTry(out int32, t int64) {
	if t >= s.tryAt[out] {
		return
	}
	s.tryAt[out] = t
	s.schedule(event{at: t, phase: phaseArb, kind: evTryOut, ref: out, node: s.chFrom[out]})
}

// tryOut arbitrates output channel out: among the input buffers whose head
// packet waits for it, ready, with credits downstream and with room for the
// whole packet in the output buffer, the next VL after the last one served
// (fair share), then the next input port after the last one served on that
// VL (round robin).
func (s *simulator) tryOut(out int32) {
	if s.now < s.xbarFree[out] {
		s.requestTry(out, s.xbarFree[out])
		return
	}
	sw := s.chFrom[out]
	outPort := int(s.chFromP[out])
	wake := never
	best, bestVL, bestPrev := int32(-1), -1, int32(-1)
	bestRank, bestInRank := s.nVL+1, 1<<20
	radix := s.net.Nodes[sw].Radix
	prev := int32(-1)
	for r := s.reqHead[out]; r >= 0; prev, r = r, s.reqNext[r] {
		slot := int(r)
		pk := &s.pkts[s.qHead[slot]]
		rt := s.ready(slot)
		if rt > s.now {
			wake = min(wake, rt)
			continue
		}
		if rt := s.roomAt(out, pk.flits); rt > s.now {
			wake = min(wake, rt)
			continue
		}
		inPort := int(s.chToP[pk.ch])
		ovl := s.t.VL(int(sw), inPort, outPort, pk.sl)
		oslot := int(out)*s.nVL + int(ovl)
		s.cr.settle(oslot, s.now)
		if s.cr.avail[oslot] < pk.flits {
			if t := s.cr.when(oslot, pk.flits, s.now); t != never {
				wake = min(wake, t)
			} else {
				// Wake when the smallest waiting packet fits: a short
				// packet need not wait for a long one's credits.
				if b := s.blockedNeed[oslot]; b == 0 || pk.flits < b {
					s.blockedNeed[oslot] = pk.flits
				}
			}
			continue
		}
		rank := (int(ovl) - int(s.lastVL[out]) - 1 + 2*s.nVL) % s.nVL
		inRank := (inPort - int(s.lastIn[oslot]) - 1 + 2*(radix+1)) % (radix + 1)
		if rank < bestRank || (rank == bestRank && inRank < bestInRank) {
			best, bestVL, bestPrev, bestRank, bestInRank = r, int(ovl), prev, rank, inRank
		}
	}
	if best < 0 {
		if wake != never {
			s.requestTry(out, wake)
		}
		return
	}
	// Unlink the winner from the request list.
	if bestPrev >= 0 {
		s.reqNext[bestPrev] = s.reqNext[best]
	} else {
		s.reqHead[out] = s.reqNext[best]
	}
	s.grant(out, int(best), uint8(bestVL))
	if s.reqHead[out] >= 0 {
		s.requestTry(out, s.xbarFree[out])
	}
}

// roomAt returns the earliest time from now on at which the output buffer of
// channel out has room for n flits. The crossbar has finished filling it
// (now ≥ xbarFree), and a flit leaves it when it starts onto the cable, so
// what it holds leaves back to back and the cable's last flit starts at
// linkFree−ft: at time t it holds ⌈(linkFree−t)/ft⌉−1 flits.
func (s *simulator) roomAt(out int32, n int32) int64 {
	return max(s.now, s.linkFree[out]-(s.obuf-int64(n)+1)*s.ft)
}

// grant sends the head packet of input slot in through output channel out
// on VL ovl, starting now.
func (s *simulator) grant(out int32, in int, ovl uint8) {
	pi := s.qHead[in]
	pk := &s.pkts[pi]
	s.lastVL[out] = ovl
	oslot := int(out)*s.nVL + int(ovl)
	s.lastIn[oslot] = s.chToP[pk.ch]
	s.cr.avail[oslot] -= pk.flits
	checkf(s.cr.avail[oslot] >= 0, "negative credits at %d", out)
	s.res.FlitHops += int64(pk.flits)
	// Flit k crosses into the output buffer when it has arrived (cut-through:
	// head + k·ft) and the crossbar has moved its predecessor (now + k·fx);
	// it leaves the input buffer then, and its credit goes upstream. The
	// earlier flits are crossbar-bound, the later ones arrival-bound.
	g, h, n := s.now, pk.headAt, int64(pk.flits)
	k1 := n
	if s.fx < s.ft {
		k1 = min(n, (g-h)/(s.ft-s.fx)+1)
	}
	inCh := pk.ch
	s.cr.push(in, g+s.prop, s.fx, int32(k1))
	s.cr.push(in, h+k1*s.ft+s.prop, s.ft, int32(n-k1))
	last := max(g+(n-1)*s.fx, h+(n-1)*s.ft)
	s.xbarFree[out] = last + s.fx
	s.qFree[in] = last + s.fx
	// The cable sends the output buffer back to back: the packet starts when
	// the cable has sent what is ahead of it, as one train (its flits reach
	// the buffer no later than the cable needs them).
	d0 := max(g, s.linkFree[out])
	s.linkFree[out] = d0 + n*s.ft
	s.qHead[in] = pk.next
	if pk.next < 0 {
		s.qTail[in] = -1
	}
	pk.ch, pk.vl, pk.next = out, ovl, -1
	s.schedule(event{at: d0 + s.ft + s.prop, phase: phaseArrive, kind: evHeadArrive, node: s.chTo[out], port: s.chToP[out], vl: ovl, ref: pi})
	if s.qHead[in] >= 0 {
		s.becomeHead(in)
	}
	s.wakeSender(inCh, uint8(in%s.nVL))
}

// ---------------------------------------------------------------- controllers

// sample closes a window of sink consumption and updates steadiness.
func (s *simulator) sample() {
	w := s.windows
	s.windows++
	end := (w + 1) * s.p.SampleWindow
	secs := float64(s.p.SampleWindow) * 1e-12
	s.steadyCount = 0
	sampled, total := false, 0.0
	for i := range s.hcas {
		hc := &s.hcas[i]
		bytes := hc.buckets[w%bucketRing]
		hc.buckets[w%bucketRing] = 0
		if end <= s.p.Warmup {
			continue
		}
		x := bytes / secs / 1e9 // GB/s
		sampled = true
		total += x
		hc.n++
		d := x - hc.mean
		hc.mean += d / float64(hc.n)
		hc.m2 += d * (x - hc.mean)
		hc.steady = false
		if hc.n >= s.p.MinSamples {
			sd := math.Sqrt(hc.m2 / float64(hc.n-1))
			half := z99 * sd / math.Sqrt(float64(hc.n))
			hc.steady = half <= s.p.CIRel*hc.mean || (hc.mean == 0 && sd == 0)
		}
		if hc.steady {
			s.steadyCount++
		}
	}
	if sampled {
		s.winN++
		d := total - s.winMean
		s.winMean += d / float64(s.winN)
		s.winM2 += d * (total - s.winMean)
	}
	if float64(s.steadyCount) >= s.p.SteadyFraction*float64(len(s.hcas)) && s.steadyCount > 0 {
		s.res.Verdict = Steady
		s.stop = true
		return
	}
	s.q.push(event{at: end + s.p.SampleWindow, phase: phaseCtl, kind: evSample})
}

func (s *simulator) finish() {
	r := &s.res
	if r.Verdict == "" {
		switch {
		case s.totalMsgs >= 0 && r.Messages == s.totalMsgs:
			r.Verdict = Completed
		case s.inNetwork > 0:
			r.Verdict = Deadlock
		case s.totalMsgs >= 0:
			// Nothing in flight, nothing left to move, yet messages missing:
			// packets without a route are stuck at their first switch.
			r.Verdict = Deadlock
		default:
			r.Verdict = NotConverged
		}
	}
	r.SimTimeNs = float64(s.now) / 1000
	if s.totalMsgs >= 0 {
		if r.Verdict == Completed {
			s.now = max(s.now, s.lastDone)
			r.SimTimeNs = float64(s.now) / 1000
			rt := s.lastDone - s.firstInject
			r.RuntimeNs = float64(rt) / 1000
			if rt > 0 {
				r.ThroughputGBs = float64(s.totalMsgs) * float64(s.p.Traffic.MessageBytes) / (float64(rt) * 1e-12) / 1e9
			}
		}
	}
	var bw []float64
	for i := range s.hcas {
		bw = append(bw, s.hcas[i].mean)
	}
	if s.totalMsgs < 0 {
		r.SteadySinks = s.steadyCount
		r.SampledWindows = s.winN
		if s.winN > 0 {
			for _, x := range bw {
				r.ThroughputGBs += x
			}
			if s.winN >= 2 {
				r.ThroughputCIGBs = z99 * math.Sqrt(s.winM2/float64(s.winN-1)) / math.Sqrt(float64(s.winN))
			}
		} else if s.now > 0 {
			// No window sampled (the run ended before warmup and one
			// window): what was delivered over the whole run.
			r.ThroughputGBs = float64(s.payload) / float64(s.now) * 1e3
			for i := range s.hcas {
				bw[i] = float64(s.hcas[i].payload) / float64(s.now) * 1e3
			}
		}
	} else if r.RuntimeNs > 0 {
		// Finite traffic: each HCA's payload received over the runtime.
		bw = bw[:0]
		for i := range s.hcas {
			m := s.pat.Messages(i)
			bw = append(bw, float64(m)*float64(s.p.Traffic.MessageBytes)/(r.RuntimeNs*1e-9)/1e9)
		}
	}
	r.HCABandwidthGBs = summarize(bw)
	if r.Verdict == Deadlock {
		r.FlitsStuck = r.FlitsInjected - r.FlitsConsumed
		r.DeadlockCycle = s.waitCycle()
	}
	s.checkConservation()
}

func summarize(x []float64) Stats {
	if len(x) == 0 {
		return Stats{}
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	q := func(f float64) float64 {
		pos := f * float64(len(y)-1)
		lo := int(pos)
		if lo+1 >= len(y) {
			return y[lo]
		}
		return y[lo] + (pos-float64(lo))*(y[lo+1]-y[lo])
	}
	return Stats{Min: y[0], Q1: q(0.25), Median: q(0.5), Q3: q(0.75), Max: y[len(y)-1]}
}

// waitCycle follows, from every blocked input buffer, the buffer its head
// packet waits for (the full downstream buffer on its next VL) and returns
// the first cycle found.
func (s *simulator) waitCycle() []Buffer {
	next := func(slot int) int {
		pi := s.qHead[slot]
		if pi < 0 {
			return -1
		}
		pk := &s.pkts[pi]
		sw := s.chTo[pk.ch]
		out := s.outChannel(sw, pk)
		if out < 0 {
			return -1
		}
		ovl := s.t.VL(int(sw), int(s.chToP[pk.ch]), int(s.chFromP[out]), pk.sl)
		ns := int(out)*s.nVL + int(ovl)
		if s.hcaOf[s.chTo[out]] >= 0 {
			return -1
		}
		return ns
	}
	seen := make([]int32, len(s.qHead))
	for start := range s.qHead {
		if s.qHead[start] < 0 || seen[start] != 0 {
			continue
		}
		mark := int32(start + 1)
		x := start
		for x >= 0 && seen[x] == 0 {
			seen[x] = mark
			x = next(x)
		}
		if x < 0 || seen[x] != mark {
			continue
		}
		var cyc []Buffer
		for y := x; ; {
			ch := y / s.nVL
			cyc = append(cyc, Buffer{Node: s.net.Nodes[s.chTo[ch]].Name, Port: int(s.chToP[ch]), VL: y % s.nVL,
				From: s.net.Nodes[s.chFrom[ch]].Name, FromPort: int(s.chFromP[ch])})
			y = next(y)
			if y == x {
				break
			}
		}
		return cyc
	}
	return nil
}

// checkConservation verifies at the end of a run (invariants builds only)
// that every injected flit was consumed or is still in a buffer or on a
// cable, and that for every VL buffer the sender's credits, the credits on
// their way back, the flits held and the flits granted or travelling to it
// add up to the buffer's capacity.
func (s *simulator) checkConservation() {
	if !invariants {
		return
	}
	committed := make([]int32, len(s.qHead)) // flits holding a credit but not yet in the buffer
	var around int64                         // flits injected, not yet consumed
	s.q.each(func(e *event) {
		switch e.kind {
		case evHeadArrive:
			pk := &s.pkts[e.ref]
			committed[int(pk.ch)*s.nVL+int(pk.vl)] += pk.flits
			around += int64(pk.flits)
		case evDone: // at the sink, credits already on their way back
			around += int64(s.pkts[e.ref].flits)
		}
	})
	for slot := range s.qHead {
		held := int32(0)
		for pi := s.qHead[slot]; pi >= 0; pi = s.pkts[pi].next {
			held += s.pkts[pi].flits
		}
		around += int64(held)
		s.cr.settle(slot, never-1)
		checkf(s.cr.avail[slot]+held+committed[slot] == s.capacity[slot],
			"slot %d: credits %d + held %d + committed %d != capacity %d",
			slot, s.cr.avail[slot], held, committed[slot], s.capacity[slot])
	}
	checkf(s.res.FlitsInjected == s.res.FlitsConsumed+around, "flits: injected %d != consumed %d + in the network %d",
		s.res.FlitsInjected, s.res.FlitsConsumed, around)
}
