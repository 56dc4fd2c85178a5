package reference

import (
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// timeline is the reference's reading of Params.Timeline (sim/doc.go,
// "Timed events"), written apart from the fast simulator's.
type timeline struct {
	// changes lists, per sending port of a cable that fails, the instants
	// at which the cable changes state (the first a failure).
	changes map[*port][]int64
	// next: the tables the writes install; written[(switch, block)] the
	// first write of a forwarding block, sl2vl[switch] of the SL→VL table.
	next    *routing.Tables
	written map[[2]int]int64
	sl2vl   map[int]int64
	retry   int64
	// lostPackets, resent and lostFlits count losses; lostByJob per job.
	lostPackets, resent, lostFlits int64
	lostByJob                      []int64
	// escape routes the packets injected in [migrate, back) (nil: none).
	escape        *routing.Tables
	migrate, back int64
}

// setTimeline reads p.Timeline (checked by sim.Timeline.Check) and queues
// the cables' state changes.
func (s *simulator) setTimeline() error {
	tl := s.p.Timeline
	if tl.Empty() {
		return nil
	}
	if err := tl.Check(s.net, s.tab, s.p.HW); err != nil {
		return err
	}
	s.tl = &timeline{changes: map[*port][]int64{}, next: tl.Next, written: map[[2]int]int64{}, sl2vl: map[int]int64{}, retry: tl.RetryPs}
	for _, e := range tl.Links {
		l := s.net.Links[e.Link]
		for _, end := range []fabric.End{l.A, l.B} {
			o := s.ports[end.Node][end.Port]
			s.tl.changes[o] = append(s.tl.changes[o], e.AtPs)
			s.post(event{t: e.AtPs, kind: evLink, port: o})
		}
	}
	for _, w := range tl.Writes {
		if w.Block == sim.SL2VLBlock {
			if t, ok := s.tl.sl2vl[w.Switch]; !ok || w.AtPs < t {
				s.tl.sl2vl[w.Switch] = w.AtPs
			}
			continue
		}
		k := [2]int{w.Switch, w.Block}
		if t, ok := s.tl.written[k]; !ok || w.AtPs < t {
			s.tl.written[k] = w.AtPs
		}
	}
	if s.jobs != nil {
		s.tl.lostByJob = make([]int64, len(s.jobs))
	}
	if tl.Escape != nil {
		s.tl.escape, s.tl.migrate, s.tl.back = tl.Escape, tl.MigrateAtPs, tl.ReturnAtPs
		for _, t := range []int64{tl.MigrateAtPs, tl.ReturnAtPs} {
			s.post(event{t: t, kind: evMigrate})
		}
	}
	return nil
}

// source is the tables that give a packet injected at t its SL: the
// escape tables (its routes too) while the sources are migrated, the new
// tables after, the run's before.
func (s *simulator) source(t int64) *routing.Tables {
	if s.tl == nil || s.tl.escape == nil || t < s.tl.migrate {
		return s.tab
	}
	if t < s.tl.back {
		return s.tl.escape
	}
	if s.tl.next != nil { // back from the escape tables with new path records
		return s.tl.next
	}
	return s.tab
}

// dead reports whether the cable of sending port o is down at t: it has
// changed state an odd number of times by then.
func (s *simulator) dead(o *port, t int64) bool {
	if s.tl == nil {
		return false
	}
	n := 0
	for _, c := range s.tl.changes[o] {
		if c <= t {
			n++
		}
	}
	return n%2 == 1
}

// lft and sl2vlTab are the tables whose forwarding entry for lid, and
// whose SL→VL table, switch sw holds now.
func (s *simulator) lft(sw int, lid uint16) *routing.Tables {
	if s.tl != nil && s.tl.next != nil {
		if t, ok := s.tl.written[[2]int{sw, int(lid) / sim.LFTBlock}]; ok && s.now >= t {
			return s.tl.next
		}
	}
	return s.tab
}

func (s *simulator) sl2vlTab(sw int) *routing.Tables {
	if s.tl != nil && s.tl.next != nil {
		if t, ok := s.tl.sl2vl[sw]; ok && s.now >= t {
			return s.tl.next
		}
	}
	return s.tab
}

// lose books packet p, granted a dead cable now, as lost, and with a retry
// timeout queues it again at its source at the first instant after now
// that is the timeout after its injection.
func (s *simulator) lose(p *packet) {
	s.inFlight--
	s.settled(p)
	s.tl.lostPackets++
	if s.tl.lostByJob != nil {
		if j := traffic.JobOf(s.src, p.srcNode-s.net.NumSwitches); j >= 0 {
			s.tl.lostByJob[j]++
		}
	}
	if s.tl.retry > 0 {
		s.post(event{t: max(p.injected+s.tl.retry, s.now+1), kind: evResend, h: &hop{p: p}})
	}
}

// resend queues lost packet p again among its source's responses: ahead
// of the responses formed at this instant and of the packets queued again
// at this instant that were injected after it.
func (s *simulator) resend(p *packet) {
	h := s.hcaAt(p.srcNode)
	s.tl.resent++
	at := len(h.resp)
	for at > 0 {
		q := h.resp[at-1]
		if q.created < s.now || q.again && q.injected < p.injected {
			break
		}
		at--
	}
	p.again, p.created = true, s.now
	p.hops, p.route = 0, routing.Route{} // routed afresh
	h.resp = append(h.resp[:at], append([]*packet{p}, h.resp[at:]...)...)
	s.postDecideHCA(h, s.now)
}

// stateAt is the migration's state at t: 0 before it (or without one), 1
// migrated, 2 back.
func (s *simulator) stateAt(t int64) int {
	switch {
	case s.tl == nil || s.tl.escape == nil || t < s.tl.migrate:
		return 0
	case t < s.tl.back:
		return 1
	}
	return 2
}

// draining reports whether h, about to inject at t in another migration
// state than its last injection's, still has packets in flight (it
// drains its send queue first).
func (s *simulator) draining(h *hca, t int64) bool {
	return s.tl != nil && s.tl.escape != nil && h.inflight > 0 && s.stateAt(t) != h.state
}

// settled books packet p delivered or lost at its source; a source that
// was draining decides again.
func (s *simulator) settled(p *packet) {
	if s.tl == nil {
		return
	}
	h := s.hcaAt(p.srcNode)
	h.inflight--
	if h.inflight == 0 && s.stateAt(s.now) != h.state {
		s.postDecideHCA(h, s.now)
	}
}
