package sim

// Credit accounting per (channel, VL) at the channel's sender, in flits.
//
// avail counts credits the sender holds now. Credits that the receiver has
// released but that are still travelling back (or will be released at known
// future instants, one per flit) wait in a queue of arithmetic segments
// {first time, count, spacing}: a packet that crosses a crossbar at link
// rate frees its flits at t0, t0+ft, t0+2ft, …, so one segment stands for a
// whole packet. Release times per (channel, VL) never decrease (buffers are
// FIFO), which keeps the queue sorted by construction.
type segment struct {
	t0, dt int64
	n      int32
	next   int32
}

type credits struct {
	avail      []int32
	head, tail []int32 // segment queue per (channel, VL); -1 empty
	pool       []segment
	free       int32
}

const never = int64(1<<62 - 1)

func newCredits(slots int) credits {
	c := credits{avail: make([]int32, slots), head: make([]int32, slots), tail: make([]int32, slots), free: -1}
	for i := range c.head {
		c.head[i], c.tail[i] = -1, -1
	}
	return c
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

// push queues n credits released at t0, t0+dt, …; adjacent segments that
// continue the same arithmetic progression are merged.
func (c *credits) push(slot int, t0, dt int64, n int32) {
	if n <= 0 {
		return
	}
	if tl := c.tail[slot]; tl >= 0 {
		s := &c.pool[tl]
		last := s.t0 + int64(s.n-1)*s.dt
		if (s.n == 1 || s.dt == dt) && t0 == last+dt {
			s.dt = dt
			s.n += n
			return
		}
	}
	i := c.alloc()
	c.pool[i] = segment{t0: t0, dt: dt, n: n, next: -1}
	if c.tail[slot] >= 0 {
		c.pool[c.tail[slot]].next = i
	} else {
		c.head[slot] = i
	}
	c.tail[slot] = i
}

// settle moves every credit released by time t into avail.
func (c *credits) settle(slot int, t int64) {
	for h := c.head[slot]; h >= 0; h = c.head[slot] {
		s := &c.pool[h]
		if s.t0 > t {
			return
		}
		k := int32(1)
		if s.dt > 0 {
			k = int32(min(int64(s.n), (t-s.t0)/s.dt+1))
		} else {
			k = s.n
		}
		c.avail[slot] += k
		s.n -= k
		s.t0 += int64(k) * s.dt
		if s.n > 0 {
			return
		}
		c.head[slot] = s.next
		if c.head[slot] < 0 {
			c.tail[slot] = -1
		}
		s.next = c.free
		c.free = h
	}
}

// when returns the earliest time at which the sender will hold need
// credits (after settle), or never if the queued releases do not suffice.
func (c *credits) when(slot int, need int32, now int64) int64 {
	missing := need - c.avail[slot]
	if missing <= 0 {
		return now
	}
	for h := c.head[slot]; h >= 0; h = c.pool[h].next {
		s := &c.pool[h]
		if s.n >= missing {
			return s.t0 + int64(missing-1)*s.dt
		}
		missing -= s.n
	}
	return never
}

// pending counts queued (not yet settled) credits.
func (c *credits) pending(slot int) int32 {
	var n int32
	for h := c.head[slot]; h >= 0; h = c.pool[h].next {
		n += c.pool[h].n
	}
	return n
}
