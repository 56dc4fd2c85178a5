package sim

import (
	"math"
	"math/bits"

	"flitsim/fabric/invariants"
	"flitsim/routing"
)

// A switch, as the package doc specifies it: per input port and VL a FIFO
// input buffer (a lane of the arriving channel); per output port an
// arbiter, a crossbar path and an output buffer in front of the cable (the
// leaving channel). A packet at the head of its input buffer files a
// request with the output its forwarding table names; the output
// arbitrates among its requests whenever one may have become eligible.

// headArrive files a packet whose head has just arrived at a switch into
// its input buffer; it competes at once if it is the buffer's head or, with
// VOQ, the buffer's oldest packet for its output.
//
// sw and port are the switch and its input port the head arrived at (the
// event's, so that the channel need not be read).
func (s *simulator) headArrive(sw int32, port int16, pi int32) {
	pk := &s.pkts[pi]
	pk.headAt = s.k.now
	pk.inPort = uint8(port)
	s.route(sw, pi)
	if pk.out >= 0 {
		// The output lane's credits are read when the packet competes,
		// at once if nothing else happens at this instant (holdArb): its
		// first line comes in meanwhile (−3 to −7 % of a run on the
		// 16-ary 2-tree with 8 VLs, whose lanes are 1 MB).
		prefetch(addr(&s.lanes[s.lane(pk.out, pk.outVL)]))
	}
	l := s.lane(pk.ch, pk.vl)
	ln := &s.lanes[l]
	pk.next = -1
	if ln.tail < 0 {
		ln.head, ln.tail = pi, pi
		if s.voq {
			s.request(pi)
		} else {
			s.becomeHead(l)
		}
		return
	}
	s.pkts[ln.tail].next = pi
	ln.tail = pi
	if s.voq && s.oldestFor(ln.head, pk.out) == pi {
		s.request(pi)
	}
}

// oldestFor returns the first packet from pi on in its lane that leaves on
// out, or -1.
func (s *simulator) oldestFor(pi, out int32) int32 {
	for ; pi >= 0; pi = s.pkts[pi].next {
		if s.pkts[pi].out == out {
			return pi
		}
	}
	return -1
}

// request files packet pi (VOQ) as a request at its output.
func (s *simulator) request(pi int32) {
	pk := &s.pkts[pi]
	if pk.out < 0 {
		return // no route: it never moves on
	}
	c := &s.chans[pk.out]
	pk.reqNext = c.reqHead
	c.reqHead = pi
	s.requestTry(pk.out, max(s.k.now, s.readyAt(pi)), int32(pk.flits))
}

// route sets the channel a packet whose head has arrived at switch sw
// leaves on (-1: none) and its VL there: by the forwarding and SL-to-VL
// tables, or with adaptive routing by its route, which it chooses here at
// its source switch (and, in ugal-imb, reconsiders at the further switches
// of its source group) from the occupancy of the candidates' first outputs
// now: credits arrived at or before now, taken by grants before now (those
// of this instant come later, in its decision phase).
func (s *simulator) route(sw int32, pi int32) {
	pk := &s.pkts[pi]
	if s.ad == nil {
		var p uint8
		vt := s.t // the SL→VL tables
		switch {
		case s.tm != nil && s.tm.esc != nil && s.info[pi].esc:
			p, vt = s.tm.esc.Port(int(sw), pk.dstLID), s.tm.esc
		case s.tm != nil && s.tm.next != nil:
			p, vt = s.timedPort(sw, pk.dstLID, s.k.now)
		case s.t.Source == nil:
			p = s.t.Port(int(sw), pk.dstLID)
		default:
			in := &s.info[pi]
			p = s.t.Forward(int(s.switchOf(in.src)), int(s.switchOf(in.dst)), int(in.hop), int(sw), pk.dstLID)
			if in.hop < 1<<16-1 {
				in.hop++ // saturates far beyond any route
			}
		}
		if p == routing.NoPath || p == 0 {
			pk.out = -1
			return
		}
		pk.out = s.portCh[s.portBase[sw]+int32(p)-1]
		pk.outVL = vt.VL(int(sw), int(pk.inPort), int(p), pk.sl)
		return
	}
	ap := &s.apk[pi]
	cands := ap.cands[:ap.ncand]
	s.occSw = sw
	p, vl := s.ad.Step(s.mode(ap), s.bias, int(ap.srcSw), int(sw), int(ap.dstSw), &ap.route, cands, s.occ)
	if p == 0 {
		// At the destination's switch: its HCA's port.
		if p = int(s.t.Port(int(sw), pk.dstLID)); p == int(routing.NoPath) || p == 0 {
			pk.out = -1 // never moves on (the tables always have it)
			return
		}
	}
	pk.out = s.portCh[s.portBase[sw]+int32(p)-1]
	pk.outVL = uint8(vl)
}

// switchOf returns the switch HCA node h is cabled to.
func (s *simulator) switchOf(h int32) int32 { return s.chans[s.hcas[s.hcaOf[h]].ch].to }

// need is the credits packet pi needs to be granted output out on VL ovl:
// its flits, and with bubble flow control on ovl one full packet more
// when out is a ring the packet enters (it arrived on another ring's
// channel, off the rings, from an HCA, or on another VL).
func (s *simulator) need(out int32, pi int32, ovl uint8) int32 {
	pk := &s.pkts[pi]
	n := int32(pk.flits)
	if s.bubble>>ovl&1 != 0 {
		if r := s.chans[out].ring; r >= 0 && (r != s.chans[pk.ch].ring || ovl != pk.vl) {
			n += s.bubbleN
		}
	}
	return n
}

// occupancy is what the sender of channel ch has in the next hop's input
// buffers: its credits in use, over all VLs.
func (s *simulator) occupancy(ch int32) int64 {
	var n int64
	c := &s.chans[ch]
	for m := c.usedVLs; m != 0; m &= m - 1 {
		v := uint8(bits.TrailingZeros16(m))
		l := s.lane(ch, v)
		cr := &s.lanes[l].cr
		s.cr.settle(cr, s.k.now)
		if used := s.capacity[l] - cr.avail; used > 0 {
			n += int64(used)
		} else if cr.len() == 0 {
			c.usedVLs &^= 1 << v
		}
	}
	return n
}

// becomeHead files the head packet of lane l as a request at its output.
func (s *simulator) becomeHead(l int) {
	ln := &s.lanes[l]
	out := s.pkts[ln.head].out
	if out < 0 {
		// No route: the packet blocks its buffer for good (a routing
		// defect; verification reports it before a run).
		return
	}
	c := &s.chans[out]
	ln.reqNext = c.reqHead
	c.reqHead = int32(l)
	s.requestTry(out, max(s.k.now, s.ready(l)), int32(s.pkts[ln.head].flits))
}

// ready is when the head packet of lane l may cross the crossbar: its head
// has been routed and the buffer's previous packet has crossed.
func (s *simulator) ready(l int) int64 {
	ln := &s.lanes[l]
	return max(s.readyAt(ln.head), ln.free)
}

// requestTry makes output out arbitrate at t, unless it already will
// earlier, or later if no request of at least n flits could be eligible
// by t: not before the crossbar path is free and the output buffer has
// room for n flits (an arbitration before then would grant nothing).
// Callers pass the size of the one request the try is for, else
// minFlits: n must not exceed any request the try stands for, or a grant
// would come late. Both instants change only when out grants, which
// schedules its next try afresh.
func (s *simulator) requestTry(out int32, t int64, n int32) {
	invariants.Checkf(n != math.MaxInt32, "output %d tries before any packet was formed", out)
	c := &s.chans[out]
	t = max(t, c.xbarFree)
	if s.tm == nil || !s.tm.down(out, t) { // a cable that is down needs no room
		t = max(t, s.roomFrom(out, n))
	}
	if t >= c.tryAt {
		return
	}
	c.tryAt = t
	s.k.schedule(event{at: t, phase: phaseArb, kind: evTryOut, ref: out, node: c.from})
}

// arbitrate grants output out to one eligible request, if any: the next VL
// after the one granted last (fair share), then the next input port after
// the one granted last on that VL (round robin), then the lower input VL.
// If none is eligible it arranges to try again at the earliest instant one
// may be.
func (s *simulator) arbitrate(out int32) {
	c := &s.chans[out]
	now := s.k.now
	invariants.Checkf(now >= c.xbarFree, "output %d arbitrates at %d, its crossbar path busy until %d", out, now, c.xbarFree)
	if s.voq {
		s.arbitrateVOQ(out)
		return
	}
	best, bestVL, bestPrev := int32(-1), uint8(0), int32(-1)
	sc := arbScratch{wake: never}
	rk := s.newRanker(out)
	prev := int32(-1)
	for r := c.reqHead; r >= 0; prev, r = r, s.lanes[r].reqNext {
		l := int(r)
		pi := s.lanes[l].head
		if t := s.ready(l); t > now {
			sc.wake = min(sc.wake, t)
			continue
		}
		if ovl, ok := s.eligible(out, pi, &sc); ok && rk.better(s, ovl, pi) {
			best, bestVL, bestPrev = r, ovl, prev
		}
	}
	if best < 0 {
		s.noGrant(out, &sc)
		return
	}
	if bestPrev >= 0 {
		s.lanes[bestPrev].reqNext = s.lanes[best].reqNext
	} else {
		c.reqHead = s.lanes[best].reqNext
	}
	s.grant(out, int(best), bestVL)
	if c.reqHead >= 0 {
		s.requestTry(out, c.xbarFree, s.minFlits)
	}
}

// arbitrateVOQ is arbitrate when the requests are packets, each the oldest
// for this output in its lane.
func (s *simulator) arbitrateVOQ(out int32) {
	c := &s.chans[out]
	now := s.k.now
	if invariants.Enabled {
		for v := 0; v < s.nVL; v++ {
			ln := &s.lanes[s.lane(out, uint8(v))]
			invariants.Checkf(c.blockedVLs>>v&1 != 0 || ln.blocked == 0 && ln.wakeAt == never,
				"output %d: lane on VL %d notes a blocked need (%d, wake at %d) without its bit", out, v, ln.blocked, ln.wakeAt)
		}
	}
	for m := c.blockedVLs; m != 0; m &= m - 1 {
		ln := &s.lanes[s.lane(out, uint8(bits.TrailingZeros16(m)))]
		ln.blocked, ln.wakeAt = 0, never // noted again below while still short
	}
	c.blockedVLs = 0
	best, bestVL, bestPrev := int32(-1), uint8(0), int32(-1)
	sc := arbScratch{wake: never}
	rk := s.newRanker(out)
	prev := int32(-1)
	for r := c.reqHead; r >= 0; prev, r = r, s.pkts[r].reqNext {
		if t := s.readyAt(r); t > now {
			sc.wake = min(sc.wake, t)
			continue
		}
		if ovl, ok := s.eligible(out, r, &sc); ok && rk.better(s, ovl, r) {
			best, bestVL, bestPrev = r, ovl, prev
		}
	}
	if best < 0 {
		s.noGrant(out, &sc)
		return
	}
	if bestPrev >= 0 {
		s.pkts[bestPrev].reqNext = s.pkts[best].reqNext
	} else {
		c.reqHead = s.pkts[best].reqNext
	}
	s.grantVOQ(out, best, bestVL)
	if c.reqHead >= 0 {
		s.requestTry(out, c.xbarFree, s.minFlits)
	}
}

// arbScratch is what one arbitration learns about its requests: the
// earliest instant one may become eligible (never: not until a new event),
// the VLs whose credits it has settled (a bit each), and whether a request
// ready as far as time and the output buffer go lacked credits.
type arbScratch struct {
	wake         int64
	settled      uint32
	creditsShort bool
}

// noGrant makes output out, with no request eligible now, arbitrate again
// when one may be, and with counters notes when its cable stalls: from the
// instant it is idle (linkFree), a request ready but short of credits
// holds it until the next grant.
func (s *simulator) noGrant(out int32, sc *arbScratch) {
	if sc.wake != never {
		s.requestTry(out, sc.wake, s.minFlits)
	}
	if sc.creditsShort && s.ctr != nil {
		s.ctr.stallFrom(out, max(s.k.now, s.chans[out].linkFree))
	}
}

// eligible reports whether packet pi, ready as far as its own timing goes,
// can be granted output out now: room in the output buffer and credits
// downstream on its VL there, which it returns. Otherwise it lowers
// sc.wake to when that may change (or notes the credits it waits for).
func (s *simulator) eligible(out int32, pi int32, sc *arbScratch) (uint8, bool) {
	pk := &s.pkts[pi]
	if s.tm != nil && s.tm.down(out, s.k.now) {
		return pk.outVL, true // discarded without regard to room or credits
	}
	if t := s.roomAt(out, int32(pk.flits)); t > s.k.now {
		sc.wake = min(sc.wake, t)
		return 0, false
	}
	ovl := pk.outVL
	ol := s.lane(out, ovl)
	if sc.settled&(1<<ovl) == 0 { // once per arbitration and VL: many requests share it
		s.cr.settle(&s.lanes[ol].cr, s.k.now)
		sc.settled |= 1 << ovl
	}
	if n := s.need(out, pi, ovl); s.lanes[ol].cr.avail < n {
		sc.creditsShort = true
		if t := s.creditsAt(ol, n); t != never {
			sc.wake = min(sc.wake, t)
		}
		return 0, false
	}
	return ovl, true
}

// ranker orders the eligible requests of one output: output VL first after
// the VL granted last, then input port first after the one granted last on
// that VL (shared: on the VL granted last), then the lower input VL.
type ranker struct {
	out        int32
	nVL, ports int
	lastVL     int
	shared     bool // HW.SharedInputPointer
	best       int  // rank of the best request so far
}

func (s *simulator) newRanker(out int32) ranker {
	c := &s.chans[out]
	return ranker{out: out, nVL: s.nVL, ports: int(c.ports), lastVL: int(c.lastVL), shared: s.p.HW.SharedInputPointer, best: math.MaxInt}
}

// better reports whether packet pi, requesting on output VL ovl, beats the
// best request so far, and if so makes it the best.
func (r *ranker) better(s *simulator, ovl uint8, pi int32) bool {
	pk := &s.pkts[pi]
	inPort := int(pk.inPort)
	pv := int(ovl) // the VL whose last grant the round robin starts after
	if r.shared {
		pv = r.lastVL
	}
	last := int(s.lanes[int(r.out)*r.nVL+pv].lastIn)
	rank := (((int(ovl)-r.lastVL-1+2*r.nVL)%r.nVL)*r.ports+(inPort-last-1+2*r.ports)%r.ports)*r.nVL + int(pk.vl)
	if rank >= r.best {
		return false
	}
	r.best = rank
	return true
}

// roomAt returns the earliest instant from now on at which the output
// buffer of out has room for n flits. The crossbar has finished filling it
// (now ≥ xbarFree), and a flit leaves it when it starts onto the cable, so
// what it holds leaves back to back and the cable's last flit starts at
// linkFree−ft: at instant t it holds ⌈(linkFree−t)/ft⌉−1 flits (ft the
// channel's).
func (s *simulator) roomAt(out int32, n int32) int64 {
	return max(s.k.now, s.roomFrom(out, n))
}

// roomFrom is the instant from which the output buffer of channel c has
// room for n flits, valid for instants at or after c.xbarFree (see
// roomAt); it may lie in the past.
func (s *simulator) roomFrom(out int32, n int32) int64 {
	if s.wire {
		return s.roomFromTrains(out, n)
	}
	c := &s.chans[out]
	return c.linkFree - (s.obuf-int64(n)+1)*c.ft
}

// obTrain is a packet granted to a switch output under HW.WireBytes: its
// first flit's start onto the cable and its flits.
type obTrain struct {
	d0 int64
	n  int64
}

// roomFromTrains is roomFrom when a packet's last flit may be short
// (HW.WireBytes): the output buffer has room for n flits once the
// (obuf−n+1)-th flit from the end of what it was granted has started,
// found by walking the packets not yet wholly started from the newest
// back (their flits start ft apart within a packet). Packets whose last
// flit started before now were dropped (trainsAdd): if the walk passes
// them all, that flit started in the past.
func (s *simulator) roomFromTrains(out int32, n int32) int64 {
	q, ft := s.trains[out], s.chans[out].ft
	m := s.obuf - int64(n) + 1
	for j := len(q) - 1; j >= 0; j-- {
		if m <= q[j].n {
			return q[j].d0 + (q[j].n-m)*ft
		}
		m -= q[j].n
	}
	return math.MinInt64 / 2
}

// trainsAdd records packet pi's train on switch output out, from d0, and
// drops the packets whose last flit started before now.
func (s *simulator) trainsAdd(out int32, d0 int64, n int64) {
	q, ft, now := s.trains[out], s.chans[out].ft, s.k.now
	drop := 0
	for drop < len(q) && q[drop].d0+(q[drop].n-1)*ft < now {
		drop++
	}
	if drop > 0 {
		q = q[:copy(q, q[drop:])]
	}
	s.trains[out] = append(q, obTrain{d0: d0, n: n})
}

// grant moves the head packet of input lane in through output out on VL
// ovl, starting now; the lane's next packet competes once it has crossed.
func (s *simulator) grant(out int32, in int, ovl uint8) {
	ln := &s.lanes[in]
	pi := ln.head
	ln.head = s.pkts[pi].next
	if ln.head < 0 {
		ln.tail = -1
	}
	ln.free = s.move(out, in, pi, ovl) + s.fx
	if ln.head >= 0 {
		s.becomeHead(in)
	}
	if ln.fromDom == s.dom { // else with the credits (move)
		s.wakeSender(in, s.k.now+s.prop)
	}
}

// grantVOQ moves packet pi, its lane's oldest for output out, through out
// on VL ovl, starting now; the lane's next packet for out competes at once.
func (s *simulator) grantVOQ(out int32, pi int32, ovl uint8) {
	pk := &s.pkts[pi]
	in := s.lane(pk.ch, pk.vl)
	ln := &s.lanes[in]
	prev := int32(-1)
	for x := ln.head; x != pi; x = s.pkts[x].next {
		prev = x
	}
	next := pk.next
	if prev < 0 {
		ln.head = next
	} else {
		s.pkts[prev].next = next
	}
	if next < 0 {
		ln.tail = prev
	}
	s.move(out, in, pi, ovl)
	if n := s.oldestFor(next, out); n >= 0 {
		s.request(n)
	}
	if ln.fromDom == s.dom { // else with the credits (move)
		s.wakeSender(in, s.k.now+s.prop)
	}
}

// move sends packet pi from input lane in through output out on VL ovl,
// starting now, and returns the instant its last flit crosses. Flit k
// crosses into the output buffer when it has arrived (cut-through:
// head + k·fi, fi the input channel's flit time) and the crossbar has
// moved its predecessor (now + k·fx); it leaves the input buffer then, and
// its credit goes upstream. The earlier flits are crossbar-bound, the
// later ones arrival-bound.
func (s *simulator) move(out int32, in int, pi int32, ovl uint8) int64 {
	if s.tm != nil && s.tm.down(out, s.k.now) {
		return s.discard(out, in, pi, ovl)
	}
	c := &s.chans[out]
	pk := &s.pkts[pi]
	c.lastVL = ovl
	ol := s.lane(out, ovl)
	s.lanes[ol].lastIn = pk.inPort
	s.cr.take(&s.lanes[ol].cr, int32(pk.flits))
	c.usedVLs |= 1 << ovl
	s.res.FlitHops += int64(pk.flits)
	if s.ctr != nil {
		s.ctr.sent(out, int32(pk.flits), s.trainPs(pi, c.ft), s.k.now)
	}
	g, n, fi := s.k.now, int64(pk.flits), s.ft
	if !s.sameFt {
		fi = s.chans[pk.ch].ft
	}
	last := s.crossFrom(in, pi, fi)
	c.xbarFree = last + s.fx
	// The cable sends the output buffer back to back: the packet starts when
	// the cable has sent what is ahead of it, as one train (its flits reach
	// the buffer no later than the cable needs them). Onto a faster cable
	// than it came in on the switch stores the packet: it starts when its
	// last flit has crossed.
	d0 := max(g, c.linkFree)
	if c.ft < fi {
		d0 = max(d0, last)
	}
	c.linkFree = d0 + s.trainPs(pi, c.ft)
	if s.wire {
		s.trainsAdd(out, d0, n)
	}
	s.horizon = max(s.horizon, c.linkFree+s.prop, last+s.prop)
	pk.ch, pk.vl, pk.next = out, ovl, -1
	e := event{at: d0 + s.headDelay(c, pi) + s.prop, phase: phaseArrive, kind: evHeadArrive, node: c.to, port: c.toPort, vl: ovl, ref: pi}
	if c.toDom == s.dom {
		s.k.schedule(e)
	} else { // another domain's node: queued there at the window's end
		s.dmem.out = append(s.dmem.out, e)
	}
	return last
}

// crossFrom crosses packet pi, granted now, out of input lane in (flit
// time fi) and returns the instant its last flit crosses. Flit k crosses
// when it has arrived (head + k·fi) and the crossbar has moved its
// predecessor (now + k·fx); the earlier flits are crossbar-bound, the
// later ones arrival-bound. With HW.WireBytes (taken once fully arrived)
// a short last flit arrives early by what it lacks of fi and crosses on
// its own. Each freed place's credit goes upstream.
func (s *simulator) crossFrom(in int, pi int32, fi int64) int64 {
	pk := &s.pkts[pi]
	g, h, n := s.k.now, pk.headAt, int64(pk.flits)
	var early int64 // how much sooner than h + (n−1)·fi the last flit has arrived
	if s.wire && n > 1 && !s.p.HW.ForwardAtStart {
		early = fi - s.p.HW.LastFlitPs(fi, int(s.info[pi].lastB))
	}
	m := n // flits on the progressions
	if early > 0 {
		m = n - 1
	}
	k1 := m
	if s.fx < fi {
		k1 = min(m, (g-h)/(fi-s.fx)+1)
	}
	lastC := max(g+(m-1)*s.fx, h+(m-1)*fi)
	op := creditOp{l: int32(in), t1: g + s.prop, dt1: s.fx, n1: int32(k1),
		t2: h + k1*fi + s.prop, dt2: fi, n2: int32(m - k1), first: g + s.prop}
	if early > 0 {
		c := max(lastC+s.fx, h+(n-1)*fi-early)
		op.t3, op.dt3, op.n3 = c+s.prop, c-lastC, 1
		lastC = c
	}
	if ln := &s.lanes[in]; ln.fromDom == s.dom {
		s.releaseOp(ln, &op, g)
	} else { // the sender is another domain's: at the window's end
		s.dmem.ops = append(s.dmem.ops, op)
	}
	return lastC
}

// releaseOp queues a grant's credits for lane ln's sender (now: the
// current instant).
func (s *simulator) releaseOp(ln *lane, op *creditOp, now int64) {
	s.cr.release(&ln.cr, op.t1, op.dt1, op.n1, now)
	s.cr.release(&ln.cr, op.t2, op.dt2, op.n2, now)
	s.cr.release(&ln.cr, op.t3, op.dt3, op.n3, now)
}

// trainPs is how long packet pi takes on a cable of flit time ft: its
// flits, the last with HW.WireBytes its bytes' share of ft.
func (s *simulator) trainPs(pi int32, ft int64) int64 {
	n := int64(s.pkts[pi].flits)
	if !s.wire {
		return n * ft
	}
	return (n-1)*ft + s.p.HW.LastFlitPs(ft, int(s.info[pi].lastB))
}

// headDelay is how long after a flit starts onto channel c (before the
// cable delay) its receiver may take it: the flit time, or nothing when
// switches and sinks take flits at the start of their reception
// (HW.ForwardAtStart).
func (s *simulator) headDelay(c *channel, pi int32) int64 {
	if s.p.HW.ForwardAtStart {
		return 0
	}
	if s.wire && s.pkts[pi].flits == 1 {
		return s.trainPs(pi, c.ft) // the head is the last flit
	}
	return c.ft
}

// readyAt is when packet pk, its head at a switch, may be granted its
// output: its head routed (lat after it arrived), and with
// HW.ForwardAtStart, bound for a faster cable than it came in on, all of
// it arrived (the switch stores it).
func (s *simulator) readyAt(pi int32) int64 {
	pk := &s.pkts[pi]
	t := pk.headAt + s.lat
	if s.p.HW.ForwardAtStart && pk.out >= 0 {
		if in := s.chans[pk.ch].ft; s.chans[pk.out].ft < in {
			t = max(t, pk.headAt+s.trainPs(pi, in))
		}
	}
	return t
}
