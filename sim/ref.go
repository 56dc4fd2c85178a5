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
}

type sinkFlit struct {
	pkt  int32
	k    int32
	slot int32
}

func newRefState(s *simulator) *refState {
	n := len(s.qHead)
	return &refState{s: s, entered: make([]int64, n), left: make([]int64, n),
		sinkQ: make([][]sinkFlit, len(s.hcas)), sinkBusy: make([]bool, len(s.hcas)), creditsInFlight: make([]int32, n)}
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

// grant starts packet pi (head of input slot in) onto output channel out:
// one leave event per flit at link rate.
func (r *refState) grant(out int32, in int, ovl uint8, pi int32) {
	s := r.s
	pk := &s.pkts[pi]
	oslot := int(out)*s.nVL + int(ovl)
	s.cr.avail[oslot] -= pk.flits
	checkf(s.cr.avail[oslot] >= 0, "negative credits")
	d := int64(pk.flits) * s.ft
	s.linkFree[out] = s.now + d
	s.qFree[in] = s.now + d
	s.qHead[in] = pk.next
	if pk.next < 0 {
		s.qTail[in] = -1
	}
	pk.ch, pk.vl, pk.next = out, ovl, -1
	for k := int32(0); k < pk.flits; k++ {
		s.schedule(event{at: s.now + int64(k)*s.ft, phase: phaseLeave, kind: evFlitLeave, ref: pi, aux: k,
			node: int32(in), vl: ovl, ch: out})
	}
	if s.qHead[in] >= 0 {
		s.becomeHead(in)
	}
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
		if e.aux == 0 {
			s.headArrive(event{at: e.at, node: e.node, port: e.port, vl: e.vl, ref: e.ref})
		}
	case evFlitLeave:
		in := int(e.node)
		checkf(r.entered[in] > r.left[in], "flit %d of packet %d leaves buffer %d before it arrived", e.aux, s.pkts[e.ref].seq, in)
		r.left[in]++
		// The freed slot's credit travels back to the sender.
		r.creditsInFlight[in]++
		s.schedule(event{at: s.now + s.prop, phase: phaseArrive, kind: evCredit, ref: int32(in)})
		out := e.ch
		s.res.FlitHops++
		s.schedule(event{at: s.now + s.ft + s.prop, phase: phaseArrive, kind: evFlitArrive,
			node: s.chTo[out], port: s.chToP[out], vl: e.vl, ref: e.ref, aux: e.aux, ch: out})
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
