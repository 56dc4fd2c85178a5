package sim

import (
	"math/rand/v2"

	"flitsim/fabric/invariants"
	"flitsim/routing"
	"flitsim/traffic"
)

// hcaDev is one HCA: an open-loop message source that injects packets in
// order under credits (and a NIC window, with responses), and a sink that
// consumes flits through a host bus with PCIe hiccups.
type hcaDev struct {
	node int32 // node index
	idx  int32 // terminal index in the traffic pattern
	ch   int32 // channel HCA → switch
	rng  *rand.Rand
	// routeRng draws the adaptive routes' candidates (nil: tables), and
	// respRng those of its responses.
	routeRng, respRng *rand.Rand
	// With a NIC window: the responses waiting to be sent, oldest first
	// (resp[respHead:]), and the packets of messages injected whose
	// responses have not arrived.
	resp        []int32
	respHead    int32
	outstanding int32
	// source
	msgT    int64 // creation instant of the current message
	msgLeft int32 // payload bytes of the current message not yet in packets
	msgDst  int32
	msgTag  int64
	msgSeq  int64 // messages created, the current one's number
	msgPkts int32 // packets the current message is cut into
	msgGet  bool  // the current message goes as a rendezvous (an RTS)
	// Application-aware routing (nil: off): the rank's state, the current
	// message's payload bytes and flits, and its mode + 1 once chosen (0:
	// not yet).
	aa       *AppAware
	msgBytes int32
	msgFlits int64
	msgMode  int8
	pktSeq   int64
	pending  int32 // the next packet, formed but not injected, or -1
	done     bool  // the source has no more messages
	// later: the source's last answer was traffic.Later, so it is asked
	// again at a scheduled instant and may create a message then.
	later bool
	sent  int64 // payload bytes of the messages created
	// doneAt is when its last counted message was delivered (0: none).
	doneAt int64
	// With a migration (Timeline.Escape): the packets it injected that
	// are neither delivered nor lost, and the tables state (0 base, 1
	// escape, 2 back) of its last injection.
	inflight int32
	state    int8
	// sink
	sinkFree int64      // the host bus finishes its last flit
	phase    int64      // hiccup phase offset
	payload  int64      // payload bytes delivered here
	window   [2]float64 // payload delivered in the open sample window and the next
	n        int        // samples taken
	mean, m2 float64    // Welford's running mean and squared deviations (GB/s)
	steady   bool
}

// ---------------------------------------------------------------- source

func (s *simulator) scheduleHCA(h int32, at int64) {
	s.k.schedule(event{at: at, phase: phaseArb, kind: evTryHCA, node: h})
}

// nextPacket forms the HCA's next packet, or returns -1 when it has none
// (the source is done, or waits for a delivery to this HCA). The packet may
// belong to a message whose creation instant is still ahead: it waits for
// it before injection (the draws come in the same order either way).
func (s *simulator) nextPacket(hc *hcaDev) int32 {
	if hc.pending >= 0 {
		return hc.pending
	}
	if hc.msgLeft == 0 {
		if hc.done {
			return -1
		}
		m, st := s.src.Next(int(hc.idx), s.k.now, hc.rng)
		hc.later = st == traffic.Later
		switch st {
		case traffic.Done:
			hc.done = true
			return -1
		case traffic.Waiting:
			return -1 // delivered wakes the HCA
		case traffic.Later:
			// Asked again then (or when a delivery wakes it before); a
			// repeated answer schedules a wake-up more, which finds the
			// packet formed or asks again.
			s.scheduleHCA(hc.idx, m.At)
			return -1
		}
		hc.msgDst = int32(s.net.NumSwitches + m.Dst) // terminals are the HCAs in node order
		hc.msgLeft = int32(m.Bytes)
		hc.msgT = m.At
		hc.msgTag = m.Tag
		hc.msgSeq++
		hc.msgPkts = int32((m.Bytes + s.p.HW.MTU - 1) / s.p.HW.MTU)
		hc.msgGet = m.Get
		hc.sent += int64(m.Bytes)
		if hc.aa != nil {
			hc.msgBytes, hc.msgMode = int32(m.Bytes), 0
			hc.msgFlits = MessageFlits(s.p.HW, m.Bytes)
		}
	}
	payload := min(hc.msgLeft, int32(s.p.HW.MTU))
	flits, kind := s.p.HW.PacketFlits(int(payload)), kindData
	if hc.msgGet { // the whole message goes as one RTS, its payload field the message's bytes
		payload, flits, kind = hc.msgLeft, s.p.HW.ResponseFlits(), kindRTS
	}
	hc.msgLeft -= payload
	i := s.newPacket()
	lid := s.lids[hc.msgDst-int32(s.net.NumSwitches)]
	sl := s.t.SL(int(s.chans[hc.ch].to), lid)
	hc.pktSeq++
	s.pkts[i] = packet{dstLID: lid, sl: sl, vl: s.t.InjectVL(sl), flits: uint16(flits), next: -1}
	s.minFlits = min(s.minFlits, int32(s.pkts[i].flits))
	s.info[i] = packetInfo{seq: hc.pktSeq, src: hc.node, dst: hc.msgDst, payload: payload, lastB: s.lastFlitBytes(kind, payload), last: hc.msgLeft == 0, tag: hc.msgTag, kind: kind,
		msg: hc.msgSeq, msgPkts: hc.msgPkts}
	if s.ad != nil {
		// Its candidates are drawn now, from the HCA's own route stream:
		// when and in which order the switches decide cannot change them.
		s.drawRoute(i, hc, hc.msgDst, hc.pktSeq, hc.routeRng)
		s.apk[i].msgSeq, s.apk[i].msgPkts = hc.msgSeq, hc.msgPkts
	}
	if kind == kindRTS {
		hc.pktSeq += int64(hc.msgPkts) - 1 // the message's numbers q..q+P−1
	}
	hc.pending = i
	return i
}

// nextToSend returns the packet HCA hc sends next and whether it is a
// response: its oldest response if it has one, else, while the NIC window
// has room, its next packet of a message (nextPacket); -1 if neither.
func (s *simulator) nextToSend(hc *hcaDev) (int32, bool) {
	if int(hc.respHead) < len(hc.resp) {
		return hc.resp[hc.respHead], true
	}
	if w := s.p.HW.NICWindow; w > 0 && int(hc.outstanding) >= w {
		return -1, false
	}
	return s.nextPacket(hc), false
}

// tryInject starts the HCA's next packet (nextToSend) if it exists (its
// message or it has been created), the link is free and the switch has
// room for the whole packet; otherwise it arranges to try again when that
// can change.
func (s *simulator) tryInject(h int32) {
	hc := &s.hcas[h]
	now := s.k.now
	c := &s.chans[hc.ch]
	if now < c.linkFree {
		return // a try is already queued for when the link frees
	}
	pi, resp := s.nextToSend(hc)
	if pi < 0 {
		return // a delivery or a response wakes it
	}
	if !resp && hc.msgT > now { // the message is not created yet
		s.scheduleHCA(h, hc.msgT)
		return
	}
	if s.tm != nil && s.tm.esc != nil {
		if st := s.tm.state(now); st != hc.state {
			if hc.inflight > 0 {
				return // draining: the last delivery or loss wakes it
			}
			hc.state = st
		}
	}
	if s.tm != nil && (s.tm.esc != nil || s.info[pi].again) {
		s.injectAt(pi, hc)
	}
	pk := &s.pkts[pi]
	l := s.lane(hc.ch, pk.vl)
	if s.voq {
		s.lanes[l].blocked, s.lanes[l].wakeAt = 0, never // noted again below while still short
		s.chans[hc.ch].blockedVLs &^= 1 << pk.vl
	}
	if !s.cr.has(&s.lanes[l].cr, int32(pk.flits), now) {
		if t := s.creditsAt(l, int32(pk.flits)); t != never {
			s.scheduleHCA(h, t)
		}
		if s.ctr != nil {
			s.ctr.stallFrom(hc.ch, now) // ready, its link idle: stalled until it goes
		}
		return
	}
	s.cr.take(&s.lanes[l].cr, int32(pk.flits))
	s.chans[hc.ch].usedVLs |= 1 << (l % s.nVL)
	stalledBefore := int64(0)
	kind := s.info[pi].kind
	if s.ctr != nil {
		stalledBefore = s.ctr.ch[hc.ch].stalled
		s.ctr.sent(hc.ch, int32(pk.flits), s.trainPs(pi, s.chans[hc.ch].ft), now)
		if kind.response() {
			s.ctr.respFlits[h] += int64(pk.flits)
			s.ctr.respPkts[h]++
		}
	}
	if resp {
		if hc.respHead++; int(hc.respHead) == len(hc.resp) {
			hc.resp, hc.respHead = hc.resp[:0], 0 // reuse the queue's storage
		}
	} else {
		hc.pending = -1
		if s.p.HW.NICWindow > 0 {
			hc.outstanding++
		}
		if hc.aa != nil {
			if hc.msgMode == 0 { // the message's first packet: choose its mode
				cc := &s.ctr.ch[hc.ch]
				m := hc.aa.Choose(s.aaP, now, int64(hc.msgBytes), int64(hc.msgPkts), hc.msgFlits,
					cc.stalled, cc.flits-int64(pk.flits)-s.ctr.respFlits[h])
				hc.msgMode = int8(m) + 1
			}
			s.apk[pi].mode = hc.msgMode
		}
	}
	if s.ctr != nil && s.ctr.ser != nil {
		if j := s.seriesJob(h); j >= 0 {
			s.ctr.ser.Stalled(j, now, s.ctr.ch[hc.ch].stalled-stalledBefore)
			if !kind.response() {
				s.ctr.ser.Sent(j, now, int64(pk.flits), s.ad != nil && s.mode(&s.apk[pi]) == routing.ModeUGALHigh)
			}
		}
	}
	s.info[pi].injected = now
	if s.tm != nil {
		hc.inflight++
	}
	if s.firstInject < 0 {
		s.firstInject = now
	}
	s.inNetwork++
	s.res.FlitsInjected += int64(pk.flits)
	s.res.FlitHops += int64(pk.flits)
	c.linkFree = now + s.trainPs(pi, c.ft)
	s.horizon = max(s.horizon, c.linkFree+s.prop)
	pk.ch = hc.ch
	s.k.schedule(event{at: now + s.headDelay(c, pi) + s.prop, phase: phaseArrive, kind: evHeadArrive, node: c.to, port: c.toPort, vl: pk.vl, ref: pi})
	s.scheduleHCA(h, c.linkFree)
}

// ---------------------------------------------------------------- sink

// serve returns when the host bus finishes work ps of consumption started
// at t, pausing during the HCA's PCIe hiccups.
func (s *simulator) serve(hc *hcaDev, t, work int64) int64 {
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

// consume takes a packet whose head has just arrived at HCA hc: flit k
// arrives at now + k·ft (its channel's) and is consumed when it has arrived and the bus is
// free; each consumed flit's credit reaches the sender one cable later.
// The packet is delivered when its last flit is done.
//
// The loop runs once per flit, so it avoids serve's division while a flit
// ends before the next hiccup, and hands the credits back in runs of flits
// done pf apart rather than one by one.
func (s *simulator) consume(hc *hcaDev, pi int32) {
	pk := &s.pkts[pi]
	invariants.Checkf(s.info[pi].dst == hc.node, "packet %d for %d delivered to %d", s.info[pi].seq, s.info[pi].dst, hc.node)
	l := s.lane(pk.ch, pk.vl)
	pf, P, H := s.pcieFt, s.p.HW.HiccupPeriodPs, s.p.HW.HiccupPs
	ft := s.chans[pk.ch].ft
	done := hc.sinkFree
	nextH := int64(-1)                      // the next hiccup starts here, none since nextH−P+H; -1 unknown
	var runT0, runN int64                   // credits arriving at runT0, runT0+pf, …
	first := int64(-1)                      // the first of them
	fas := s.p.HW.ForwardAtStart && pf < ft // a flit may not be done before it has fully arrived
	n := int64(pk.flits)
	// Flits before the last (all of them without wire bytes) that have
	// arrived by the time the bus is free for them are consumed back to
	// back, pf apart, until the next hiccup: when the bus is no faster
	// than the cable (pf ≥ ft: every later flit has arrived by then too)
	// they are taken as one block, as the loop would take them one by one.
	plain := n
	if s.wire {
		plain = n - 1
	}
	block := pf >= ft && !fas
	for k, arr := int64(0), s.k.now; k < n; {
		m := int64(0) // flits taken this step, the first one's credit at c
		if block && k < plain && arr <= done && (H == 0 || nextH >= 0 && done >= nextH-P+H) {
			m = plain - k
			if H != 0 {
				m = min(m, (nextH-done)/pf)
			}
		}
		var c int64
		if m > 0 {
			c = done + pf + s.prop
			done += m * pf
		} else {
			m = 1
			work, a, dur := pf, arr, ft
			if s.wire && k == n-1 {
				// Its last flit takes its bytes' share of the cable's and the
				// bus' flit times; taken once fully arrived, it has arrived
				// that much sooner (unless it is also the head).
				lb := int(s.info[pi].lastB)
				work, dur = s.p.HW.LastFlitPs(pf, lb), s.p.HW.LastFlitPs(ft, lb)
				if !s.p.HW.ForwardAtStart && n > 1 {
					a -= ft - dur
				}
			}
			t := max(a, done)
			if fas || s.wire && s.p.HW.ForwardAtStart && work < dur {
				t = max(t, a+dur-work)
			}
			if H == 0 || (t+work <= nextH && t >= nextH-P+H) {
				done = t + work
			} else if t < nextH && t >= nextH-P+H && t+work+H < nextH+P {
				// It starts in the window before the next hiccup and ends in
				// the one after it: serve's answer without its division.
				done, nextH = t+work+H, nextH+P
			} else {
				done = s.serve(hc, t, work)
				off := (done - hc.phase) % P
				if off < 0 {
					off += P
				}
				nextH = done - off + P
			}
			c = done + s.prop
		}
		if runN > 0 && c == runT0+runN*pf {
			runN += m
		} else {
			s.cr.release(&s.lanes[l].cr, runT0, pf, int32(runN), s.k.now)
			runT0, runN = c, m
			if first < 0 {
				first = c
			}
		}
		k, arr = k+m, arr+m*ft
	}
	s.cr.release(&s.lanes[l].cr, runT0, pf, int32(runN), s.k.now)
	hc.sinkFree = done
	s.horizon = max(s.horizon, done+s.prop)
	s.k.schedule(event{at: done, phase: phaseArrive, kind: evDone, node: hc.idx, ref: pi})
	s.wakeSender(l, first)
}

// lastFlitBytes is how many bytes the last flit of a packet of this kind
// and payload field holds: a message's packet (a PUT's or a GET's data)
// carries its payload and headers, every other kind its headers alone
// (an RTS's payload field is its message's bytes).
func (s *simulator) lastFlitBytes(kind pktKind, payload int32) int32 {
	if kind == kindData || kind == kindGetData {
		return int32(s.p.HW.LastFlitBytes(int(payload)))
	}
	return int32(s.p.HW.LastFlitBytes(0))
}

// respond queues HCA hc's acknowledgement of the packet from node src it
// has just received: a packet of HW.ResponseFlits() flits, routed like any
// other, its adaptive candidates drawn now from hc's response stream.
func (s *simulator) respond(hc *hcaDev, src int32) {
	i := s.queueResponse(hc, src, s.p.HW.ResponseFlits(), packetInfo{last: true, kind: kindAck}, 0)
	if s.ad != nil {
		s.apk[i].msgPkts = 1
	}
}

// queueResponse forms a packet of flits flits from HCA hc to node dst
// described by in (its source and destination set here), draws its
// adaptive route now from hc's response stream (addr: its number for a
// hashing mode), and queues it among hc's responses.
func (s *simulator) queueResponse(hc *hcaDev, dst int32, flits int, in packetInfo, addr int64) int32 {
	i := s.newPacket()
	lid := s.lids[dst-int32(s.net.NumSwitches)]
	sl := s.t.SL(int(s.chans[hc.ch].to), lid)
	s.pkts[i] = packet{dstLID: lid, sl: sl, vl: s.t.InjectVL(sl), flits: uint16(flits), next: -1}
	s.minFlits = min(s.minFlits, int32(flits))
	in.src, in.dst, in.queued = hc.node, dst, s.k.now
	in.lastB = s.lastFlitBytes(in.kind, in.payload)
	s.info[i] = in
	if s.ad != nil {
		s.drawRoute(i, hc, dst, addr, hc.respRng)
	}
	if hc.respHead > 0 && len(hc.resp) == cap(hc.resp) {
		// Drop the sent ones before growing: a queue that never drains
		// keeps at most twice what it holds.
		n := copy(hc.resp, hc.resp[hc.respHead:])
		hc.resp, hc.respHead = hc.resp[:n], 0
	}
	hc.resp = append(hc.resp, i)
	s.scheduleHCA(hc.idx, s.k.now)
	return i
}

// getRequests queues at HCA hc, which has just received the RTS pi, the
// GET requests for its message's packets, in packet order.
func (s *simulator) getRequests(hc *hcaDev, pi int32) {
	rts := s.info[pi]
	var msgSeq int64
	var mode int8
	pkts := s.rtsPackets(pi)
	if s.ad != nil {
		msgSeq, mode = s.apk[pi].msgSeq, s.apk[pi].mode
	}
	left := rts.payload
	for k := range pkts {
		b := min(left, int32(s.p.HW.MTU))
		left -= b
		in := packetInfo{seq: rts.seq + int64(k), tag: rts.tag, payload: b, last: k == pkts-1, kind: kindGetReq, msgMode: mode,
			msg: rts.msg, msgPkts: pkts}
		i := s.queueResponse(hc, rts.src, s.p.HW.ResponseFlits(), in, 0)
		if s.ad != nil {
			s.apk[i].msgSeq, s.apk[i].msgPkts = msgSeq, pkts
		}
	}
}

// rtsPackets returns the packets of the message of RTS pi (its payload
// field holds the message's bytes).
func (s *simulator) rtsPackets(pi int32) int32 {
	return (s.info[pi].payload + int32(s.p.HW.MTU) - 1) / int32(s.p.HW.MTU)
}

// getData queues at HCA hc, which has just received the GET request pi,
// the data response it asks for: a packet of its message.
func (s *simulator) getData(hc *hcaDev, pi int32) {
	req := s.info[pi]
	var msgSeq int64
	var pkts int32
	if s.ad != nil {
		msgSeq, pkts = s.apk[pi].msgSeq, s.apk[pi].msgPkts
	}
	in := packetInfo{seq: req.seq, tag: req.tag, payload: req.payload, last: req.last, kind: kindGetData, msg: req.msg, msgPkts: req.msgPkts}
	i := s.queueResponse(hc, req.src, s.p.HW.PacketFlits(int(req.payload)), in, req.seq)
	if s.ad != nil {
		s.apk[i].msgSeq, s.apk[i].msgPkts, s.apk[i].mode = msgSeq, pkts, req.msgMode
	}
}

// drawRoute sets the adaptive state of packet i, which HCA hc sends to
// node dst: its source and destination switches, its job, and its
// candidates drawn from rng, or in a hashing mode its one route hashed
// from the pair and addr (the packet's number at hc; 0 for a response);
// with a spreading Dragonfly every route's Spread hashed from the same.
func (s *simulator) drawRoute(i int32, hc *hcaDev, dst int32, addr int64, rng *rand.Rand) {
	ap := &s.apk[i]
	*ap = adaptivePacket{srcSw: s.chans[hc.ch].to, dstSw: s.hcaSw[s.hcaOf[dst]], job: -1}
	if s.jobOf != nil {
		ap.job = s.jobOf[hc.idx]
	}
	if ap.srcSw == ap.dstSw {
		return
	}
	src, to := int(hc.idx), int(s.hcaOf[dst])
	m := s.mode(ap)
	if m.Hashing() {
		ap.cands[0] = s.ad.Hashed(m, int(ap.srcSw), int(ap.dstSw), routing.HashKey(m, src, to, addr))
		ap.ncand = 1
	} else {
		ap.ncand = uint8(len(s.ad.Candidates(int(ap.srcSw), int(ap.dstSw), rng, ap.cands[:0])))
	}
	if s.ad.Spread {
		sp := routing.SpreadKey(routing.HashKey(routing.SpreadMode(m), src, to, addr))
		for k := range ap.ncand {
			ap.cands[k].Spread = sp
		}
	}
}

// messageDone reports whether packet pk, delivered now, completes its
// message. Packets of one message take one path in order unless routed
// adaptively or resent; then they may overtake each other, and the
// message is done when the last of its packets to arrive is.
func (s *simulator) messageDone(pi int32) bool {
	in := &s.info[pi]
	if s.msgArrived == nil || in.msgPkts <= 1 {
		return in.last
	}
	k := msgKey{in.src, in.msg}
	n := s.msgArrived[k] + 1
	if n < in.msgPkts {
		s.msgArrived[k] = n
		return false
	}
	delete(s.msgArrived, k)
	return true
}

// delivered books a packet whose last flit is consumed now.
func (s *simulator) delivered(hc *hcaDev, pi int32) {
	pk, in := &s.pkts[pi], &s.info[pi]
	now := s.k.now
	s.inNetwork--
	if s.tm != nil {
		s.drained(s.hcaOf[in.src])
	}
	switch in.kind {
	case kindAck:
		// An acknowledgement frees a place in the window; it is no message.
		s.res.FlitsConsumed += int64(pk.flits)
		hc.outstanding--
		s.freePacket(pi)
		s.scheduleHCA(hc.idx, now)
		return
	case kindRTS:
		s.res.FlitsConsumed += int64(pk.flits)
		if s.p.HW.NICWindow > 0 {
			s.respond(hc, in.src)
		}
		s.getRequests(hc, pi)
		s.freePacket(pi)
		return
	case kindGetReq:
		s.res.FlitsConsumed += int64(pk.flits)
		s.getData(hc, pi)
		s.freePacket(pi)
		return
	case kindData:
		if s.p.HW.NICWindow > 0 {
			s.respond(hc, in.src)
			pk, in = &s.pkts[pi], &s.info[pi] // respond may have grown the slabs
		}
	}
	s.payload += int64(in.payload)
	hc.payload += int64(in.payload)
	s.res.Packets++
	s.res.FlitsConsumed += int64(pk.flits)
	s.lastDone = max(s.lastDone, now)
	if s.ctr != nil {
		src := s.hcaOf[in.src]
		s.ctr.hist[src].Add(now - in.injected)
		if a := s.hcas[src].aa; a != nil {
			a.Delivered(now, now-in.injected)
		}
		if ser := s.ctr.ser; ser != nil {
			if j := s.seriesJob(src); j >= 0 {
				ser.Delivered(j, now, now-in.injected)
			}
		}
	}
	if s.messageDone(pi) {
		s.res.Messages++
		src := s.hcaOf[in.src]
		if s.jobs != nil {
			s.jobMsgs[s.jobOf[src]]++
			s.jobLast[s.jobOf[src]] = now
		}
		if s.src.Counted(int(src)) {
			s.countedDone++
			if s.par == nil {
				s.hcas[src].doneAt = now
			} else { // src may be another domain's: booked at the barrier
				s.dmem.done = append(s.dmem.done, doneRec{src, now})
			}
		}
		m := traffic.Msg{Dst: int(hc.idx), Tag: in.tag}
		if s.src.Delivered(int(src), m, now) {
			s.scheduleHCA(hc.idx, now)
		}
	}
	if s.steadyMode() {
		s.steady.book(hc, now, in.payload, s.p.SampleWindow)
	}
	if s.p.Record {
		s.res.Deliveries = append(s.res.Deliveries, Delivery{Src: in.src, Dst: in.dst, Seq: in.seq, Bytes: in.payload, InjectedPs: in.injected, DonePs: now})
	}
	s.freePacket(pi)
	if s.par == nil && s.counted > 0 && s.countedDone == s.counted {
		// What else happens at this instant still counts (infinite jobs
		// beside, responses), whatever order the instant's events take.
		s.k.endAt = now
	}
}
