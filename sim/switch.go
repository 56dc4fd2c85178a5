package sim

import "flitsim/routing"

// A switch, as the package doc specifies it: per input port and VL a FIFO
// input buffer (a lane of the arriving channel); per output port an
// arbiter, a crossbar path and an output buffer in front of the cable (the
// leaving channel). A packet at the head of its input buffer files a
// request with the output its forwarding table names; the output
// arbitrates among its requests whenever one may have become eligible.

// headArrive files a packet whose head has just arrived at a switch into
// its input buffer.
func (s *simulator) headArrive(pi int32) {
	pk := &s.pkts[pi]
	pk.headAt = s.k.now
	l := s.lane(pk.ch, pk.vl)
	ln := &s.lanes[l]
	pk.next = -1
	if ln.tail >= 0 {
		s.pkts[ln.tail].next = pi
		ln.tail = pi
		return
	}
	ln.head, ln.tail = pi, pi
	s.becomeHead(l)
}

// outChannel returns the channel a packet at switch sw leaves on, or -1.
func (s *simulator) outChannel(sw int32, pk *packet) int32 {
	p := s.t.Port(int(sw), pk.dstLID)
	if p == routing.NoPath || p == 0 {
		return -1
	}
	return s.portCh[s.portBase[sw]+int32(p)-1]
}

// becomeHead files the head packet of lane l as a request at its output.
func (s *simulator) becomeHead(l int) {
	ln := &s.lanes[l]
	pk := &s.pkts[ln.head]
	out := s.outChannel(s.chans[pk.ch].to, pk)
	if out < 0 {
		// No route: the packet blocks its buffer for good (a routing
		// defect; verification reports it before a run).
		return
	}
	c := &s.chans[out]
	ln.reqNext = c.reqHead
	c.reqHead = int32(l)
	s.requestTry(out, max(s.k.now, s.ready(l)))
}

// ready is when the head packet of lane l may cross the crossbar: its head
// has been routed and the buffer's previous packet has crossed.
func (s *simulator) ready(l int) int64 {
	ln := &s.lanes[l]
	return max(s.pkts[ln.head].headAt+s.lat, ln.free)
}

// requestTry makes output out arbitrate at t, unless it already will
// earlier.
func (s *simulator) requestTry(out int32, t int64) {
	c := &s.chans[out]
	if t >= c.tryAt {
		return
	}
	c.tryAt = t
	s.k.schedule(event{at: t, phase: phaseArb, kind: evTryOut, ref: out, node: c.from})
}

// arbitrate grants output out to one eligible request, if any: the next VL
// after the one granted last (fair share), then the next input port after
// the one granted last on that VL (round robin). If none is eligible it
// arranges to try again at the earliest instant one may be.
func (s *simulator) arbitrate(out int32) {
	c := &s.chans[out]
	now := s.k.now
	if now < c.xbarFree {
		s.requestTry(out, c.xbarFree)
		return
	}
	sw := c.from
	outPort := int(c.fromPort)
	radix := s.net.Nodes[sw].Radix
	wake := never
	best, bestVL, bestPrev := int32(-1), -1, int32(-1)
	bestRank, bestInRank := s.nVL+1, 1<<30
	prev := int32(-1)
	for r := c.reqHead; r >= 0; prev, r = r, s.lanes[r].reqNext {
		l := int(r)
		pk := &s.pkts[s.lanes[l].head]
		if t := s.ready(l); t > now {
			wake = min(wake, t)
			continue
		}
		if t := s.roomAt(out, pk.flits); t > now {
			wake = min(wake, t)
			continue
		}
		inPort := int(s.chans[pk.ch].toPort)
		ovl := s.t.VL(int(sw), inPort, outPort, pk.sl)
		ol := s.lane(out, ovl)
		if !s.cr.has(ol, pk.flits, now) {
			if t := s.creditsAt(ol, pk.flits); t != never {
				wake = min(wake, t)
			}
			continue
		}
		rank := (int(ovl) - int(c.lastVL) - 1 + 2*s.nVL) % s.nVL
		// Then the input port after the last granted on that VL, then
		// the lower input VL.
		inRank := ((inPort-int(s.lanes[ol].lastIn)-1+2*(radix+1))%(radix+1))*s.nVL + l%s.nVL
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
	if bestPrev >= 0 {
		s.lanes[bestPrev].reqNext = s.lanes[best].reqNext
	} else {
		c.reqHead = s.lanes[best].reqNext
	}
	s.grant(out, int(best), uint8(bestVL))
	if c.reqHead >= 0 {
		s.requestTry(out, c.xbarFree)
	}
}

// roomAt returns the earliest instant from now on at which the output
// buffer of out has room for n flits. The crossbar has finished filling it
// (now ≥ xbarFree), and a flit leaves it when it starts onto the cable, so
// what it holds leaves back to back and the cable's last flit starts at
// linkFree−ft: at instant t it holds ⌈(linkFree−t)/ft⌉−1 flits.
func (s *simulator) roomAt(out int32, n int32) int64 {
	return max(s.k.now, s.chans[out].linkFree-(s.obuf-int64(n)+1)*s.ft)
}

// grant moves the head packet of input lane in through output out on VL
// ovl, starting now.
func (s *simulator) grant(out int32, in int, ovl uint8) {
	c := &s.chans[out]
	ln := &s.lanes[in]
	pi := ln.head
	pk := &s.pkts[pi]
	now := s.k.now
	c.lastVL = ovl
	ol := s.lane(out, ovl)
	s.lanes[ol].lastIn = s.chans[pk.ch].toPort
	s.cr.take(ol, pk.flits)
	s.res.FlitHops += int64(pk.flits)
	// Flit k crosses into the output buffer when it has arrived (cut-through:
	// head + k·ft) and the crossbar has moved its predecessor (now + k·fx);
	// it leaves the input buffer then, and its credit goes upstream. The
	// earlier flits are crossbar-bound, the later ones arrival-bound.
	g, h, n := now, pk.headAt, int64(pk.flits)
	k1 := n
	if s.fx < s.ft {
		k1 = min(n, (g-h)/(s.ft-s.fx)+1)
	}
	s.cr.release(in, g+s.prop, s.fx, int32(k1))
	s.cr.release(in, h+k1*s.ft+s.prop, s.ft, int32(n-k1))
	last := max(g+(n-1)*s.fx, h+(n-1)*s.ft)
	c.xbarFree = last + s.fx
	ln.free = last + s.fx
	// The cable sends the output buffer back to back: the packet starts when
	// the cable has sent what is ahead of it, as one train (its flits reach
	// the buffer no later than the cable needs them).
	d0 := max(g, c.linkFree)
	c.linkFree = d0 + n*s.ft
	s.horizon = max(s.horizon, c.linkFree+s.prop, last+s.prop)
	ln.head = pk.next
	if pk.next < 0 {
		ln.tail = -1
	}
	pk.ch, pk.vl, pk.next = out, ovl, -1
	s.k.schedule(event{at: d0 + s.ft + s.prop, phase: phaseArrive, kind: evHeadArrive, node: c.to, port: c.toPort, vl: ovl, ref: pi})
	if ln.head >= 0 {
		s.becomeHead(in)
	}
	s.wakeSender(in)
}
