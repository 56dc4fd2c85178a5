package reference

import (
	"strconv"

	"flitsim/routing"
)

// arrive: flit k of hop h has fully arrived in its input buffer (with
// ForwardAtStart: has begun to arrive; it is all there one flit time of
// its cable later).
func (s *simulator) arrive(h *hop, k int) {
	b := h.buf
	if k != h.arrived {
		s.failf("flit %d of packet %d/%d arrived after %d of its flits", k, h.p.srcNode, h.p.seq, h.arrived)
		return
	}
	h.arr[k] = s.now
	h.arrived++
	b.occ++
	if b.occ > b.cap {
		s.failf("input buffer %s holds %d flits, more than its %d", s.bufName(b), b.occ, b.cap)
		return
	}
	s.lastActive = max(s.lastActive, s.now)
	if s.p.HW.ForwardAtStart {
		s.lastActive = max(s.lastActive, s.now+s.flitPs(h.p, k, b.at.ft)) // a flit moves until it has fully arrived
	}
	if !b.at.isSwitch {
		sink := s.hcaAt(b.at.node)
		sink.bus = append(sink.bus, busFlit{h: h, k: k, arrival: s.now})
		s.busStart(sink)
		return
	}
	if k == 0 {
		b.q = append(b.q, h)
		if s.ad != nil {
			// It chooses its way once every arrival and credit of this
			// instant is in.
			s.post(event{t: s.now, kind: evRoute, h: h})
			return
		}
		s.route(h)
		s.compete(h)
		return
	}
	if h.waiting && h.crossed == k {
		h.waiting = false
		s.post(event{t: max(h.lastCross+s.fx, s.now), kind: evCross, h: h, k: k})
	}
}

// compete makes a packet whose head has arrived and been routed compete
// for its output: with VOQ when it is its buffer's oldest for that output,
// else when it heads its buffer.
func (s *simulator) compete(h *hop) {
	b := h.buf
	if s.voq {
		if h.out != nil && s.candHop(b, h.out) == h {
			h.out.cand = append(h.out.cand, b)
			s.postDecide(h.out, s.headReady(h))
		}
		return
	}
	if b.head() == h {
		s.becomeHead(b)
	}
}

// routeAdaptive routes packet h adaptively at its switch: its source
// switch chooses among its candidates, and in ugal-imb the further
// switches of its source group reconsider, by the occupancy of each
// candidate's first output (credits in use, over all VLs) now.
func (s *simulator) routeAdaptive(h *hop) {
	p, sw := h.p, h.buf.at.node
	occ := func(port int) int64 {
		o := s.ports[sw][port]
		var n int64
		for _, c := range o.credits {
			n += int64(o.capacity - c)
		}
		return n
	}
	o, vl := s.ad.Step(p.mode, s.bias, p.srcSw, sw, p.dstSw, &p.route, p.cands, occ)
	if o == 0 {
		o = int(s.tab.Port(sw, p.dstLID))
	}
	if o == int(routing.NoPath) || o == 0 || o >= len(s.ports[sw]) || s.ports[sw][o] == nil {
		return // no usable port: it never moves on
	}
	if vl >= s.vls {
		s.failf("adaptive route of packet %d/%d takes VL %d at switch %s, beyond the %d VLs", p.srcNode, p.seq, vl, s.net.Nodes[sw].Name, s.vls)
		return
	}
	h.out, h.outVL = s.ports[sw][o], vl
	s.compete(h)
}

// route looks up the output port and VL of a packet whose head has arrived
// at a switch. A packet without a usable port (NoPath, 0, or an unconnected
// port) keeps out == nil and never moves on.
func (s *simulator) route(h *hop) {
	sw, in := h.buf.at.node, h.buf.at.num
	ft, vt := s.lft(sw, h.p.dstLID), s.sl2vlTab(sw)
	if h.p.escape {
		ft, vt = s.tl.escape, s.tl.escape
	}
	o := ft.Port(sw, h.p.dstLID)
	if s.tab.Source != nil {
		// The header's route while it lasts, then the forwarding entry
		// of the destination's switch.
		route, ok := s.tab.Source.Route(h.p.srcSw, h.p.dstSw)
		if !ok {
			return
		}
		if h.p.hops < len(route) {
			o = route[h.p.hops]
		}
		h.p.hops++
	}
	if o == routing.NoPath || o == 0 || int(o) >= len(s.ports[sw]) || s.ports[sw][o] == nil {
		return
	}
	w := int(vt.VL(sw, in, int(o), h.p.sl))
	if w >= s.vls {
		s.failf("switch %s maps SL %d from port %d to port %d onto VL %d, beyond the %d VLs",
			s.net.Nodes[sw].Name, h.p.sl, in, o, w, s.vls)
		return
	}
	h.out, h.outVL = s.ports[sw][o], w
}

// becomeHead makes the head packet of b a candidate of its output and
// schedules the output's decision for when the packet can be eligible.
func (s *simulator) becomeHead(b *inBuf) {
	h := b.head()
	if h == nil || h.out == nil {
		return
	}
	h.out.cand = append(h.out.cand, b)
	s.postDecide(h.out, s.readyAt(b))
}

// readyAt is the instant from which the head packet of b can be eligible
// as far as time goes: its head has arrived and been routed and the
// buffer's previous packet has crossed (never while that one crosses).
func (s *simulator) readyAt(b *inBuf) int64 {
	if b.free == never {
		return never
	}
	return max(s.headReady(b.head()), b.free)
}

// postDecide schedules a decision of switch output o at t or, if its
// crossbar path is busy then, when it frees. Nothing is scheduled for
// never, while a packet crosses (xbar = never: its last crossing schedules
// a decision for every candidate) or without candidates (a new candidate
// schedules its own).
func (s *simulator) postDecide(o *port, t int64) {
	if t == never || o.xbar == never || len(o.cand) == 0 {
		return
	}
	t = max(t, o.xbar, s.now)
	if o.decideAt == t {
		return
	}
	o.decideAt = t
	s.post(event{t: t, kind: evDecide, port: o})
}

// decideSwitch: output o arbitrates.
func (s *simulator) decideSwitch(o *port) {
	if o.decideAt == s.now {
		o.decideAt = -1
	}
	if b := s.pick(o, s.now); b != nil {
		s.grant(o, b)
	} else if s.p.Counters {
		s.noteStall(o)
	}
}

// pick returns the input buffer whose head packet o grants at t, or nil
// when none is eligible. It reads the state and changes nothing.
//
// Eligible: head arrived and routed (t ≥ a₀ + lat), without VOQ the
// buffer's previous packet has crossed (t ≥ free), o's crossbar path is
// free (t ≥ xbar), the
// next hop has room (credits ≥ flits) and so has o's output buffer
// (held + flits ≤ obuf). Among the eligible: first the VL coming first
// after the last granted one (cyclically over the VLs), then the input port
// coming first after the last one granted on that VL (cyclically over
// 0..radix); on a tie of both (two VL buffers of one input port mapped onto
// one output VL), the lower input VL.
func (s *simulator) pick(o *port, t int64) *inBuf {
	if t < o.xbar {
		return nil
	}
	ports := len(s.ports[o.node]) // radix + 1
	var best *inBuf
	var bestVL, bestPort int
	for _, b := range o.cand {
		h := s.candHop(b, o)
		f := h.p.flits
		if t < s.headReady(h) {
			continue
		}
		// A dead cable discards without regard to credits or room.
		if !s.dead(o, t) && (o.credits[h.outVL] < s.creditsNeeded(h) || o.held+f > s.obuf) {
			continue
		}
		if !s.voq && t < b.free {
			continue
		}
		rv := mod(h.outVL-o.lastVL-1, s.vls)
		pv := h.outVL // the round robin over inputs starts after the last grant on this VL
		if s.p.HW.SharedInputPointer {
			pv = o.lastVL // or on any VL: the last grant of all
		}
		rp := mod(b.at.num-o.lastPort[pv]-1, ports)
		if best == nil || rv < bestVL || (rv == bestVL && (rp < bestPort || (rp == bestPort && b.vl < best.vl))) {
			best, bestVL, bestPort = b, rv, rp
		}
	}
	return best
}

// creditsNeeded is how many credits hop h needs to be granted its output:
// its packet's flits, and with bubble flow control on its output VL one
// full packet more when it enters a ring there: the output's channel runs
// along a torus ring and the packet did not arrive along that same ring on
// that same VL (another ring, a line, an HCA's cable, another VL).
func (s *simulator) creditsNeeded(h *hop) int {
	f := h.p.flits
	o, from := h.out, h.buf.at.peer
	sameRing := o.ring == from.ring && h.outVL == h.buf.vl
	if s.p.HW.Bubble(h.outVL) && o.ring >= 0 && !sameRing {
		f += s.p.HW.PacketFlits(s.p.HW.MTU)
	}
	return f
}

func mod(a, n int) int { return ((a % n) + n) % n }

// grant: o grants the head packet of b. It takes the credits, records the
// grant for the round robin, and moves the first flit at once.
func (s *simulator) grant(o *port, b *inBuf) {
	if s.voq {
		s.grantVOQ(o, b)
		return
	}
	h := b.head()
	if !s.takeCredits(o, b, h) {
		return
	}
	b.q[0] = nil
	b.q = b.q[1:]
	o.dropCand(b)
	b.free, o.xbar = never, never
	s.becomeHead(b) // the next packet is the head now; eligible from free(i, v)
	s.post(event{t: s.now, kind: evCross, h: h, k: 0})
}

// takeCredits is the common part of a grant by o of packet h of b: it
// takes the packet's credits on its output VL and records the grant for
// the round robin. It reports false when the credits went negative (the
// run has failed).
func (s *simulator) takeCredits(o *port, b *inBuf, h *hop) bool {
	w, f := h.outVL, h.p.flits
	if s.dead(o, s.now) {
		h.lost = true
		o.lastVL, o.lastPort[w] = w, b.at.num
		s.lastActive = max(s.lastActive, s.now)
		s.lose(h.p)
		return true
	}
	o.credits[w] -= f
	if o.credits[w] < 0 {
		s.failf("credits of %s on VL %d went negative (%d)", s.portName(o), w, o.credits[w])
		return false
	}
	o.lastVL, o.lastPort[w] = w, b.at.num
	o.sent(f, s.trainPs(h.p, o.ft), s.now)
	s.flitHops += int64(f)
	s.lastActive = max(s.lastActive, s.now)
	return true
}

// dropCand removes input buffer b from o's candidates.
func (o *port) dropCand(b *inBuf) {
	for i, c := range o.cand {
		if c == b {
			o.cand = append(o.cand[:i], o.cand[i+1:]...)
			return
		}
	}
}

// cross: flit k of hop h crosses the crossbar into its output buffer.
func (s *simulator) cross(h *hop, k int) {
	o, b := h.out, h.buf
	switch {
	case k != h.crossed:
		s.failf("flit %d of packet %d/%d crosses after %d of its flits", k, h.p.srcNode, h.p.seq, h.crossed)
	case k >= h.arrived || s.now < h.arr[k]:
		s.failf("flit %d of packet %d/%d crosses %s before it fully arrived", k, h.p.srcNode, h.p.seq, s.bufName(b))
	case o.lastCross >= 0 && s.now < o.lastCross+s.fx:
		s.failf("crossbar path of %s moves flits %d ps apart, less than %d", s.portName(o), s.now-o.lastCross, s.fx)
	case !s.voq && b.lastRead >= 0 && s.now < b.lastRead+s.fx:
		s.failf("input buffer %s is read %d ps apart, less than %d", s.bufName(b), s.now-b.lastRead, s.fx)
	}
	if s.err != nil {
		return
	}
	h.crossed++
	h.lastCross, o.lastCross, b.lastRead = s.now, s.now, s.now
	s.lastActive = max(s.lastActive, s.now)

	// The freed input buffer place sends its credit upstream.
	b.occ--
	s.post(event{t: s.now + s.cab, kind: evCredit, port: b.at.peer, vl: b.vl})

	if h.lost {
		s.tl.lostFlits++ // into nothing
	} else {
		s.enqueue(o, b, h, k)
	}
	if s.err != nil {
		return
	}

	if h.crossed == h.p.flits && s.voq {
		// The crossbar path is free fx later; the input buffer has no
		// read port to wait for.
		o.xbar = s.now + s.fx
		for _, c := range o.cand {
			s.postDecide(o, s.headReady(s.candHop(c, o)))
		}
		return
	}
	if h.crossed == h.p.flits {
		// The crossbar path and the buffer's read port are free fx later.
		o.xbar, b.free = s.now+s.fx, s.now+s.fx
		for _, c := range o.cand {
			s.postDecide(o, s.readyAt(c))
		}
		if nh := b.head(); nh != nil && nh.out != nil {
			s.postDecide(nh.out, s.readyAt(b))
		}
		return
	}
	if next := h.crossed; h.arrived > next {
		s.post(event{t: max(s.now+s.fx, h.arr[next]), kind: evCross, h: h, k: next})
	} else {
		h.waiting = true
	}
}

// enqueue puts flit k of hop h, just crossed from b, into o's output
// buffer and queues it for the cable.
func (s *simulator) enqueue(o *port, b *inBuf, h *hop, k int) {
	o.held++
	if o.held > s.obuf {
		s.failf("output buffer of %s holds %d flits, more than its %d", s.portName(o), o.held, s.obuf)
		return
	}
	switch {
	case o.ft >= b.at.ft:
		o.queue = append(o.queue, qflit{h: h, k: k, ready: s.now})
		s.kickCable(o)
	case h.crossed == h.p.flits:
		// Onto a faster cable than it came in on the switch stores the
		// packet: its flits queue for the cable once the last has crossed.
		for j := range h.p.flits {
			o.queue = append(o.queue, qflit{h: h, k: j, ready: s.now})
		}
		s.kickCable(o)
	}
}

// kickCable schedules the start of the output queue's head flit if none is
// scheduled: when it is ready and the previous flit has been on the cable
// for ft.
func (s *simulator) kickCable(o *port) {
	if o.startPending || len(o.queue) == 0 {
		return
	}
	o.startPending = true
	s.post(event{t: max(o.queue[0].ready, o.cableFree), kind: evCableStart, port: o})
}

// cableStart: port o starts the head flit of its output queue onto the
// cable; it fully arrives at the far end ft + cab later (ft the cable's).
func (s *simulator) cableStart(o *port) {
	f := o.queue[0]
	o.queue[0] = qflit{}
	o.queue = o.queue[1:]
	o.startPending = false
	h := f.h
	switch {
	case s.now < f.ready:
		s.failf("flit %d of packet %d/%d starts on %s before it entered the output buffer", f.k, h.p.srcNode, h.p.seq, s.portName(o))
	case s.now < o.cableFree:
		s.failf("cable of %s starts a flit %d ps after the previous one, less than %d", s.portName(o), s.now-(o.cableFree-o.ft), o.ft)
	case f.k > 0 && s.now != h.d0+int64(f.k)*o.ft:
		s.failf("packet %d/%d does not leave %s as one train: flit %d starts at %d, its head at %d", h.p.srcNode, h.p.seq, s.portName(o), f.k, s.now, h.d0)
	}
	if s.err != nil {
		return
	}
	dur := s.flitPs(h.p, f.k, o.ft)
	o.cableFree = s.now + dur
	s.lastActive = max(s.lastActive, s.now)
	if f.k == 0 {
		h.d0 = s.now
		h.next = &hop{p: h.p, buf: o.peer.in[h.outVL], arr: make([]int64, h.p.flits)}
	}
	// The receiver takes the flit once it has fully arrived, or, with
	// ForwardAtStart, as soon as it begins to arrive.
	at := s.now + dur + s.cab
	if s.p.HW.ForwardAtStart {
		at = s.now + s.cab
	}
	s.post(event{t: at, kind: evArrive, h: h.next, k: f.k})
	s.kickCable(o)
	if o.isSwitch {
		o.held--
		if o.held < 0 {
			s.failf("output buffer of %s holds %d flits", s.portName(o), o.held)
			return
		}
		s.postDecide(o, s.now)
	}
}

// credit: one credit for VL vl arrives at the sending port o.
func (s *simulator) credit(o *port, vl int) {
	o.credits[vl]++
	if o.credits[vl] > o.capacity {
		s.failf("credits of %s on VL %d are %d, more than the %d places of the buffer", s.portName(o), vl, o.credits[vl], o.capacity)
		return
	}
	s.lastActive = max(s.lastActive, s.now)
	switch {
	case o.hca != nil:
		s.postDecideHCA(o.hca, s.now)
	case o.isSwitch:
		s.postDecide(o, s.now)
	}
}

func (s *simulator) portName(o *port) string {
	return s.net.Nodes[o.node].Name + "/" + strconv.Itoa(o.num)
}

func (s *simulator) bufName(b *inBuf) string {
	return s.portName(b.at) + " VL " + strconv.Itoa(b.vl)
}

// candHop returns the packet of input buffer b that output o considers:
// the buffer's head (one FIFO), or with VOQ the oldest packet for o.
func (s *simulator) candHop(b *inBuf, o *port) *hop {
	if !s.voq {
		return b.head()
	}
	for _, h := range b.q {
		if h.out == o {
			return h
		}
	}
	return nil
}

// grantVOQ: o grants the oldest packet for it in b.
func (s *simulator) grantVOQ(o *port, b *inBuf) {
	h := s.candHop(b, o)
	if !s.takeCredits(o, b, h) {
		return
	}
	for i, x := range b.q {
		if x == h {
			b.q = append(b.q[:i], b.q[i+1:]...)
			break
		}
	}
	if s.candHop(b, o) == nil {
		o.dropCand(b)
	}
	o.xbar = never
	s.post(event{t: s.now, kind: evCross, h: h, k: 0})
}

// headReady is when hop h's packet may be granted its output: its head
// routed (lat after it arrived), and with ForwardAtStart, bound for a
// faster cable than it came in on, all of it arrived (a switch stores
// it).
func (s *simulator) headReady(h *hop) int64 {
	t := h.arr[0] + s.lat
	if in := h.buf.at.ft; s.p.HW.ForwardAtStart && h.out != nil && h.out.ft < in {
		t = max(t, h.arr[0]+s.trainPs(h.p, in))
	}
	return t
}
