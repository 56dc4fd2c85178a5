package reference

import (
	"math/rand/v2"

	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// createMessage takes terminal h's next message from the source. It
// reports false when there is none: h is done, or waits for a delivery.
func (s *simulator) createMessage(h *hca) bool {
	msg, st := s.src.Next(h.term, s.now, h.rng)
	switch st {
	case traffic.Done:
		h.done = true
		return false
	case traffic.Waiting:
		return false
	case traffic.Later: // decide, and ask, again then
		h.later = true
		if h.laterAt != msg.At {
			h.laterAt = msg.At
			s.post(event{t: msg.At, kind: evDecide, port: h.port})
		}
		return false
	}
	h.later = false
	m := &message{src: h.term, dst: msg.Dst, created: msg.At, tag: msg.Tag, bytes: msg.Bytes, get: msg.Get}
	for left := msg.Bytes; left > 0; left -= min(left, s.p.HW.MTU) {
		m.packets++
	}
	h.msg, h.left = m, msg.Bytes
	h.sent += int64(msg.Bytes)
	return true
}

// nextPacket cuts h's next packet (taking the next message when the
// current one is all sent); h.cur is nil when the terminal has none.
func (s *simulator) nextPacket(h *hca) {
	h.cur = nil
	if h.msg == nil || h.left == 0 {
		if h.done || !s.createMessage(h) {
			return
		}
	}
	bytes := min(h.left, s.p.HW.MTU)
	k, flits := data, s.p.HW.PacketFlits(bytes)
	if h.msg.get { // one RTS in place of the message's packets
		bytes, k, flits = h.left, rts, s.p.HW.ResponseFlits()
	}
	h.left -= bytes
	h.seq++
	dst := s.net.NumSwitches + h.msg.dst
	lid := s.net.Nodes[dst].LID
	h.cur = &packet{msg: h.msg, kind: k, srcNode: h.node, dstNode: dst, dstLID: lid,
		sl: s.tab.SL(h.sw, lid), payload: bytes, flits: flits, seq: h.seq, injected: -1,
		srcSw: h.sw, dstSw: s.hcas[h.msg.dst].sw}
	if k == rts {
		h.cur.payload = 0                 // the data travels in the responses
		h.seq += int64(h.msg.packets) - 1 // the message's numbers
	}
	if s.ad != nil {
		s.drawRoute(h, h.cur, s.hcas[h.msg.dst].sw, h.routeRng)
	}
}

// drawRoute sets the adaptive routing of packet p, which h sends to an HCA
// on switch dstSw: h's job's mode (else the engine's) and its candidates,
// drawn from rng, or in a hashing mode its one route hashed from its
// source and destination terminals and its number at h (an
// acknowledgement's or a GET request's: 0);
// a spreading Dragonfly's routes take their Spread from the same hash.
func (s *simulator) drawRoute(h *hca, p *packet, dstSw int, rng *rand.Rand) {
	p.srcSw, p.dstSw, p.mode = h.sw, dstSw, s.ad.Mode
	if s.jobs != nil {
		if j := traffic.JobOf(s.src, h.term); j >= 0 && s.jobModes[j] != nil {
			p.mode = *s.jobModes[j]
		}
	}
	if p.mode == routing.ModeAppAware {
		// A message's packets take the mode the rank chooses for it when
		// its first packet goes (decideHCA); a response takes ugal.
		p.mode = routing.ModeUGAL
	}
	if p.srcSw == p.dstSw {
		return
	}
	addr := p.seq
	if p.kind == ack || p.kind == getReq {
		addr = 0
	}
	dst := p.dstNode - s.net.NumSwitches
	if p.mode.Hashing() {
		p.cands = []routing.Route{s.ad.Hashed(p.mode, p.srcSw, p.dstSw, routing.HashKey(p.mode, h.term, dst, addr))}
	} else {
		p.cands = s.ad.Candidates(p.srcSw, p.dstSw, rng, nil)
	}
	if s.ad.Spread {
		// Every route spreads its hops inside groups by the packet's hash.
		for k := range p.cands {
			p.cands[k].Spread = routing.SpreadKey(routing.HashKey(routing.SpreadMode(p.mode), h.term, dst, addr))
		}
	}
}

// injectVL is the VL a packet leaves its HCA on.
func (s *simulator) injectVL(p *packet) int { return int(s.tab.InjectVL(p.sl)) }

// injectVLAt is the VL packet p leaves its HCA on if injected at t: with
// a timeline its SL is that of the tables routing it then.
func (s *simulator) injectVLAt(p *packet, t int64) int {
	if s.tl == nil {
		return s.injectVL(p)
	}
	tab := s.source(t)
	return int(tab.InjectVL(tab.SL(s.hcaAt(p.srcNode).sw, p.dstLID)))
}

// next returns the packet h sends next: its oldest response if it has one,
// else its next packet of a message while the NIC window has room (nil if
// neither).
func (s *simulator) next(h *hca) *packet {
	if len(h.resp) > 0 {
		return h.resp[0]
	}
	if w := s.p.HW.NICWindow; w > 0 && h.outstanding >= w {
		return nil
	}
	return h.cur
}

// createdAt returns when packet p came to be: its message's creation, or a
// response's.
func (p *packet) createdAt() int64 {
	if p.queued() || p.again {
		return p.created
	}
	return p.msg.created
}

// postDecideHCA schedules h's decision for the first instant ≥ t at which
// its next packet exists and its link is free.
func (s *simulator) postDecideHCA(h *hca, t int64) {
	p := s.next(h)
	if p == nil {
		return
	}
	t = max(t, h.linkFree, p.createdAt(), s.now)
	if h.decideAt == t {
		return
	}
	h.decideAt = t
	s.post(event{t: t, kind: evDecide, port: h.port})
}

// canInject: h can start its next packet at t when it exists (its message
// or it has been created), the link has sent the previous packet and the
// HCA holds credits for the whole packet. It changes nothing.
func (s *simulator) canInject(h *hca, t int64) bool {
	p := s.next(h)
	return p != nil && p.createdAt() <= t && t >= h.linkFree && !s.draining(h, t) && h.port.credits[s.injectVLAt(p, t)] >= p.flits
}

// decideHCA: h decides whether to inject its next packet now.
func (s *simulator) decideHCA(h *hca) {
	if h.decideAt == s.now {
		h.decideAt = -1
	}
	if h.ask || h.later {
		h.ask = false
		if h.cur == nil && !h.done {
			s.nextPacket(h)
			if p := s.next(h); p != nil && max(h.linkFree, p.createdAt()) > s.now {
				s.postDecideHCA(h, s.now) // when it is created and its link free
			}
		}
	}
	if !s.canInject(h, s.now) {
		if p := s.next(h); (s.p.Counters || h.aa != nil) && p != nil && p.createdAt() <= s.now && s.now >= h.linkFree && !s.draining(h, s.now) {
			h.port.stallAt(s.now) // ready, its link idle, short of credits
		}
		return
	}
	p := s.next(h)
	vl := s.injectVL(p)
	if s.tl != nil {
		tab := s.source(s.now)
		p.escape, p.sl = tab == s.tl.escape, tab.SL(h.sw, p.dstLID)
		vl = int(tab.InjectVL(p.sl))
	}
	if vl >= s.vls {
		s.failf("SL %d is injected on VL %d, beyond the %d VLs", p.sl, vl, s.vls)
		return
	}
	o := h.port
	o.credits[vl] -= p.flits
	if o.credits[vl] < 0 {
		s.failf("credits of %s on VL %d went negative (%d)", s.portName(o), vl, o.credits[vl])
		return
	}
	if len(o.queue) != 0 || o.cableFree > s.now {
		s.failf("HCA %s injects while its link is busy", s.portName(o))
		return
	}
	p.injected = s.now
	stalledBefore := o.stalled
	o.sent(p.flits, s.trainPs(p, o.ft), s.now)
	if p.response() {
		o.respFlits += int64(p.flits)
		o.respPackets++
	}
	if !p.queued() && h.aa != nil {
		if p.msg.mode == 0 { // its message's first packet: the rank chooses its mode
			m := h.aa.Choose(s.aaP, s.now, int64(p.msg.bytes), int64(p.msg.packets), sim.MessageFlits(s.p.HW, p.msg.bytes),
				o.stalled, o.sentFlits-int64(p.flits)-o.respFlits)
			p.msg.mode = int8(m) + 1
		}
		p.mode = routing.Mode(p.msg.mode - 1)
	}
	if s.ser != nil {
		if j := s.seriesJob(h); j >= 0 {
			s.ser.Stalled(j, s.now, o.stalled-stalledBefore)
			if !p.response() {
				s.ser.Sent(j, s.now, int64(p.flits), s.ad != nil && p.mode == routing.ModeUGALHigh)
			}
		}
	}
	if s.firstInject < 0 {
		s.firstInject = s.now
	}
	s.flitsInjected += int64(p.flits)
	s.flitHops += int64(p.flits)
	s.inFlight++
	if s.tl != nil {
		h.inflight++
		h.state = s.stateAt(s.now)
	}
	s.lastActive = max(s.lastActive, s.now)
	h.linkFree = s.now + s.trainPs(p, o.ft)

	// The packet leaves as a train: its flits queue for the cable now and
	// start ft apart, the first at once (the last may take less than ft:
	// HW.WireBytes).
	src := &hop{p: p, out: o, outVL: vl}
	for k := 0; k < p.flits; k++ {
		o.queue = append(o.queue, qflit{h: src, k: k, ready: s.now})
	}
	s.kickCable(o)

	if p.queued() || p.again {
		h.resp[0] = nil
		h.resp = h.resp[1:]
	} else {
		if s.p.HW.NICWindow > 0 {
			h.outstanding++
		}
		s.nextPacket(h)
	}
	s.postDecideHCA(h, h.linkFree)
}

// busStart starts the sink's bus on the next arrived flit if it is idle.
// It is called when a flit arrives and when the bus is done with one, so
// the flit starts when it has fully arrived and the previous one is done.
func (s *simulator) busStart(h *hca) {
	if h.busy || len(h.bus) == 0 {
		return
	}
	if h.bus[0].arrival > s.now {
		s.failf("sink %s starts a flit before it arrived", s.net.Nodes[h.node].Name)
		return
	}
	h.busy = true
	start := s.now
	f := h.bus[0]
	work := s.flitPs(f.h.p, f.k, s.pf)
	if in := s.flitPs(f.h.p, f.k, h.port.ft); s.p.HW.ForwardAtStart && work < in {
		// Taken at the start of its reception, a flit is done no sooner
		// than it has fully arrived.
		start = max(start, f.arrival+in-work)
	}
	s.post(event{t: s.busDone(h, start, work), kind: evConsumed, hca: h})
}

// busDone returns when bus work started at start is done: the bus works
// only outside the hiccups, which last HiccupPs at the start of every
// period shifted by the sink's phase.
func (s *simulator) busDone(h *hca, start, work int64) int64 {
	period, hiccup := s.p.HW.HiccupPeriodPs, s.p.HW.HiccupPs
	if hiccup == 0 || work == 0 {
		return start + work
	}
	t := start
	for {
		r := mod64(t-h.phi, period)
		if r < hiccup { // paused until the hiccup ends
			t += hiccup - r
			continue
		}
		if avail := period - r; work > avail {
			work -= avail
			t += avail
			continue
		}
		return t + work
	}
}

func mod64(a, n int64) int64 { return ((a % n) + n) % n }

// consumed: the sink's bus is done with the flit at the head of its queue.
// The flit's buffer place is free and its credit travels back; the packet is
// delivered with its last flit.
func (s *simulator) consumed(h *hca) {
	f := h.bus[0]
	h.bus[0] = busFlit{}
	h.bus = h.bus[1:]
	h.busy = false
	b := f.h.buf
	b.occ--
	s.post(event{t: s.now + s.cab, kind: evCredit, port: b.at.peer, vl: b.vl})
	s.flitsConsumed++
	s.lastActive = max(s.lastActive, s.now)
	if f.k == f.h.p.flits-1 {
		s.deliver(h, f.h.p)
	}
	s.busStart(h)
}

// deliver counts a delivered packet at sink h. With a NIC window h
// answers it; a response frees a place in h's window.
func (s *simulator) deliver(h *hca, p *packet) {
	s.flitsDelivered += int64(p.flits)
	s.inFlight--
	s.settled(p)
	switch p.kind {
	case ack:
		h.outstanding--
		s.postDecideHCA(h, s.now)
		return
	case rts:
		if s.p.HW.NICWindow > 0 {
			s.respond(h, p)
		}
		s.requestData(h, p)
		return
	case getReq:
		s.sendData(h, p)
		return
	case data:
		if s.p.HW.NICWindow > 0 {
			s.respond(h, p)
		}
	}
	s.packets++
	src := s.hcas[p.msg.src]
	src.latency.Add(s.now - p.injected)
	if src.aa != nil {
		src.aa.Delivered(s.now, s.now-p.injected)
	}
	if s.ser != nil {
		if j := s.seriesJob(src); j >= 0 {
			s.ser.Delivered(j, s.now, s.now-p.injected)
		}
	}
	p.msg.delivered++
	if p.msg.delivered == p.msg.packets {
		s.messages++
		if s.jobs != nil {
			j := traffic.JobOf(s.src, p.msg.src)
			s.jobMsgs[j]++
			s.jobLast[j] = s.now
		}
		if s.src.Counted(p.msg.src) {
			s.countedDone++
			s.hcas[p.msg.src].lastDone = s.now
		}
		if s.src.Delivered(p.msg.src, traffic.Msg{Dst: p.msg.dst, Tag: p.msg.tag}, s.now) && h.cur == nil && !h.done && !h.ask {
			h.ask = true
			if h.decideAt != s.now {
				h.decideAt = s.now
				s.post(event{t: s.now, kind: evDecide, port: h.port})
			}
		}
	}
	h.payload += int64(p.payload)
	s.payload += int64(p.payload)
	if !s.finite {
		h.win[(s.now/s.p.SampleWindow)&1] += int64(p.payload)
	}
	if s.p.Record {
		s.deliveries = append(s.deliveries, sim.Delivery{Src: int32(p.srcNode), Dst: int32(p.dstNode),
			Seq: p.seq, Bytes: int32(p.payload), InjectedPs: p.injected, DonePs: s.now})
	}
	if s.finite && s.countedDone == s.totalMessages {
		// The run ends after this instant: what else happens in it
		// (infinite jobs beside, responses) still counts.
		s.endAt = s.now
	}
}

// respond queues h's response to packet p: a packet of ResponseFlits()
// flits back to p's source, created now, routed like any other; its
// adaptive candidates are drawn now from h's response stream.
func (s *simulator) respond(h *hca, p *packet) {
	lid := s.net.Nodes[p.srcNode].LID
	s.queue(h, &packet{kind: ack, created: s.now, srcNode: h.node, dstNode: p.srcNode, dstLID: lid,
		sl: s.tab.SL(h.sw, lid), flits: s.p.HW.ResponseFlits(), injected: -1, srcSw: h.sw, dstSw: s.hcaAt(p.srcNode).sw})
}

// queue draws packet r's adaptive route now from h's response stream and
// queues it among h's responses.
func (s *simulator) queue(h *hca, r *packet) {
	if s.ad != nil {
		s.drawRoute(h, r, r.dstSw, h.respRng)
	}
	h.resp = append(h.resp, r)
	s.postDecideHCA(h, s.now)
}

// requestData: h has received the RTS p; it queues a GET request for
// each packet of p's message, in order, to p's source.
func (s *simulator) requestData(h *hca, p *packet) {
	lid := s.net.Nodes[p.srcNode].LID
	left := p.msg.bytes
	for k := 0; k < p.msg.packets; k++ {
		b := min(left, s.p.HW.MTU)
		left -= b
		s.queue(h, &packet{msg: p.msg, kind: getReq, created: s.now, srcNode: h.node, dstNode: p.srcNode, dstLID: lid,
			sl: s.tab.SL(h.sw, lid), payload: b, flits: s.p.HW.ResponseFlits(), seq: p.seq + int64(k), injected: -1,
			srcSw: h.sw, dstSw: s.hcaAt(p.srcNode).sw})
	}
}

// sendData: h has received the GET request p; it queues the data p asks
// for, a packet of p's message, to p's source.
func (s *simulator) sendData(h *hca, p *packet) {
	lid := s.net.Nodes[p.srcNode].LID
	r := &packet{msg: p.msg, kind: getData, created: s.now, srcNode: h.node, dstNode: p.srcNode, dstLID: lid,
		sl: s.tab.SL(h.sw, lid), payload: p.payload, flits: s.p.HW.PacketFlits(p.payload), seq: p.seq, injected: -1,
		srcSw: h.sw, dstSw: s.hcaAt(p.srcNode).sw}
	s.queue(h, r)
	if r.msg.mode > 0 { // the mode its application-aware source chose for the message
		r.mode = routing.Mode(r.msg.mode - 1)
	}
}

// sample: at (w+1)·W every sink closes window w. Windows ending at or before
// the warmup are not sampled. The run is steady when enough sinks are.
func (s *simulator) sample() {
	W := s.p.SampleWindow
	w := s.now/W - 1
	sampled := s.now > s.p.Warmup
	total := 0.0
	for _, h := range s.hcas {
		x := float64(h.win[w&1]) * 1000 / float64(W) // bytes/ps·1000 = GB/s
		h.win[w&1] = 0
		if sampled {
			h.stats.add(x)
			total += x
		}
	}
	if sampled {
		s.totals.add(total)
		s.windowTotal = append(s.windowTotal, total)
		steady := 0
		for _, h := range s.hcas {
			if s.isSteady(&h.stats) {
				steady++
			}
		}
		s.steadySinks = steady
		if s.p.SteadyRule == sim.SteadyNetwork && s.p.SteadyFraction <= 1 && s.networkSteady() ||
			s.p.SteadyRule != sim.SteadyNetwork && steady >= 1 && float64(steady) >= s.p.SteadyFraction*float64(len(s.hcas)) {
			s.finish(sim.Steady, s.now)
			return
		}
	}
	s.post(event{t: s.now + W, kind: evSample})
}

// networkSteady: at least MinSamples windows sampled and the batch-means
// half-width of the mean of their totals at most CIRel of that mean (or
// both 0).
func (s *simulator) networkSteady() bool {
	if s.totals.n < s.p.MinSamples {
		return false
	}
	half := batchMeansHalfWidth(s.windowTotal)
	return half <= s.p.CIRel*s.totals.mean || s.totals.mean == 0 && half == 0
}

// isSteady: at least MinSamples samples and a 99 % confidence half-width of
// at most CIRel of the mean (or mean and sd both 0).
func (s *simulator) isSteady(w *welford) bool {
	if w.n < s.p.MinSamples {
		return false
	}
	if w.mean == 0 && w.sd() == 0 {
		return true
	}
	return w.halfWidth() <= s.p.CIRel*w.mean
}

// deadlockCycle searches, depth first from the switch buffers in (switch,
// port, VL) order, the graph in which a buffer points to every buffer one of
// its competing packets waits for credits from, and returns the first cycle
// found (nil if there is none).
func (s *simulator) deadlockCycle() []sim.Buffer {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[*inBuf]int{}
	var path []*inBuf
	var visit func(b *inBuf) []*inBuf
	visit = func(b *inBuf) []*inBuf {
		state[b] = onPath
		path = append(path, b)
		for _, n := range s.waitsFor(b) {
			switch state[n] {
			case onPath:
				for i, c := range path {
					if c == n {
						return path[i:]
					}
				}
			case unseen:
				if cyc := visit(n); cyc != nil {
					return cyc
				}
			}
		}
		path = path[:len(path)-1]
		state[b] = done
		return nil
	}
	for node := 0; node < s.net.NumSwitches; node++ {
		for _, pt := range s.ports[node] {
			if pt == nil {
				continue
			}
			for _, b := range pt.in {
				if state[b] == unseen {
					if cyc := visit(b); cyc != nil {
						return s.buffers(cyc)
					}
				}
			}
		}
	}
	return nil
}

// waitsFor returns the buffers whose credits the competing packets of
// switch buffer b wait for: its head's (one FIFO), or with VOQ the oldest
// packet's for every output.
func (s *simulator) waitsFor(b *inBuf) []*inBuf {
	if !b.at.isSwitch {
		return nil
	}
	var out []*inBuf
	seen := map[*port]bool{}
	for i, h := range b.q {
		if i > 0 && !s.voq {
			break
		}
		if h.out == nil || seen[h.out] {
			continue
		}
		seen[h.out] = true
		if h.out.credits[h.outVL] < s.creditsNeeded(h) {
			out = append(out, h.out.peer.in[h.outVL])
		}
	}
	return out
}

func (s *simulator) buffers(bs []*inBuf) []sim.Buffer {
	out := make([]sim.Buffer, len(bs))
	for i, b := range bs {
		out[i] = sim.Buffer{Node: s.net.Nodes[b.at.node].Name, Port: b.at.num, VL: b.vl,
			From: s.net.Nodes[b.at.peer.node].Name, FromPort: b.at.peer.num}
	}
	return out
}
