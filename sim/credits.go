package sim

import "flitsim/fabric/invariants"

// credits is the flow-control state of every lane at its sender, in flits:
// each lane's own part (laneCredits, which the simulator keeps inside its
// lane record so that one cache line holds a lane) and the segment pool
// they share.
//
// A lane's avail counts the credits the sender holds now. Credits the
// receiver has freed that are still travelling back, or that it will free
// at known future instants one flit at a time, wait in a queue of
// arithmetic segments {first instant, spacing, count}: a packet that
// crosses a crossbar at a steady rate frees its flits at t0, t0+dt,
// t0+2dt, …, so one segment stands for a whole packet. A lane's receiver
// frees its places in order (its buffer is a FIFO), so release instants
// never decrease and the queue stays sorted by construction.
//
// The type owns its invariants: a sender never takes credits it does not
// hold, and releases never go back in time (checked in invariants builds).
type credits struct {
	pool []segment
	free int32
	// overlap allows a lane's releases to come out of order and overlap in
	// time (with VOQ, packets of one input buffer cross side by side):
	// segments are then inserted in order of their first release, settle
	// looks past a segment it has only partly drained, and when counts
	// over all of them.
	overlap bool
}

// laneCredits is one lane's credit state at its sender.
type laneCredits struct {
	// In overlap mode, the last answer of when: the instant and the need
	// it was for (0: none). Releases and takes forget it; settling keeps
	// it (it moves queued credits into avail, which changes no instant).
	whenAt     int64
	avail      int32
	head, tail int32 // segment queue, sorted by t0; -1 empty
	whenNeed   int32
}

// newLaneCredits returns the state of a lane whose sender holds capacity
// credits and none are queued.
func newLaneCredits(capacity int32) laneCredits {
	return laneCredits{avail: capacity, head: -1, tail: -1}
}

type segment struct {
	t0, dt int64
	n      int32
	next   int32
}

// never is an instant after every run.
const never = int64(1<<62 - 1)

func newCredits(overlap bool) credits { return credits{free: -1, overlap: overlap} }

// take spends n credits of lane l, which the sender must hold (after settle).
func (c *credits) take(l *laneCredits, n int32) {
	l.avail -= n
	l.whenNeed = 0
	invariants.Checkf(l.avail >= 0, "took %d credits it did not hold (%d left)", n, l.avail)
}

// release queues n credits of lane l reaching the sender at t0, t0+dt, …;
// a segment that continues the previous one's progression merges into it.
func (c *credits) release(l *laneCredits, t0, dt int64, n int32) {
	if n <= 0 {
		return
	}
	l.whenNeed = 0
	if tl := l.tail; tl >= 0 {
		s := &c.pool[tl]
		last := s.t0 + int64(s.n-1)*s.dt
		if t0 < last || (c.overlap && t0 < s.t0) {
			invariants.Checkf(c.overlap, "credit released at %d before the previous one (%d)", t0, last)
			c.insert(l, segment{t0: t0, dt: dt, n: n})
			return
		}
		if (s.n == 1 || s.dt == dt) && t0 == last+dt {
			s.dt = dt
			s.n += n
			return
		}
	}
	i := c.alloc()
	c.pool[i] = segment{t0: t0, dt: dt, n: n, next: -1}
	if l.tail >= 0 {
		c.pool[l.tail].next = i
	} else {
		l.head = i
	}
	l.tail = i
}

// insert files segment g into lane l's queue in order of first release
// (overlap mode).
func (c *credits) insert(l *laneCredits, g segment) {
	i := c.alloc()
	c.pool[i] = g
	prev := int32(-1)
	for h := l.head; h >= 0 && c.pool[h].t0 <= g.t0; h = c.pool[h].next {
		prev = h
	}
	if prev < 0 {
		c.pool[i].next = l.head
		l.head = i
	} else {
		c.pool[i].next = c.pool[prev].next
		c.pool[prev].next = i
	}
	if c.pool[i].next < 0 {
		l.tail = i
	}
}

func (c *credits) alloc() int32 {
	if c.free >= 0 {
		i := c.free
		c.free = c.pool[i].next
		return i
	}
	c.pool = append(c.pool, segment{})
	return int32(len(c.pool) - 1)
}

// settle moves every credit of lane l that has arrived by t into avail.
func (c *credits) settle(l *laneCredits, t int64) {
	if c.overlap {
		c.settleOverlap(l, t)
		return
	}
	for h := l.head; h >= 0; h = l.head {
		s := &c.pool[h]
		if s.t0 > t {
			return
		}
		c.drain(l, s, t)
		if s.n > 0 {
			return
		}
		l.head = s.next
		if l.head < 0 {
			l.tail = -1
		}
		s.next = c.free
		c.free = h
	}
}

// drain moves the credits of segment s of lane l that have arrived by t
// (s has begun by then) into avail.
func (c *credits) drain(l *laneCredits, s *segment, t int64) {
	k := s.n
	if s.dt > 0 {
		k = int32(min(int64(s.n), (t-s.t0)/s.dt+1))
	}
	l.avail += k
	s.n -= k
	s.t0 += int64(k) * s.dt
}

// settleOverlap is settle for queues whose segments may overlap: it
// drains every segment that has begun by t, then re-files the partly
// drained ones by their next release.
func (c *credits) settleOverlap(l *laneCredits, t int64) {
	h := l.head
	if h < 0 || c.pool[h].t0 > t {
		return
	}
	// The common case: only the head segment has begun. Drained, it goes;
	// partly drained, it stays where it is while it still comes first (the
	// order among equal first releases changes no answer: settle and when
	// see the releases as a multiset).
	s := &c.pool[h]
	if nx := s.next; nx < 0 || c.pool[nx].t0 > t {
		c.drain(l, s, t)
		switch {
		case s.n == 0:
			l.head = nx
			if nx < 0 {
				l.tail = -1
			}
			s.next = c.free
			c.free = h
		case nx >= 0 && s.t0 > c.pool[nx].t0:
			g := *s
			l.head = nx
			s.next = c.free
			c.free = h
			c.insert(l, g)
		}
		return
	}
	c.settleOverlapAll(l, t)
}

// settleOverlapAll is settleOverlap when more than one segment has begun.
func (c *credits) settleOverlapAll(l *laneCredits, t int64) {
	var buf [8]int32
	partial := buf[:0]
	prev := int32(-1)
	for h := l.head; h >= 0 && c.pool[h].t0 <= t; {
		s := &c.pool[h]
		c.drain(l, s, t)
		next := s.next
		// Unlink it; a partly drained segment goes back in order below.
		if prev < 0 {
			l.head = next
		} else {
			c.pool[prev].next = next
		}
		if next < 0 {
			l.tail = prev
		}
		if s.n > 0 {
			partial = append(partial, h)
		} else {
			s.next = c.free
			c.free = h
		}
		h = next
	}
	for _, h := range partial {
		g := c.pool[h]
		c.pool[h].next = c.free
		c.free = h
		c.insert(l, g)
	}
}

// has reports whether the sender of lane l holds n credits at now.
func (c *credits) has(l *laneCredits, n int32, now int64) bool {
	c.settle(l, now)
	return l.avail >= n
}

// when returns the earliest instant at which the sender of lane l will
// hold need credits (call settle first), or never if the releases queued
// so far do not add up to that.
func (c *credits) when(l *laneCredits, need int32, now int64) int64 {
	missing := need - l.avail
	if missing <= 0 {
		return now
	}
	if c.overlap {
		if l.whenNeed != need {
			l.whenNeed, l.whenAt = need, c.whenOverlap(l, missing)
		}
		return l.whenAt
	}
	return c.whenInOrder(l, missing)
}

// whenInOrder is when for a queue whose segments come one after the
// other: the instant of the missing-th queued release, or never.
func (c *credits) whenInOrder(l *laneCredits, missing int32) int64 {
	for h := l.head; h >= 0; h = c.pool[h].next {
		s := &c.pool[h]
		if s.n >= missing {
			return s.t0 + int64(missing-1)*s.dt
		}
		missing -= s.n
	}
	return never
}

// whenOverlap is when for queues whose segments may overlap: the instant
// of the missing-th queued release. Segments that do not overlap (the
// common case) are walked in order; otherwise the releases are merged
// (the segments are few, and missing at most a buffer's credits).
func (c *credits) whenOverlap(l *laneCredits, missing int32) int64 {
	prevLast := int64(-1)
	ordered := true
	for h := l.head; h >= 0; h = c.pool[h].next {
		s := &c.pool[h]
		if s.t0 <= prevLast {
			ordered = false
			break
		}
		prevLast = s.t0 + int64(s.n-1)*s.dt
	}
	if ordered {
		return c.whenInOrder(l, missing)
	}
	type cursor struct {
		t, dt int64
		n     int32
	}
	var buf [8]cursor
	cur := buf[:0]
	for h := l.head; h >= 0; h = c.pool[h].next {
		s := &c.pool[h]
		cur = append(cur, cursor{t: s.t0, dt: s.dt, n: s.n})
	}
	t := never
	for ; missing > 0; missing-- {
		best := -1
		for i := range cur {
			if cur[i].n > 0 && (best < 0 || cur[i].t < cur[best].t) {
				best = i
			}
		}
		if best < 0 {
			return never
		}
		t = cur[best].t
		cur[best].t += cur[best].dt
		cur[best].n--
	}
	return t
}
