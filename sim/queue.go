package sim

import (
	"math/bits"
	"slices"
)

// qent is what the overflow heap orders: the sort key (time and phase)
// and, in sid, the sequence number above the event's slot in the payload
// slab. Ordering 16-byte entries instead of whole events keeps the heap
// cheap.
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
// total order, so runs are bit-for-bit reproducible whatever the queue's
// shape. Time is cut into buckets of 2^shift ps held in a ring of R buckets
// ahead of the current one; a bitmap finds the next busy bucket. A future
// bucket is a singly linked list through the node pool (a push writes the
// node and the bucket's head); the current bucket is gathered into an array
// of sort entries, sorted once, and consumed in order, and an event pushed
// into it is inserted in place. The current bucket's events are copied out
// of their nodes when it is gathered (the nodes are free from then on), and
// its entries' slots index that copy: popping reads no node a second time.
// Events beyond the ring's horizon wait in a heap until the ring reaches
// them.
//
// The width and the ring adapt to the load (Brown's calendar queue): the
// queue tracks the mean distance of pushed events ahead of the current
// time, mu, and with n events in flight aims at width ≈ 2·mu/n (about two
// events per bucket near the front) and R ≈ 8n buckets, rebuilding when the
// shape is off by more than a factor of four. The ring reaches far beyond
// the mean distance because the distances are bimodal: hops and arbitration
// nanoseconds ahead, a sink's completions and an HCA's next injection
// microseconds ahead; with R ≈ 2n a sixth of the pushes on a 275-HCA torus
// went to the heap (and the runs took 6-10 % longer).
type eventQueue struct {
	seq    uint64
	n      int
	nodes  []qnode
	free   []int32
	shift  uint  // bucket width 2^shift ps
	cur    int64 // bucket being consumed
	last   int64 // time of the last event popped
	curBuf []qent
	curEv  []event // the current bucket's events, indexed by their entries' slots
	pos    int
	heads  []int32 // per ring slot: first node, -1 empty
	bits   []uint64
	mask   int64
	over   qheap
	mu     int64 // moving mean of (at − last) of pushed events
	since  int   // pushes since the shape was last checked
}

// qnode holds a queued event and links it into its bucket.
type qnode struct {
	ev   event
	key  uint64
	sid  uint64
	next int32
}

const (
	minRing  = 1 << 10
	maxRing  = 1 << 20
	maxShift = 40
)

func (q *eventQueue) len() int { return q.n }

// init gives an unused queue its first shape: 1 ns buckets, minRing slots.
func (q *eventQueue) init() {
	q.shift = 10
	q.reshape(minRing)
	q.mu = 1 << 20
}

// reshape allocates an empty ring of r slots.
func (q *eventQueue) reshape(r int) {
	q.heads = make([]int32, r)
	for i := range q.heads {
		q.heads[i] = -1
	}
	q.bits = make([]uint64, r/64)
	q.mask = int64(r - 1)
}

func (q *eventQueue) push(e event) {
	if q.heads == nil {
		q.init()
	}
	q.seq++
	q.n++
	if e.at>>q.shift <= q.cur {
		q.insertCur(e, q.seq)
	} else {
		q.place(q.node(e, q.seq))
	}
	q.mu += (max(e.at-q.last, 0) - q.mu) >> 6
	if q.since++; q.since >= max(q.n, 4096) {
		q.since = 0
		q.adapt()
	}
}

// node stores event e with sequence number seq in a free node and
// returns its index.
func (q *eventQueue) node(e event, seq uint64) int32 {
	var idx int32
	if n := len(q.free); n > 0 {
		idx = q.free[n-1]
		q.free = q.free[:n-1]
	} else {
		idx = int32(len(q.nodes))
		q.nodes = append(q.nodes, qnode{})
	}
	q.nodes[idx] = qnode{ev: e, key: uint64(e.at)<<2 | uint64(e.phase), sid: seq<<slotBits | uint64(idx)}
	return idx
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

// place files node idx into the current bucket (freeing the node), the
// ring or the overflow heap.
func (q *eventQueue) place(idx int32) {
	nd := &q.nodes[idx]
	b := nd.ev.at >> q.shift
	switch {
	case b <= q.cur:
		q.insertCur(nd.ev, nd.sid>>slotBits)
		q.free = append(q.free, idx)
	case b <= q.cur+q.mask:
		k := b & q.mask
		nd.next = q.heads[k]
		q.heads[k] = idx
		q.bits[k>>6] |= 1 << (k & 63)
	default:
		q.over.push(qent{key: nd.key, sid: nd.sid})
	}
}

// adapt rebuilds the ring when its width or size is off by more than a
// factor of four from what the load calls for.
func (q *eventQueue) adapt() {
	want := uint(0)
	if w := 2 * q.mu / int64(max(q.n, 1)); w > 1 {
		want = uint(63 - bits.LeadingZeros64(uint64(w)))
	}
	want = min(want, maxShift)
	r := minRing
	for r < 8*q.n && r < maxRing {
		r <<= 1
	}
	ring := len(q.heads)
	if want+2 > q.shift && want < q.shift+2 && r < 4*ring && 4*r > ring {
		return
	}
	// Collect everything, then refile under the new shape.
	pending := make([]int32, 0, q.n)
	for _, c := range q.curBuf[q.pos:] {
		pending = append(pending, q.node(q.curEv[c.sid&(1<<slotBits-1)], c.sid>>slotBits))
	}
	for k, h := range q.heads {
		for i := h; i >= 0; i = q.nodes[i].next {
			pending = append(pending, i)
		}
		q.heads[k] = -1
	}
	for _, e := range q.over {
		pending = append(pending, int32(e.sid&(1<<slotBits-1)))
	}
	q.over = q.over[:0]
	q.curBuf, q.curEv, q.pos = q.curBuf[:0], q.curEv[:0], 0
	q.shift = want
	if r != ring {
		q.reshape(r)
	} else {
		clear(q.bits)
	}
	q.cur = q.last >> q.shift
	for _, i := range pending {
		q.place(i)
	}
}

// fill makes sure curBuf[pos] is the earliest entry; q.n > 0.
func (q *eventQueue) fill() {
	if q.pos < len(q.curBuf) {
		return
	}
	q.curBuf, q.curEv, q.pos = q.curBuf[:0], q.curEv[:0], 0
	ring := q.mask + 1
	for {
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
			e := q.over.pop()
			q.place(int32(e.sid & (1<<slotBits - 1)))
		}
		k := q.cur & q.mask
		h := q.heads[k]
		if h < 0 {
			continue
		}
		for i := h; i >= 0; {
			nd := &q.nodes[i]
			q.curBuf = append(q.curBuf, qent{key: nd.key, sid: nd.sid>>slotBits<<slotBits | uint64(len(q.curEv))})
			q.curEv = append(q.curEv, nd.ev)
			q.free = append(q.free, i)
			i = nd.next
		}
		q.heads[k] = -1
		q.bits[k>>6] &^= 1 << (k & 63)
		sortEntries(q.curBuf)
		return
	}
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

// following returns the event pop will return next if it is already in
// the current bucket, else nil (it gathers no bucket).
func (q *eventQueue) following() *event {
	if q.pos < len(q.curBuf) {
		return &q.curEv[q.curBuf[q.pos].sid&(1<<slotBits-1)]
	}
	return nil
}

// each calls fn for every queued event (in no particular order).
func (q *eventQueue) each(fn func(*event)) {
	for _, c := range q.curBuf[q.pos:] {
		fn(&q.curEv[c.sid&(1<<slotBits-1)])
	}
	for _, h := range q.heads {
		for i := h; i >= 0; i = q.nodes[i].next {
			fn(&q.nodes[i].ev)
		}
	}
	for _, e := range q.over {
		fn(&q.nodes[e.sid&(1<<slotBits-1)].ev)
	}
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
