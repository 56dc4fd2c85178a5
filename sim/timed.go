package sim

import (
	"sort"

	"flitsim/fabric"
	"flitsim/routing"
)

// timed is the fast simulator's reading of Params.Timeline (the package
// doc's "Timed events"): when each channel's cable is down, from when each
// switch holds which of its tables, and what the losses were.
type timed struct {
	// toggles[ch] are the instants at which channel ch's cable changes
	// state, the first a failure (nil: never); down at t after an odd
	// number of them at or before t.
	toggles [][]int64
	// last is the last toggle of all (pending toggles keep a frozen
	// network alive).
	last int64
	// next are the tables the writes install, lftAt[sw·blocks+b] when
	// switch sw holds next's entries of block b and vlAt[sw] its SL→VL
	// table (never: not written).
	next   *routing.Tables
	blocks int
	lftAt  []int64
	vlAt   []int64
	retry  int64
	// lost counts per job the packets its ranks sent that were lost (nil
	// without jobs); lostFlits all lost flits.
	lost      []int64
	lostFlits int64
	// resends counts the resend events queued.
	resends int
	// esc routes the packets injected in [migrate, ret) (nil: none).
	esc          *routing.Tables
	migrate, ret int64
}

// newTimed compiles a timeline that Check accepted.
func (s *simulator) newTimed(tl *Timeline, chs *fabric.Channels) *timed {
	tm := &timed{toggles: make([][]int64, len(s.chans)), next: tl.Next, retry: tl.RetryPs}
	for _, e := range tl.Links {
		for ch := range s.chans {
			if int(chs.Link(int32(ch))) == e.Link {
				tm.toggles[ch] = append(tm.toggles[ch], e.AtPs)
			}
		}
		tm.last = max(tm.last, e.AtPs)
	}
	if tl.Next != nil {
		tm.blocks = (s.t.NumLIDs + LFTBlock - 1) / LFTBlock
		tm.lftAt = make([]int64, s.net.NumSwitches*tm.blocks)
		tm.vlAt = make([]int64, s.net.NumSwitches)
		for i := range tm.lftAt {
			tm.lftAt[i] = never
		}
		for i := range tm.vlAt {
			tm.vlAt[i] = never
		}
		for _, w := range tl.Writes {
			if w.Block == SL2VLBlock {
				tm.vlAt[w.Switch] = min(tm.vlAt[w.Switch], w.AtPs)
			} else {
				i := w.Switch*tm.blocks + w.Block
				tm.lftAt[i] = min(tm.lftAt[i], w.AtPs)
			}
		}
	}
	if s.jobs != nil {
		tm.lost = make([]int64, len(s.jobs))
	}
	if tl.Escape != nil {
		tm.esc, tm.migrate, tm.ret = tl.Escape, tl.MigrateAtPs, tl.ReturnAtPs
		tm.last = max(tm.last, tm.ret)
	}
	return tm
}

// migrated reports whether a packet injected at t is routed by the
// escape tables.
func (tm *timed) migrated(t int64) bool { return tm.esc != nil && t >= tm.migrate && t < tm.ret }

// state is the migration's state at t: 0 before, 1 migrated, 2 back.
func (tm *timed) state(t int64) int8 {
	switch {
	case t < tm.migrate:
		return 0
	case t < tm.ret:
		return 1
	}
	return 2
}

// drained books one packet of HCA h delivered or lost; with a migration,
// the HCA's last one lets it decide again (it may be draining).
func (s *simulator) drained(h int32) {
	hc := &s.hcas[h]
	if hc.inflight--; hc.inflight == 0 && s.tm.esc != nil && s.tm.state(s.k.now) != hc.state {
		s.scheduleHCA(h, s.k.now)
	}
}

// injectAt gives packet pi, about to be injected by HCA hc now, the SL
// and VL of the tables that route it: the escape tables while the
// sources are migrated, the new ones once they are back, the run's
// otherwise.
func (s *simulator) injectAt(pi int32, hc *hcaDev) {
	pk, in := &s.pkts[pi], &s.info[pi]
	in.esc = s.tm.migrated(s.k.now)
	tab := s.t
	switch {
	case in.esc:
		tab = s.tm.esc
	case s.tm.esc != nil && s.tm.next != nil && s.k.now >= s.tm.ret:
		tab = s.tm.next // migrated back: the new path records
	}
	pk.sl = tab.SL(int(s.chans[hc.ch].to), pk.dstLID)
	pk.vl = tab.InjectVL(pk.sl)
}

// down reports whether channel ch's cable is down at t.
func (tm *timed) down(ch int32, t int64) bool {
	ts := tm.toggles[ch]
	n := sort.Search(len(ts), func(i int) bool { return ts[i] > t })
	return n&1 == 1
}

// port and vl are the forwarding entry and SL→VL entry switch sw holds at
// t: the run's tables' until the write of their block, then next's.
func (s *simulator) timedPort(sw int32, lid uint16, t int64) (uint8, *routing.Tables) {
	tm := s.tm
	tab := s.t
	if tm.next != nil && t >= tm.lftAt[int(sw)*tm.blocks+int(lid)/LFTBlock] {
		tab = tm.next
	}
	vt := s.t
	if tm.next != nil && t >= tm.vlAt[sw] {
		vt = tm.next
	}
	return tab.Port(int(sw), lid), vt
}

// startTimed queues the cables' state changes: at each, the channel's
// output arbitrates, so that packets waiting for it are discarded from a
// failure on and wait for credits again from a repair. At a migration's
// start and end every HCA decides: its next packet's lane changes.
func (s *simulator) startTimed() {
	for ch, ts := range s.tm.toggles {
		for _, t := range ts {
			s.k.schedule(event{at: t, phase: phaseArb, kind: evLink, ref: int32(ch), node: s.chans[ch].from})
		}
	}
	if s.tm.esc != nil {
		for h := range s.hcas {
			s.scheduleHCA(int32(h), s.tm.migrate)
			s.scheduleHCA(int32(h), s.tm.ret)
		}
	}
}

// linkChanged is a channel's cable changing state now.
func (s *simulator) linkChanged(ch int32) {
	if s.chans[ch].reqHead >= 0 {
		s.requestTry(ch, s.k.now, s.minFlits)
	}
}

// discard is move for an output whose cable is down: packet pi crosses
// from input lane in as it would (its buffer places freed and their
// credits sent upstream as it crosses) into nothing, taking no credits and
// no room, and is lost at its grant. It returns the instant its last flit
// crosses.
func (s *simulator) discard(out int32, in int, pi int32, ovl uint8) int64 {
	c := &s.chans[out]
	pk := &s.pkts[pi]
	c.lastVL = ovl
	s.lanes[s.lane(out, ovl)].lastIn = pk.inPort
	last := s.crossFrom(in, pi, s.chans[pk.ch].ft)
	c.xbarFree = last + s.fx
	s.horizon = max(s.horizon, last+s.prop)
	s.lose(pi)
	return last
}

// lose books packet pi as lost now and, with a retry timeout, queues its
// resending at its source: at the first instant after now that is at
// least the timeout after its injection.
func (s *simulator) lose(pi int32) {
	tm := s.tm
	in := &s.info[pi]
	s.inNetwork--
	s.drained(s.hcaOf[in.src])
	s.res.PacketsLost++
	tm.lostFlits += int64(s.pkts[pi].flits)
	src := s.hcaOf[in.src]
	if tm.lost != nil {
		if j := s.jobOf[src]; j >= 0 {
			tm.lost[j]++
		}
	}
	if tm.retry == 0 {
		s.freePacket(pi)
		return
	}
	tm.resends++
	at := max(in.injected+tm.retry, s.k.now+1)
	s.k.schedule(event{at: at, phase: phaseArrive, kind: evResend, node: src, ref: pi})
}

// resend queues lost packet pi again at its source HCA, among its
// responses: the same packet (kind, numbers, message, SL). Of what the
// HCA queues at one instant, the packets sent again come first, in the
// order of their last injections, then the responses formed.
func (s *simulator) resend(h int32, pi int32) {
	hc := &s.hcas[h]
	s.res.PacketsResent++
	in := &s.info[pi]
	in.queued, in.again = s.k.now, true
	s.pkts[pi].ch, s.pkts[pi].next = hc.ch, -1 // its SL and VL: injectAt
	s.info[pi].hop = 0                         // routed afresh
	if s.ad != nil {
		s.apk[pi].route = routing.Route{}
	}
	if hc.respHead > 0 && len(hc.resp) == cap(hc.resp) {
		n := copy(hc.resp, hc.resp[hc.respHead:])
		hc.resp, hc.respHead = hc.resp[:n], 0
	}
	j := len(hc.resp)
	hc.resp = append(hc.resp, pi)
	for ; j > int(hc.respHead); j-- {
		q := &s.info[hc.resp[j-1]]
		if q.queued != s.k.now || q.again && q.injected < in.injected {
			break
		}
		hc.resp[j] = hc.resp[j-1]
	}
	hc.resp[j] = pi
	s.scheduleHCA(h, s.k.now)
}
