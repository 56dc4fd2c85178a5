package sim

import (
	"math/bits"
	"slices"
)

// Event kinds.
const (
	evHeadArrive uint8 = iota // head flit of a packet fully received at a switch or HCA
	evTryOut                  // a switch output port re-runs arbitration
	evTryHCA                  // an HCA tries to inject its next packet
	evSample                  // steady-state controller samples the sinks
	// reference mode (per flit)
	evFlitArrive
	evFlitLeave
	evCredit
	evConsume
)

// Phases order events of the same picosecond: arrivals and credits first,
// then arbitration (which then sees everything that arrived at that instant),
// then the controllers.
const (
	phaseArrive uint8 = 0
	phaseLeave  uint8 = 1 // reference mode: a flit leaving a buffer it entered at the same instant
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
	aux   int32 // flit index (reference mode)
	ch    int32 // channel (reference mode)
}

// qent is what the queue orders: the sort key (time and phase) and, in
// sid, the sequence number above the event's slot in the payload slab.
// Ordering 16-byte entries instead of whole events keeps sorting cheap.
type qent struct {
	key uint64 // at<<2 | phase
	sid uint64 // seq<<slotBits | slot
}

const slotBits = 24 // up to 16 M events in flight

func (a qent) before(b qent) bool { return a.key < b.key || (a.key == b.key && a.sid < b.sid) }

// qheap is a 4-ary min-heap of entries; the calendar queue keeps far-future
// events in one.
type qheap []qent

func (h *qheap) push(e qent) {
	*h = append(*h, e)
	q := *h
	i := len(q) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !q[i].before(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (h *qheap) pop() qent {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	*h = q
	i := 0
	for {
		c := 4*i + 1
		if c >= last {
			break
		}
		best := c
		for j := c + 1; j < min(c+4, last); j++ {
			if q[j].before(q[best]) {
				best = j
			}
		}
		if !q[best].before(q[i]) {
			break
		}
		q[i], q[best] = q[best], q[i]
		i = best
	}
	return top
}

// eventQueue is a calendar queue ordered by (time, phase, sequence), a
// total order, so runs are bit-for-bit reproducible. Time is cut into
// buckets of 2^bucketShift ps held in a ring that covers ringSize buckets
// ahead of the current one; a bitmap finds the next busy bucket. The
// current bucket is sorted once when it is reached and consumed in order;
// an event pushed into it is inserted in place. Events beyond the ring's
// horizon wait in a heap until the ring reaches them. The events
// themselves stay in a slab; the structure moves 16-byte entries.
type eventQueue struct {
	seq    uint64
	n      int
	cur    int64 // bucket being consumed
	curBuf []qent
	pos    int
	ring   [ringSize][]qent
	bits   [ringSize / 64]uint64
	over   qheap
	slab   []event
	free   []uint32
}

const (
	bucketShift = 10      // 1.024 ns
	ringSize    = 1 << 16 // 67 µs ahead
	ringMask    = ringSize - 1
)

func (q *eventQueue) len() int { return q.n }

func (q *eventQueue) push(e event) {
	q.seq++
	var slot uint32
	if n := len(q.free); n > 0 {
		slot = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		slot = uint32(len(q.slab))
		q.slab = append(q.slab, event{})
	}
	q.slab[slot] = e
	ent := qent{key: uint64(e.at)<<2 | uint64(e.phase), sid: q.seq<<slotBits | uint64(slot)}
	q.n++
	b := e.at >> bucketShift
	switch {
	case b <= q.cur:
		// Into the current bucket, after every event that precedes it.
		i := len(q.curBuf)
		q.curBuf = append(q.curBuf, ent)
		for i > q.pos && ent.before(q.curBuf[i-1]) {
			q.curBuf[i] = q.curBuf[i-1]
			i--
		}
		q.curBuf[i] = ent
	case b < q.cur+ringSize:
		k := b & ringMask
		q.ring[k] = append(q.ring[k], ent)
		q.bits[k>>6] |= 1 << (k & 63)
	default:
		q.over.push(ent)
	}
}

// fill makes sure curBuf[pos] is the earliest entry; q.n > 0.
func (q *eventQueue) fill() {
	if q.pos < len(q.curBuf) {
		return
	}
	q.curBuf, q.pos = q.curBuf[:0], 0
	for {
		next := int64(-1)
		for d := int64(1); d < ringSize; {
			k := (q.cur + d) & ringMask
			w := q.bits[k>>6] >> (k & 63)
			if w == 0 {
				d += 64 - (k & 63)
				continue
			}
			d += int64(bits.TrailingZeros64(w))
			if d < ringSize {
				next = q.cur + d
			}
			break
		}
		if len(q.over) > 0 {
			if ob := int64(q.over[0].key>>2) >> bucketShift; next < 0 || ob < next {
				next = ob
			}
		}
		if next < 0 {
			return
		}
		q.cur = next
		for len(q.over) > 0 && int64(q.over[0].key>>2)>>bucketShift < q.cur+ringSize {
			e := q.over.pop()
			k := (int64(e.key>>2) >> bucketShift) & ringMask
			q.ring[k] = append(q.ring[k], e)
			q.bits[k>>6] |= 1 << (k & 63)
		}
		k := q.cur & ringMask
		if len(q.ring[k]) == 0 {
			continue
		}
		q.curBuf, q.ring[k] = q.ring[k], q.curBuf[:0]
		q.bits[k>>6] &^= 1 << (k & 63)
		sortEntries(q.curBuf)
		return
	}
}

func (q *eventQueue) pop() event {
	q.fill()
	ent := q.curBuf[q.pos]
	q.pos++
	q.n--
	slot := uint32(ent.sid & (1<<slotBits - 1))
	q.free = append(q.free, slot)
	return q.slab[slot]
}

func (q *eventQueue) peek() *event {
	q.fill()
	return &q.slab[q.curBuf[q.pos].sid&(1<<slotBits-1)]
}

// each calls fn for every queued event (in no particular order).
func (q *eventQueue) each(fn func(*event)) {
	visit := func(es []qent) {
		for _, e := range es {
			fn(&q.slab[e.sid&(1<<slotBits-1)])
		}
	}
	visit(q.curBuf[q.pos:])
	for k := range q.ring {
		visit(q.ring[k])
	}
	visit(q.over)
}

// sortEntries sorts a bucket: insertion sort when small, else the standard
// library's pattern-defeating quicksort.
func sortEntries(b []qent) {
	if len(b) > 16 {
		slices.SortFunc(b, func(x, y qent) int {
			if x.before(y) {
				return -1
			}
			return 1 // entries are distinct
		})
		return
	}
	for i := 1; i < len(b); i++ {
		e := b[i]
		j := i
		for j > 0 && e.before(b[j-1]) {
			b[j] = b[j-1]
			j--
		}
		b[j] = e
	}
}
