package sim

import "flitsim/fabric/invariants"

// credits is the flow-control state of every lane at its sender, in flits:
// each lane's own part (laneCredits, which the simulator keeps inside its
// lane record) and the arena that holds the queues too long for it.
//
// A lane's avail counts the credits the sender holds now. Credits the
// receiver has freed that are still travelling back, or that it will free
// at known future instants one flit at a time, wait in a queue of
// arithmetic segments {first instant, spacing, count}: a packet that
// crosses a crossbar at a steady rate frees its flits at t0, t0+dt,
// t0+2dt, …, so one segment stands for a whole packet (or the two parts of
// it: crossbar-bound, then arrival-bound).
//
// A lane's queue is a sorted array of its own: up to four segments in the
// lane record (the cache line after the lane's first), more in a block of
// the arena. Settling, asking and releasing read one or two lines next to
// the lane, where a shared linked pool scattered a queue over lines last
// written by other lanes. A full queue first sheds the credits that have
// arrived, then moves to a block twice its size (8 segments first) at the
// arena's end; a lane stays in the arena once there, and the old block is
// not reused: a lane's queue is bounded by its buffer's credits, so a lane
// moves a few times at most.
//
// The type owns its invariants: a sender never takes credits it does not
// hold, and releases never go back in time (checked in invariants builds).
type credits struct {
	arena []segment
	// overlap allows a lane's releases to come out of order and overlap in
	// time (with VOQ, packets of one input buffer cross side by side):
	// segments are then inserted in order of their first release, settle
	// looks past a segment it has only partly drained, and when counts
	// over all of them.
	overlap bool
}

// laneCredits is one lane's credit state at its sender, 88 bytes.
type laneCredits struct {
	// In overlap mode, the last answer of when: the instant and the need
	// it was for (0: none). Releases and takes forget it; settling keeps
	// it (it moves queued credits into avail, which changes no instant).
	whenAt   int64
	avail    int32
	whenNeed int32
	// The queue, sorted by t0: in[:len] while off is -1, else
	// arena[off : off+len] in a block of 1<<capLog segments at off. lq
	// packs len (the low 27 bits: a queue has no more segments than its
	// buffer has credits, at most 2^24) and capLog (the high 5), so that
	// the lane keeps to two cache lines.
	off int32
	lq  uint32
	// in holds the queue while it is short (off -1).
	in [inline]segment
}

// inline is the number of segments a lane's queue holds in its record.
const inline = 4

const lenBits = 27

// len is the number of segments queued; capLog the log2 of the block's size.
func (l *laneCredits) len() int32    { return int32(l.lq & (1<<lenBits - 1)) }
func (l *laneCredits) capLog() uint8 { return uint8(l.lq >> lenBits) }

// setQueue sets the queue's block and length.
func (l *laneCredits) setQueue(off int32, capLog uint8, n int32) {
	invariants.Checkf(n < 1<<lenBits && capLog < 32, "credit queue of %d segments in a block of 2^%d", n, capLog)
	l.off, l.lq = off, uint32(capLog)<<lenBits|uint32(n)
}

// firstBlockLog is the log2 of a lane's first block: a switch input buffer
// of 128 flits holds under four full packets, two segments each.
const firstBlockLog = 3

// newLaneCredits returns the state of a lane whose sender holds capacity
// credits and none are queued.
func newLaneCredits(capacity int32) laneCredits {
	return laneCredits{avail: capacity, off: -1}
}

// segment is an arithmetic progression of n credit releases from t0, dt
// apart, 16 bytes (dt is at most fabric.MaxFlitPs).
type segment struct {
	t0 int64
	dt int32
	n  int32
}

// last returns the instant of the segment's last release.
func (s *segment) last() int64 { return s.t0 + int64(s.n-1)*int64(s.dt) }

// never is an instant after every run.
const never = int64(1<<62 - 1)

func newCredits(overlap bool) credits { return credits{overlap: overlap} }

// queue returns lane l's queued segments (aliasing its record or the arena).
func (c *credits) queue(l *laneCredits) []segment {
	n := l.len()
	if l.off < 0 {
		return l.in[:n]
	}
	return c.arena[l.off : l.off+n : l.off+1<<l.capLog()]
}

// take spends n credits of lane l, which the sender must hold (after settle).
func (c *credits) take(l *laneCredits, n int32) {
	l.avail -= n
	l.whenNeed = 0
	invariants.Checkf(l.avail >= 0, "took %d credits it did not hold (%d left)", n, l.avail)
}

// release queues n credits of lane l reaching the sender at t0, t0+dt, …;
// a segment that continues the previous one's progression merges into it.
// now is the current instant (no release comes before it): a full queue
// sheds the credits arrived by then.
func (c *credits) release(l *laneCredits, t0, dt int64, n int32, now int64) {
	if n <= 0 {
		return
	}
	l.whenNeed = 0
	if k := l.len(); k > 0 {
		s := &c.queue(l)[k-1]
		last := s.last()
		invariants.Checkf(c.overlap || t0 >= last, "credit released at %d before the previous one (%d)", t0, last)
		if (s.n == 1 || int64(s.dt) == dt) && t0 == last+dt {
			s.dt = int32(dt)
			s.n += n
			return
		}
	}
	// In order it goes at the end; in overlap mode anywhere, and making
	// room settles, which can file a partly drained segment after it.
	c.insert(l, segment{t0: t0, dt: int32(dt), n: n}, now)
}

// room makes room for one more segment in lane l's queue.
func (c *credits) room(l *laneCredits, now int64) {
	size := func() int32 {
		if l.off < 0 {
			return inline
		}
		return 1 << l.capLog()
	}
	if l.len() < size() {
		return
	}
	c.settle(l, now)
	if l.len() < size() {
		return
	}
	log := uint8(firstBlockLog)
	if l.off >= 0 {
		log = l.capLog() + 1
	}
	off := c.block(log)
	copy(c.arena[off:], c.queue(l))
	l.setQueue(off, log, l.len())
}

// block takes a new block of 1<<log segments at the arena's end.
func (c *credits) block(log uint8) int32 {
	off := len(c.arena)
	c.arena = append(c.arena, make([]segment, 1<<log)...)
	invariants.Checkf(len(c.arena) <= 1<<31-1, "credit arena beyond 2^31 segments")
	return int32(off)
}

// insert files segment g into lane l's queue in order of first release,
// after those that begin no later (at the end, but in overlap mode).
func (c *credits) insert(l *laneCredits, g segment, now int64) {
	c.room(l, now)
	q := c.queue(l)
	q = q[:len(q)+1]
	i := len(q) - 1
	for i > 0 && q[i-1].t0 > g.t0 {
		i--
	}
	copy(q[i+1:], q[i:len(q)-1])
	q[i] = g
	l.lq++
}

// settle moves every credit of lane l that has arrived by t into avail.
func (c *credits) settle(l *laneCredits, t int64) {
	if l.len() == 0 {
		return
	}
	q := c.queue(l)
	if q[0].t0 > t {
		return
	}
	if c.overlap {
		c.settleOverlap(l, q, t)
		return
	}
	// In order: a prefix of whole segments has arrived, then perhaps part
	// of one.
	k := 0
	for k < len(q) && q[k].t0 <= t {
		c.drain(l, &q[k], t)
		if q[k].n > 0 {
			break
		}
		k++
	}
	c.drop(l, q, k)
}

// drop removes the first k segments of lane l's queue q.
func (c *credits) drop(l *laneCredits, q []segment, k int) {
	if k == 0 {
		return
	}
	copy(q, q[k:])
	l.lq -= uint32(k)
}

// drain moves the credits of segment s of lane l that have arrived by t
// (s has begun by then) into avail.
func (c *credits) drain(l *laneCredits, s *segment, t int64) {
	k := s.n
	if s.dt > 0 {
		k = int32(min(int64(s.n), (t-s.t0)/int64(s.dt)+1))
	}
	l.avail += k
	s.n -= k
	s.t0 += int64(k) * int64(s.dt)
}

// settleOverlap is settle for queues whose segments may overlap (q[0] has
// begun by t): it drains every segment that has begun by t (a prefix, the
// queue being sorted), then files the partly drained ones again by their
// next release. The order among equal first releases changes no answer:
// settle and when see the releases as a multiset.
func (c *credits) settleOverlap(l *laneCredits, q []segment, t int64) {
	k := 0
	for k < len(q) && q[k].t0 <= t {
		c.drain(l, &q[k], t)
		k++
	}
	// Keep the partly drained of q[:k] and close the gap.
	w := 0
	for i := 0; i < k; i++ {
		if q[i].n > 0 {
			q[w] = q[i]
			w++
		}
	}
	if w < k {
		copy(q[w:], q[k:])
		l.lq -= uint32(k - w)
		q = q[:len(q)-(k-w)]
	}
	if w == 0 {
		return
	}
	// Insertion sort: q[w:] is sorted, and the queue is short.
	for i := 1; i < len(q); i++ {
		g := q[i]
		j := i
		for j > 0 && q[j-1].t0 > g.t0 {
			q[j] = q[j-1]
			j--
		}
		q[j] = g
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
	return whenInOrder(c.queue(l), missing)
}

// whenInOrder is when for a queue whose segments come one after the
// other: the instant of the missing-th queued release, or never.
func whenInOrder(q []segment, missing int32) int64 {
	for i := range q {
		s := &q[i]
		if s.n >= missing {
			return s.t0 + int64(missing-1)*int64(s.dt)
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
	q := c.queue(l)
	prevLast := int64(-1)
	ordered := true
	for i := range q {
		if q[i].t0 <= prevLast {
			ordered = false
			break
		}
		prevLast = q[i].last()
	}
	if ordered {
		return whenInOrder(q, missing)
	}
	type cursor struct {
		t, dt int64
		n     int32
	}
	var buf [16]cursor
	cur := buf[:0]
	for i := range q {
		cur = append(cur, cursor{t: q[i].t0, dt: int64(q[i].dt), n: q[i].n})
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
