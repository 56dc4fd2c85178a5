package reference

import "flitsim/sim"

// Counters (Params.Counters), read off the model as the specification
// defines them: a channel is stalled while its cable is idle and a packet
// ready for it (as far as time and the output buffer go) lacks the
// credits to go; the stall ends with the channel's next grant.

// stallAt opens a stall of o's cable at t, unless one is open.
func (o *port) stallAt(t int64) {
	if !o.stalling {
		o.stalling, o.stallFrom = true, t
	}
}

// sent counts a packet of f flits granted o's cable at t, taking busy on
// it; it ends a stall (one opened for after t was none).
func (o *port) sent(f int, busy, t int64) {
	o.sentFlits += int64(f)
	o.sentPackets++
	o.sentPs += busy
	o.endStall(t)
}

func (o *port) endStall(t int64) {
	if o.stalling {
		o.stalled += max(0, t-o.stallFrom)
		o.stalling = false
	}
}

// noteStall: switch output o granted nothing now. If its crossbar path is
// free and a candidate is ready, has room in the output buffer and lacks
// only credits, its cable stalls from the instant it has sent what the
// output buffer holds.
func (s *simulator) noteStall(o *port) {
	t := s.now
	if t < o.xbar {
		return
	}
	for _, b := range o.cand {
		h := s.candHop(b, o)
		f := h.p.flits
		if t < s.headReady(h) || (!s.voq && t < b.free) || o.held+f > s.obuf {
			continue
		}
		if o.credits[h.outVL] < s.creditsNeeded(h) {
			idle := o.cableFree
			if len(o.queue) > 0 {
				idle = max(o.cableFree, o.queue[0].ready)
				for _, q := range o.queue {
					idle += s.flitPs(q.h.p, q.k, o.ft)
				}
			}
			o.stallAt(max(t, idle))
			return
		}
	}
}

// tally closes the stalls open at the run's end and collects the counts.
func (s *simulator) tally() sim.CounterTally {
	t := sim.CounterTally{HCAs: make([]sim.HCATally, len(s.hcas)), End: s.end, Series: s.ser}
	if s.ser != nil {
		for _, h := range s.hcas {
			if j := s.seriesJob(h); j >= 0 {
				before := h.port.stalled
				h.port.endStall(s.end)
				s.ser.Stalled(j, max(0, s.end-1), h.port.stalled-before) // in the last window, not one after it
			}
		}
	}
	for _, ports := range s.ports {
		for _, o := range ports {
			if o == nil {
				continue
			}
			o.endStall(s.end)
			t.Links = append(t.Links, sim.LinkTally{Node: o.node, Port: o.num, Flits: o.sentFlits, Packets: o.sentPackets, BusyPs: o.sentPs, StalledPs: o.stalled})
		}
	}
	for i, h := range s.hcas {
		o := h.port
		t.HCAs[i] = sim.HCATally{Flits: o.sentFlits - o.respFlits, Packets: o.sentPackets - o.respPackets, StalledPs: o.stalled, Hist: h.latency.Clone()}
	}
	return t
}
