package sim

import "flitsim/fabric/invariants"

// credits is the flow-control state of every lane at its sender, in flits.
//
// avail counts the credits the sender holds now. Credits the receiver has
// freed that are still travelling back, or that it will free at known
// future instants one flit at a time, wait in a queue of arithmetic
// segments {first instant, spacing, count}: a packet that crosses a
// crossbar at a steady rate frees its flits at t0, t0+dt, t0+2dt, …, so one
// segment stands for a whole packet. A lane's receiver frees its places in
// order (its buffer is a FIFO), so release instants never decrease and the
// queue stays sorted by construction.
//
// The type owns its invariants: a sender never takes credits it does not
// hold, and releases never go back in time (checked in invariants builds).
type credits struct {
	avail      []int32
	head, tail []int32 // segment queue per lane, sorted by t0; -1 empty
	pool       []segment
	free       int32
	// overlap allows a lane's releases to come out of order and overlap in
	// time (with VOQ, packets of one input buffer cross side by side):
	// segments are then inserted in order of their first release, settle
	// looks past a segment it has only partly drained, and when counts
	// over all of them.
	overlap bool
	// In overlap mode, the last answer of when per lane: the need it was
	// for (0: none) and the instant. Releases and takes forget it;
	// settling keeps it (it moves queued credits into avail, which changes
	// no instant).
	whenNeed []int32
	whenAt   []int64
}

type segment struct {
	t0, dt int64
	n      int32
	next   int32
}

// never is an instant after every run.
const never = int64(1<<62 - 1)

func newCredits(capacity []int32, overlap bool) credits {
	c := credits{avail: append([]int32(nil), capacity...), head: make([]int32, len(capacity)), tail: make([]int32, len(capacity)), free: -1, overlap: overlap}
	for i := range c.head {
		c.head[i], c.tail[i] = -1, -1
	}
	if overlap {
		c.whenNeed, c.whenAt = make([]int32, len(capacity)), make([]int64, len(capacity))
	}
	return c
}

// take spends n credits of lane l, which the sender must hold (after settle).
func (c *credits) take(l int, n int32) {
	c.avail[l] -= n
	if c.overlap {
		c.whenNeed[l] = 0
	}
	invariants.Checkf(c.avail[l] >= 0, "lane %d: took %d credits it did not hold (%d left)", l, n, c.avail[l])
}

// release queues n credits of lane l reaching the sender at t0, t0+dt, …;
// a segment that continues the previous one's progression merges into it.
func (c *credits) release(l int, t0, dt int64, n int32) {
	if n <= 0 {
		return
	}
	if c.overlap {
		c.whenNeed[l] = 0
	}
	if tl := c.tail[l]; tl >= 0 {
		s := &c.pool[tl]
		last := s.t0 + int64(s.n-1)*s.dt
		if t0 < last || (c.overlap && t0 < s.t0) {
			invariants.Checkf(c.overlap, "lane %d: credit released at %d before the previous one (%d)", l, t0, last)
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
	if c.tail[l] >= 0 {
		c.pool[c.tail[l]].next = i
	} else {
		c.head[l] = i
	}
	c.tail[l] = i
}

// insert files segment g into lane l's queue in order of first release
// (overlap mode).
func (c *credits) insert(l int, g segment) {
	i := c.alloc()
	c.pool[i] = g
	prev := int32(-1)
	for h := c.head[l]; h >= 0 && c.pool[h].t0 <= g.t0; h = c.pool[h].next {
		prev = h
	}
	if prev < 0 {
		c.pool[i].next = c.head[l]
		c.head[l] = i
	} else {
		c.pool[i].next = c.pool[prev].next
		c.pool[prev].next = i
	}
	if c.pool[i].next < 0 {
		c.tail[l] = i
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
func (c *credits) settle(l int, t int64) {
	if c.overlap {
		c.settleOverlap(l, t)
		return
	}
	for h := c.head[l]; h >= 0; h = c.head[l] {
		s := &c.pool[h]
		if s.t0 > t {
			return
		}
		c.drain(l, s, t)
		if s.n > 0 {
			return
		}
		c.head[l] = s.next
		if c.head[l] < 0 {
			c.tail[l] = -1
		}
		s.next = c.free
		c.free = h
	}
}

// drain moves the credits of segment s of lane l that have arrived by t
// (s has begun by then) into avail.
func (c *credits) drain(l int, s *segment, t int64) {
	k := s.n
	if s.dt > 0 {
		k = int32(min(int64(s.n), (t-s.t0)/s.dt+1))
	}
	c.avail[l] += k
	s.n -= k
	s.t0 += int64(k) * s.dt
}

// settleOverlap is settle for queues whose segments may overlap: it
// drains every segment that has begun by t, then re-files the partly
// drained ones by their next release.
func (c *credits) settleOverlap(l int, t int64) {
	var buf [8]int32
	partial := buf[:0]
	prev := int32(-1)
	for h := c.head[l]; h >= 0 && c.pool[h].t0 <= t; {
		s := &c.pool[h]
		c.drain(l, s, t)
		next := s.next
		// Unlink it; a partly drained segment goes back in order below.
		if prev < 0 {
			c.head[l] = next
		} else {
			c.pool[prev].next = next
		}
		if next < 0 {
			c.tail[l] = prev
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
func (c *credits) has(l int, n int32, now int64) bool {
	c.settle(l, now)
	return c.avail[l] >= n
}

// when returns the earliest instant at which the sender of lane l will
// hold need credits (call settle first), or never if the releases queued
// so far do not add up to that.
func (c *credits) when(l int, need int32, now int64) int64 {
	missing := need - c.avail[l]
	if missing <= 0 {
		return now
	}
	if c.overlap {
		if c.whenNeed[l] != need {
			c.whenNeed[l], c.whenAt[l] = need, c.whenOverlap(l, missing)
		}
		return c.whenAt[l]
	}
	return c.whenInOrder(l, missing)
}

// whenInOrder is when for a queue whose segments come one after the
// other: the instant of the missing-th queued release, or never.
func (c *credits) whenInOrder(l int, missing int32) int64 {
	for h := c.head[l]; h >= 0; h = c.pool[h].next {
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
func (c *credits) whenOverlap(l int, missing int32) int64 {
	prevLast := int64(-1)
	ordered := true
	for h := c.head[l]; h >= 0; h = c.pool[h].next {
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
	for h := c.head[l]; h >= 0; h = c.pool[h].next {
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
