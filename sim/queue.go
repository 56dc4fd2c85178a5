package sim

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
	seq   uint64
	phase uint8
	kind  uint8
	vl    uint8
	port  int16
	node  int32
	ref   int32 // packet index or channel
	aux   int32 // flit index (reference mode)
	ch    int32 // channel (reference mode)
}

func (a *event) before(b *event) bool {
	if a.at != b.at {
		return a.at < b.at
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	return a.seq < b.seq
}

// eventQueue is a typed 4-ary min-heap ordered by (time, phase, sequence):
// a total order, so runs are bit-for-bit reproducible.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) len() int { return len(q.h) }

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) >> 2
		if !q.h[i].before(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	n := last
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		best := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if q.h[j].before(&q.h[best]) {
				best = j
			}
		}
		if !q.h[best].before(&q.h[i]) {
			break
		}
		q.h[i], q.h[best] = q.h[best], q.h[i]
		i = best
	}
	return top
}

func (q *eventQueue) peek() *event { return &q.h[0] }
