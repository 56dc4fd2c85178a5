package sim

// The reference mode: the same devices and the same arbitration code, but
// every flit moves by its own events and every credit returns by its own
// event, with no arithmetic over trains. Each switch input buffer counts the
// flits that entered and left it, so cut-through is checked flit by flit
// (a flit never leaves before it arrived) and occupancy against capacity.
type refState struct {
	s               *simulator
	entered, left   []int64 // per (channel, VL) input buffer
	sinkQ           [][]sinkFlit
	sinkBusy        []bool
	creditsInFlight []int32
	consumed        int64
	// Switch output ports, per channel: the packet the crossbar is moving
	// into the output buffer, the output buffer's flits in order, and the
	// cable that sends them.
	mover     []refMover
	waiting   []int32 // per input slot: output whose mover waits for its next flit, -1
	obufQ     [][]obufFlit
	wireFree  []int64 // when the cable can start its next flit
	wireSched []bool  // an evWire is queued
}

// refMover is a crossbar transfer in progress: flit k of packet pi moves
// next from input slot in.
type refMover struct {
	active   bool
	pi       int32
	in       int32
	k        int32
	lastMove int64
}

type obufFlit struct {
	pkt int32
	k   int32
}

type sinkFlit struct {
	pkt  int32
	k    int32
	slot int32
}

func newRefState(s *simulator) *refState {
	n := len(s.qHead)
	nch := len(s.chFrom)
	r := &refState{s: s, entered: make([]int64, n), left: make([]int64, n),
		sinkQ: make([][]sinkFlit, len(s.hcas)), sinkBusy: make([]bool, len(s.hcas)), creditsInFlight: make([]int32, n),
		mover: make([]refMover, nch), waiting: make([]int32, n), obufQ: make([][]obufFlit, nch),
		wireFree: make([]int64, nch), wireSched: make([]bool, nch)}
	for i := range r.waiting {
		r.waiting[i] = -1
	}
	return r
}

// inject sends packet pi from HCA hc flit by flit.
func (r *refState) inject(hc *hca, pi int32) {
	s := r.s
	pk := &s.pkts[pi]
	slot := int(hc.ch)*s.nVL + int(pk.vl)
	s.cr.avail[slot] -= pk.flits
	hc.pending = -1
	pk.injected = s.now
	if s.firstInject < 0 {
		s.firstInject = s.now
	}
	s.inNetwork++
	s.res.FlitsInjected += int64(pk.flits)
	s.linkFree[hc.ch] = s.now + int64(pk.flits)*s.ft
	pk.ch = hc.ch
	for k := int32(0); k < pk.flits; k++ {
		s.res.FlitHops++
		s.schedule(event{at: s.now + int64(k+1)*s.ft + s.prop, phase: phaseArrive, kind: evFlitArrive,
			node: s.chTo[hc.ch], port: s.chToP[hc.ch], vl: pk.vl, ref: pi, aux: k, ch: hc.ch})
	}
	s.scheduleHCA(hc.idx, s.linkFree[hc.ch])
}

// grant starts packet pi (head of input slot in) through the crossbar
// towards output channel out on VL ovl: its first flit moves now, the others
// one by one as they arrive and the crossbar allows.
func (r *refState) grant(out int32, in int, ovl uint8, pi int32) {
	s := r.s
	pk := &s.pkts[pi]
	oslot := int(out)*s.nVL + int(ovl)
	s.cr.avail[oslot] -= pk.flits
	checkf(s.cr.avail[oslot] >= 0, "negative credits")
	checkf(!r.mover[out].active, "crossbar of %d granted twice", out)
	// Busy until the last flit has moved; the move says when.
	s.xbarFree[out] = never
	s.qFree[in] = never
	s.qHead[in] = pk.next
	if pk.next < 0 {
		s.qTail[in] = -1
	}
	pk.ch, pk.vl, pk.next = out, ovl, -1
	r.mover[out] = refMover{active: true, pi: pi, in: int32(in)}
	if s.qHead[in] >= 0 {
		s.becomeHead(in)
	}
	r.move(out)
}

// move takes the next flit of the crossbar transfer at out from its input
// buffer into the output buffer.
func (r *refState) move(out int32) {
	s := r.s
	m := &r.mover[out]
	pk := &s.pkts[m.pi]
	in := int(m.in)
	checkf(r.entered[in] > r.left[in], "flit %d of packet %d leaves buffer %d before it arrived", m.k, pk.seq, in)
	checkf(m.k == 0 || s.now >= m.lastMove+s.fx, "crossbar faster than its rate")
	r.left[in]++
	// The freed slot's credit travels back to the sender.
	r.creditsInFlight[in]++
	s.schedule(event{at: s.now + s.prop, phase: phaseArrive, kind: evCredit, ref: int32(in)})
	r.obufQ[out] = append(r.obufQ[out], obufFlit{pkt: m.pi, k: m.k})
	checkf(int64(len(r.obufQ[out])) <= s.obuf, "output buffer %d over capacity", out)
	if !r.wireSched[out] {
		if r.wireFree[out] <= s.now {
			r.wire(out)
		} else {
			r.wireSched[out] = true
			s.schedule(event{at: r.wireFree[out], phase: phaseLeave, kind: evWire, ch: out})
		}
	}
	m.k++
	m.lastMove = s.now
	if m.k == pk.flits {
		m.active = false
		s.xbarFree[out] = s.now + s.fx
		s.qFree[in] = s.now + s.fx
		if s.reqHead[out] >= 0 {
			s.requestTry(out, s.xbarFree[out])
		}
		if s.qHead[in] >= 0 {
			if next := s.outChannel(s.chTo[s.pkts[s.qHead[in]].ch], &s.pkts[s.qHead[in]]); next >= 0 {
				s.requestTry(next, s.ready(in))
			}
		}
		return
	}
	if r.entered[in] > r.left[in] {
		s.schedule(event{at: s.now + s.fx, phase: phaseLeave, kind: evXbar, ch: out})
	} else {
		r.waiting[in] = out
	}
}

// wire starts the output buffer's oldest flit onto the cable of out.
func (r *refState) wire(out int32) {
	s := r.s
	f := r.obufQ[out][0]
	r.obufQ[out] = r.obufQ[out][1:]
	pk := &s.pkts[f.pkt]
	s.res.FlitHops++
	s.schedule(event{at: s.now + s.ft + s.prop, phase: phaseArrive, kind: evFlitArrive,
		node: s.chTo[out], port: s.chToP[out], vl: pk.vl, ref: f.pkt, aux: f.k, ch: out})
	r.wireFree[out] = s.now + s.ft
	r.wireSched[out] = len(r.obufQ[out]) > 0
	if r.wireSched[out] {
		s.schedule(event{at: r.wireFree[out], phase: phaseLeave, kind: evWire, ch: out})
	}
	// The freed place may let a waiting packet through.
	if s.reqHead[out] >= 0 && s.xbarFree[out] <= s.now {
		s.requestTry(out, s.now)
	}
}

// roomAt is now if the output buffer of out has room for n flits; otherwise
// never, and the cable's next send re-runs arbitration.
func (r *refState) roomAt(out int32, n int32) int64 {
	if int64(len(r.obufQ[out]))+int64(n) <= r.s.obuf {
		return r.s.now
	}
	return never
}

func (r *refState) handle(e event) {
	s := r.s
	switch e.kind {
	case evFlitArrive:
		slot := int(e.ch)*s.nVL + int(e.vl)
		if h := s.hcaOf[e.node]; h >= 0 {
			r.sinkQ[h] = append(r.sinkQ[h], sinkFlit{pkt: e.ref, k: e.aux, slot: int32(slot)})
			if !r.sinkBusy[h] {
				r.startConsume(h)
			}
			return
		}
		r.entered[slot]++
		checkf(r.entered[slot]-r.left[slot] <= int64(s.capacity[slot]), "buffer %d over capacity", slot)
		if out := r.waiting[slot]; out >= 0 {
			r.waiting[slot] = -1
			s.schedule(event{at: max(s.now, r.mover[out].lastMove+s.fx), phase: phaseLeave, kind: evXbar, ch: out})
		}
		if e.aux == 0 {
			s.headArrive(event{at: e.at, node: e.node, port: e.port, vl: e.vl, ref: e.ref})
		}
	case evXbar:
		r.move(e.ch)
	case evWire:
		r.wireSched[e.ch] = false
		r.wire(e.ch)
	case evCredit:
		slot := int(e.ref)
		r.creditsInFlight[slot]--
		s.cr.avail[slot]++
		if need := s.blockedNeed[slot]; need > 0 && s.cr.avail[slot] >= need {
			s.blockedNeed[slot] = 0
			ch := int32(slot / s.nVL)
			if h := s.hcaOf[s.chFrom[ch]]; h >= 0 {
				s.scheduleHCA(h, s.now)
			} else {
				s.requestTry(ch, s.now)
			}
		}
	case evConsume:
		h := e.node
		hc := &s.hcas[h]
		f := r.sinkQ[h][0]
		r.sinkQ[h] = r.sinkQ[h][1:]
		r.consumed++
		r.creditsInFlight[f.slot]++
		s.schedule(event{at: s.now + s.prop, phase: phaseArrive, kind: evCredit, ref: f.slot})
		hc.sinkFree = s.now
		if pk := &s.pkts[f.pkt]; f.k == pk.flits-1 {
			s.delivered(hc, f.pkt, s.now)
		}
		r.sinkBusy[h] = false
		if len(r.sinkQ[h]) > 0 {
			r.startConsume(h)
		}
	}
}

// startConsume begins consuming the oldest waiting flit at sink h.
func (r *refState) startConsume(h int32) {
	s := r.s
	hc := &s.hcas[h]
	r.sinkBusy[h] = true
	done := s.serve(hc, max(s.now, hc.sinkFree), s.pcieFt)
	s.schedule(event{at: done, phase: phaseArrive, kind: evConsume, node: h})
}

// inFlightCredits counts credits of slot still travelling back.
func (r *refState) inFlightCredits(slot int) int32 { return r.creditsInFlight[slot] }
