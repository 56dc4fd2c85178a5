package sim

import (
	"math/bits"
	"slices"

	"flitsim/fabric/invariants"
)

// qent is what the overflow heap orders: the sort key (time and phase)
// and, in sid, the sequence number above the event's slot in the payload
// slab. Ordering 16-byte entries instead of whole events keeps the heap
// cheap.
type qent struct {
	key uint64 // at<<2 | phase
	sid uint64 // seq<<slotBits | slot
}

// slotBits is the width of an entry's slot: up to 16 M events in the
// overflow heap, and as many in the current bucket (popped ones included).
const slotBits = 24

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
// total order, so runs are bit-for-bit reproducible whatever the queue's
// shape. Time is cut into buckets of 2^shift ps held in a ring of R buckets
// ahead of the current one; a bitmap finds the next busy bucket. A future
// bucket is a list of chunks, each holding up to chunkLen events side by
// side: a push appends to its bucket's last chunk, and gathering a bucket
// reads its events a chunk (a few cache lines) at a time. The current
// bucket is gathered into an array of sort entries and a copy of its
// events (its chunks are free from then on, and the next pushes reuse them
// while they are still in the cache), sorted once and consumed in order;
// an event pushed into it is inserted in place. Events beyond the ring's
// horizon wait in a heap until the ring reaches them.
//
// On a large fabric an event waits tens of milliseconds of wall time in
// the queue, long enough for its memory to leave every cache: a bucket
// that is a linked list of one node per event (the queue's first shape)
// cost a miss per event to gather, where a list of chunks costs one per
// chunkLen events.
//
// The width and the ring adapt to the load (Brown's calendar queue): the
// queue tracks the mean distance of pushed events ahead of the current
// time, mu, and with n events in flight aims at width ≈
// 2^(bucketShift+1)·mu/n (rounded down to a power of two: some 16-32
// events per bucket near the front, three to five chunks) and R ≈
// 2^(3−bucketShift)·n buckets, so that the ring reaches about 16·mu,
// rebuilding when the shape is off by more than a factor of four. The ring
// reaches far beyond the mean distance because the distances are bimodal:
// hops and arbitration nanoseconds ahead, a sink's completions and an
// HCA's next injection microseconds ahead; a ring reaching only about four
// times the mean distance sent a sixth of the pushes on a 275-HCA torus to
// the heap (and the runs took 6-10 % longer).
type eventQueue struct {
	seq    uint64
	n      int
	shift  uint  // bucket width 2^shift ps
	cur    int64 // bucket being consumed
	last   int64 // time of the last event popped
	curBuf []qent
	curEv  []event // the current bucket's events, indexed by their entries' slots
	pos    int
	slots  []qslot // per ring slot: its chunks
	bits   []uint64
	mask   int64
	chunks []qchunk
	freeCh int32 // free chunks, linked by next; -1 none
	// over holds the events beyond the ring, their slots indexing overEv.
	over     qheap
	overEv   []event
	overFree []int32
	mu       int64 // moving mean of (at − last) of pushed events
	since    int   // pushes since the shape was last checked
	// reverseTies pops events of equal time and phase in reverse push
	// order (tests: the package doc says no order among them changes a
	// result).
	reverseTies bool
}

// qitem is a queued event and its sequence number.
type qitem struct {
	ev  event
	seq uint64
}

// chunkLen is the number of events a chunk holds: 7 of 32 bytes, the
// header and padding fill 256 bytes, four cache lines (the chunk slab is
// large, so it starts on a page). Most ring slots far ahead hold an event
// or two, each in a chunk of its own: 512-byte chunks of 15 made the slab
// too large for the caches on Table 4.4's fabrics (a third of the queue's
// time was the first store into a chunk), and 7 per chunk ran the `small`
// campaign's shard 0/20 6-8 % faster; 3 per chunk gained nothing more.
const chunkLen = 7

// qchunk is a piece of a bucket: up to chunkLen events in push order.
type qchunk struct {
	n, next int32 // events held; next chunk of the bucket or the free list, -1 none
	it      [chunkLen]qitem
	_       [24]byte
}

// qslot is a ring slot's bucket: its first and last chunk, -1 empty.
type qslot struct{ head, tail int32 }

const (
	minRing  = 1 << 10
	maxRing  = 1 << 20
	maxShift = 40
	// bucketShift widens the buckets 2^bucketShift times beyond the
	// queue's first shape (about two events per bucket near the front).
	bucketShift = 4
)

func (q *eventQueue) len() int { return q.n }

// init gives an unused queue its first shape: 16 ns buckets, minRing
// slots.
func (q *eventQueue) init() {
	q.shift = 10 + bucketShift
	q.freeCh = -1
	q.reshape(minRing)
	q.mu = 1 << 20
}

// reshape allocates an empty ring of r slots.
func (q *eventQueue) reshape(r int) {
	q.slots = make([]qslot, r)
	for i := range q.slots {
		q.slots[i] = qslot{-1, -1}
	}
	q.bits = make([]uint64, r/64)
	q.mask = int64(r - 1)
}

func (q *eventQueue) push(e event) {
	if q.slots == nil {
		q.init()
	}
	q.seq++
	q.n++
	seq := q.seq
	if q.reverseTies {
		seq = 1<<(64-slotBits) - 1 - seq
	}
	q.place(e, seq)
	q.mu += (max(e.at-q.last, 0) - q.mu) >> 6
	if q.since++; q.since >= max(q.n, 4096) {
		q.since = 0
		q.adapt()
	}
}

// place files event e with sequence number seq into the current bucket,
// the ring or the overflow heap.
func (q *eventQueue) place(e event, seq uint64) {
	b := e.at >> q.shift
	switch {
	case b <= q.cur:
		q.insertCur(e, seq)
	case b <= q.cur+q.mask:
		q.appendSlot(b&q.mask, e, seq)
	default:
		var idx int32
		if n := len(q.overFree); n > 0 {
			idx = q.overFree[n-1]
			q.overFree = q.overFree[:n-1]
			q.overEv[idx] = e
		} else {
			idx = int32(len(q.overEv))
			q.overEv = append(q.overEv, e)
		}
		q.over.push(qent{key: uint64(e.at)<<2 | uint64(e.phase), sid: seq<<slotBits | uint64(idx)})
	}
}

// appendSlot appends event e with sequence number seq to ring slot k.
func (q *eventQueue) appendSlot(k int64, e event, seq uint64) {
	sl := &q.slots[k]
	if sl.tail < 0 || q.chunks[sl.tail].n == chunkLen {
		c := q.newChunk()
		if sl.tail < 0 {
			sl.head = c
			q.bits[k>>6] |= 1 << (k & 63)
		} else {
			q.chunks[sl.tail].next = c
		}
		sl.tail = c
	}
	ch := &q.chunks[sl.tail]
	ch.it[ch.n] = qitem{ev: e, seq: seq}
	ch.n++
}

// newChunk returns an empty chunk, the one freed last if any.
func (q *eventQueue) newChunk() int32 {
	c := q.freeCh
	if c >= 0 {
		q.freeCh = q.chunks[c].next
	} else {
		c = int32(len(q.chunks))
		q.chunks = append(q.chunks, qchunk{})
	}
	q.chunks[c].n, q.chunks[c].next = 0, -1
	return c
}

// takeSlot empties ring slot k, calling fn for each of its events in push
// order and freeing its chunks.
func (q *eventQueue) takeSlot(k int64, fn func(e *event, seq uint64)) {
	for c := q.slots[k].head; c >= 0; {
		ch := &q.chunks[c]
		for i := range ch.n {
			fn(&ch.it[i].ev, ch.it[i].seq)
		}
		next := ch.next
		ch.next = q.freeCh
		q.freeCh = c
		c = next
	}
	q.slots[k] = qslot{-1, -1}
	q.bits[k>>6] &^= 1 << (k & 63)
}

// insertCur files event e with sequence number seq into the current
// bucket, in order.
func (q *eventQueue) insertCur(e event, seq uint64) {
	c := qent{key: uint64(e.at)<<2 | uint64(e.phase), sid: seq<<slotBits | uint64(len(q.curEv))}
	q.curEv = append(q.curEv, e)
	i := len(q.curBuf)
	q.curBuf = append(q.curBuf, c)
	for i > q.pos && c.before(q.curBuf[i-1]) {
		q.curBuf[i] = q.curBuf[i-1]
		i--
	}
	q.curBuf[i] = c
}

// popOver removes the overflow heap's first event.
func (q *eventQueue) popOver() (event, uint64) {
	o := q.over.pop()
	idx := int32(o.sid & (1<<slotBits - 1))
	q.overFree = append(q.overFree, idx)
	return q.overEv[idx], o.sid >> slotBits
}

// adapt rebuilds the ring when its width or size is off by more than a
// factor of four from what the load calls for.
func (q *eventQueue) adapt() {
	want := uint(0)
	if w := 2 * q.mu << bucketShift / int64(max(q.n, 1)); w > 1 {
		want = uint(63 - bits.LeadingZeros64(uint64(w)))
	}
	want = min(want, maxShift)
	r := minRing
	for r < 8*q.n>>bucketShift && r < maxRing {
		r <<= 1
	}
	ring := len(q.slots)
	if want+2 > q.shift && want < q.shift+2 && r < 4*ring && 4*r > ring {
		return
	}
	// Collect everything, then refile under the new shape.
	pending := make([]qitem, 0, q.n)
	for _, c := range q.curBuf[q.pos:] {
		pending = append(pending, qitem{ev: q.curEv[c.sid&(1<<slotBits-1)], seq: c.sid >> slotBits})
	}
	for k := range q.slots {
		if q.slots[k].head >= 0 {
			q.takeSlot(int64(k), func(e *event, seq uint64) { pending = append(pending, qitem{ev: *e, seq: seq}) })
		}
	}
	for len(q.over) > 0 {
		e, seq := q.popOver()
		pending = append(pending, qitem{ev: e, seq: seq})
	}
	q.curBuf, q.curEv, q.pos = q.curBuf[:0], q.curEv[:0], 0
	q.shift = want
	if r != ring {
		q.reshape(r)
	}
	q.cur = q.last >> q.shift
	for _, it := range pending {
		if it.ev.at>>q.shift <= q.cur {
			q.gather(&it.ev, it.seq) // sorted once below
		} else {
			q.place(it.ev, it.seq)
		}
	}
	sortEntries(q.curBuf)
}

// fill makes sure curBuf[pos] is the earliest entry; q.n > 0.
func (q *eventQueue) fill() {
	if q.pos < len(q.curBuf) {
		return
	}
	q.curBuf, q.curEv, q.pos = q.curBuf[:0], q.curEv[:0], 0
	ring := q.mask + 1
	next := int64(-1)
	for d := int64(1); d < ring; {
		k := (q.cur + d) & q.mask
		w := q.bits[k>>6] >> (k & 63)
		if w == 0 {
			d += 64 - (k & 63)
			continue
		}
		d += int64(bits.TrailingZeros64(w))
		if d < ring {
			next = q.cur + d
		}
		break
	}
	if len(q.over) > 0 {
		if ob := int64(q.over[0].key>>2) >> q.shift; next < 0 || ob < next {
			next = ob
		}
	}
	if next < 0 {
		return
	}
	q.cur = next
	for len(q.over) > 0 && int64(q.over[0].key>>2)>>q.shift <= q.cur+q.mask {
		q.place(q.popOver())
	}
	// The bucket is busy in the ring, or it came from the heap and its
	// events were just filed, in order, into the current bucket.
	if k := q.cur & q.mask; q.slots[k].head >= 0 {
		q.takeSlot(k, q.gather)
		sortEntries(q.curBuf)
	}
	invariants.Checkf(q.pos < len(q.curBuf), "queue of %d events gathered an empty bucket", q.n)
}

// gather adds an event of the bucket being gathered to the current one.
func (q *eventQueue) gather(e *event, seq uint64) {
	q.curBuf = append(q.curBuf, qent{key: uint64(e.at)<<2 | uint64(e.phase), sid: seq<<slotBits | uint64(len(q.curEv))})
	q.curEv = append(q.curEv, *e)
}

func (q *eventQueue) pop() event {
	q.fill()
	e := q.curEv[q.curBuf[q.pos].sid&(1<<slotBits-1)]
	q.pos++
	q.n--
	q.last = e.at
	return e
}

func (q *eventQueue) peek() *event {
	q.fill()
	return &q.curEv[q.curBuf[q.pos].sid&(1<<slotBits-1)]
}

// each calls fn for every queued event (in no particular order).
func (q *eventQueue) each(fn func(*event)) {
	for _, c := range q.curBuf[q.pos:] {
		fn(&q.curEv[c.sid&(1<<slotBits-1)])
	}
	for _, sl := range q.slots {
		for c := sl.head; c >= 0; c = q.chunks[c].next {
			ch := &q.chunks[c]
			for i := range ch.n {
				fn(&ch.it[i].ev)
			}
		}
	}
	for _, o := range q.over {
		fn(&q.overEv[o.sid&(1<<slotBits-1)])
	}
}

// sortEntries sorts a bucket: insertion sort up to insertionMax entries,
// else the standard library's pattern-defeating quicksort. A bucket holds
// some 16-32 events (adapt), which the quicksort's comparison calls made
// 17 % of a 264-HCA fat tree's run; insertion sort, the comparison inlined,
// takes a third of that.
func sortEntries(b []qent) {
	if len(b) > insertionMax {
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

// insertionMax is the largest bucket sortEntries sorts by insertion.
const insertionMax = 64

// at returns the event of the current bucket's i-th entry (i < len(curBuf)).
func (q *eventQueue) at(i int) *event {
	return &q.curEv[q.curBuf[i].sid&(1<<slotBits-1)]
}
