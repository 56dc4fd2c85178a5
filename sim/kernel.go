package sim

import (
	"hash"
	"hash/fnv"
	"strconv"

	"flitsim/fabric/invariants"
)

// Event kinds.
const (
	evHeadArrive uint8 = iota // a packet's head flit fully arrived at a switch or HCA
	evTryOut                  // a switch output port arbitrates
	evTryHCA                  // an HCA tries to inject its next packet
	evSample                  // the steady-state controller samples the sinks
	evDone                    // a sink finished consuming a packet's last flit
	evLink                    // a cable changes state (Timeline): its output arbitrates
	evResend                  // a lost packet is queued again at its source (Timeline)
)

// Phases order the events of one instant as the package doc's steps do:
// arrivals, credits and consumption first, then decisions (which see
// everything that arrived at that instant), then the controllers. The fast
// simulator has no separate crossbar and cable steps: their instants are
// arithmetic.
const (
	phaseArrive uint8 = 0
	phaseArb    uint8 = 2
	phaseCtl    uint8 = 3
)

// event is a small value: no interface, no pointer.
type event struct {
	at    int64
	phase uint8
	kind  uint8
	vl    uint8
	port  int16
	node  int32
	ref   int32 // packet index or channel
}

// kernel is the event loop's state: the queue, the current instant and
// the number of queued model events (all but controller samples), which
// tells a deadlock from a network that still has something to do.
type kernel struct {
	q           eventQueue
	now         int64
	modelEvents int64
	stop        bool
	// endAt stops the run once every event up to that instant is done
	// (finite jobs completed beside infinite ones); never: not set.
	endAt int64
	// holding: the event being handled belongs to an arrival step, and
	// an output arbitration it schedules at its own instant while nothing
	// else is queued at that instant is held instead of queued (held, in
	// order), for the loop to run at once (holdArb). Any other event
	// scheduled at that instant queues the held ones first, so the queue's
	// order is what it would have been.
	holding bool
	held    []event
}

// schedule queues a model event (or holds it, above).
func (k *kernel) schedule(e event) {
	if k.holding && e.at == k.now {
		if e.kind == evTryOut && (len(k.held) > 0 || k.q.len() == 0 || k.q.peek().at > e.at) {
			k.held = append(k.held, e)
			return
		}
		k.queueHeld()
	}
	k.modelEvents++
	k.q.push(e)
}

// queueHeld queues the held events, in the order they were scheduled.
func (k *kernel) queueHeld() {
	for _, h := range k.held {
		k.modelEvents++
		k.q.push(h)
	}
	k.held = k.held[:0]
}

// loop runs events in (time, phase, sequence) order until a controller
// stops the run, the time limit comes, or nothing can move any more.
func (s *simulator) loop() {
	k := &s.k
	if s.par != nil {
		s.loopDomains()
		return
	}
	h := fnv.New64a()
	for k.q.len() > 0 && !k.stop {
		next := k.q.peek()
		if next.at > k.endAt {
			break
		}
		if next.at > s.p.MaxTime {
			s.timeLimit()
			break
		}
		if next.kind == evSample && next.at > s.horizon && s.inNetwork > 0 {
			// Nothing has moved since the horizon: if nothing ever can,
			// the run deadlocked there, before this sample.
			k.now = next.at
			if s.frozen() {
				s.deadlocked()
				break
			}
		}
		// advance's body, by hand: the call costs 5-8 % of a small
		// fabric's run (measured).
		e := k.q.pop()
		if s.prefetching {
			s.touch()
		}
		invariants.Checkf(e.at >= k.now, "time went backwards: %d < %d", e.at, k.now)
		k.now = e.at
		if e.kind != evSample {
			k.modelEvents--
		}
		k.holding = e.phase < phaseArb && !s.queueAll && !k.q.reverseTies
		s.handle(e, h)
		if k.holding {
			s.holdArb(h)
		}
		if s.res.Events >= s.watchAt {
			s.tell(s.res.Events)
		}
		// A completed run (endAt set) ends after its instant whatever
		// is left in the network (responses, infinite jobs beside).
		if k.modelEvents == 0 && s.inNetwork > 0 && k.endAt == never {
			s.deadlocked()
			break
		}
	}
	if s.p.TraceHash {
		s.res.TraceHash = strconv.FormatUint(h.Sum64(), 16)
	}
}

// holdArb ends the handling of an event of an arrival step: the
// arbitrations it held (kernel.holding) are what the queue would pop next
// — nothing else is queued at their instant, and they follow each other
// in the order they were scheduled — so they run at once, handled as
// popped events are (counted and traced): a run is the same event for
// event, and the queue's push and pop, a third of a short packet's hop,
// are saved (issue 54). A run that stops at this instant queues them.
func (s *simulator) holdArb(h hash.Hash64) {
	k := &s.k
	k.holding = false
	if len(k.held) == 0 {
		return
	}
	if k.stop || k.now > k.endAt {
		k.queueHeld()
		return
	}
	for i := 0; i < len(k.held); i++ {
		s.handle(k.held[i], h)
	}
	k.held = k.held[:0]
}

// advance pops the next event, moves the clock to it and returns it,
// prefetching what the ones after it will use (touch).
func (s *simulator) advance() event {
	k := &s.k
	e := k.q.pop()
	if s.prefetching {
		s.touch()
	}
	invariants.Checkf(e.at >= k.now, "time went backwards: %d < %d", e.at, k.now)
	k.now = e.at
	if e.kind != evSample {
		k.modelEvents--
	}
	return e
}

// handle counts, hashes (into h, when traces are on) and runs event e,
// the current one (k.now is its instant).
func (s *simulator) handle(e event, h hash.Hash64) {
	s.res.Events++
	if s.p.TraceHash {
		b := s.traceBuf[:0]
		b = strconv.AppendInt(b, e.at, 36)
		b = append(b, e.kind, e.vl, byte(e.port), byte(e.port>>8))
		b = strconv.AppendInt(b, int64(e.node), 36)
		b = strconv.AppendInt(b, int64(e.ref), 36)
		h.Write(b)
	}
	switch e.kind {
	case evHeadArrive:
		if h := s.hcaOf[e.node]; h >= 0 {
			s.consume(&s.hcas[h], e.ref)
		} else {
			s.headArrive(e.node, e.port, e.ref)
		}
	case evTryOut:
		if c := &s.chans[e.ref]; e.at == c.tryAt {
			c.tryAt = never
			s.arbitrate(e.ref)
		}
	case evTryHCA:
		s.tryInject(e.node)
	case evDone:
		s.delivered(&s.hcas[e.node], e.ref)
	case evSample:
		s.sample()
	case evLink:
		s.linkChanged(e.ref)
	case evResend:
		s.tm.resends--
		s.resend(e.node, e.ref)
	}
}

// deadlocked ends a run in which nothing can move any more: at the last
// instant something moved (the horizon), after the samples up to then, or
// at the time limit if that instant lies beyond it.
func (s *simulator) deadlocked() {
	k := &s.k
	end, verdict := s.horizon, Deadlock
	if end > s.p.MaxTime {
		end, verdict = s.p.MaxTime, NotConverged
	}
	for k.q.len() > 0 && !k.stop && k.q.peek().at <= end {
		e := k.q.pop() // only controller samples are left
		invariants.Checkf(e.kind == evSample, "event of kind %d after the network froze", e.kind)
		k.now = e.at
		s.res.Events++
		s.sample()
	}
	if !k.stop {
		s.res.Verdict, k.now = verdict, end
	}
}

// timeLimit ends a run at MaxTime: NotConverged, unless the network froze
// before it with packets inside (a deadlock whose remaining events are
// wake-ups that can no longer succeed).
func (s *simulator) timeLimit() {
	k := &s.k
	k.now = s.p.MaxTime
	if s.inNetwork > 0 && s.horizon <= s.p.MaxTime && s.frozen() {
		s.res.Verdict, k.now = Deadlock, s.horizon
		return
	}
	s.res.Verdict = NotConverged
}
