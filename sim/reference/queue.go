package reference

// phase orders the things that happen at one instant, as the five steps of
// the specification (sim/doc.go, "Units and instants").
type phase int8

const (
	// phaseArrive: flits finish arriving, credits arrive, sinks finish
	// consuming flits (step 1).
	phaseArrive phase = iota
	// phaseRoute: packets routed adaptively choose their route at a
	// switch, seeing every arrival and credit of the instant (between
	// steps 1 and 2).
	phaseRoute
	// phaseCross: crossbars move flits into output buffers (step 2).
	phaseCross
	// phaseCable: output buffers start flits onto cables (step 3).
	phaseCable
	// phaseDecide: switch outputs arbitrate, HCAs decide to inject (step 4).
	phaseDecide
	// phaseSample: the steady-state controller samples (step 5).
	phaseSample
)

// kind says what an event does.
type kind int8

const (
	evArrive     kind = iota // flit k of a hop has fully arrived in its input buffer
	evCredit                 // one credit for a VL arrives at a sending port
	evConsumed               // a sink's bus has finished the flit at the head of its queue
	evRoute                  // an adaptively routed packet's head chooses its way at a switch
	evCross                  // flit k of a hop crosses the crossbar into the output buffer
	evCableStart             // a port starts the flit at the head of its output queue onto the cable
	evDecide                 // a switch output arbitrates, or an HCA decides whether to inject
	evSample                 // the steady-state controller closes a window
	evLink                   // a cable changes state (Timeline): its sending port decides
	evResend                 // a lost packet is queued again at its source (Timeline)
	evMigrate                // the sources migrate to the escape tables or back (Timeline): every HCA decides
)

// phaseOf gives every kind of event its step of an instant.
var phaseOf = [...]phase{
	evArrive:     phaseArrive,
	evCredit:     phaseArrive,
	evConsumed:   phaseArrive,
	evRoute:      phaseRoute,
	evCross:      phaseCross,
	evCableStart: phaseCable,
	evDecide:     phaseDecide,
	evSample:     phaseSample,
	evLink:       phaseArrive,
	evResend:     phaseArrive,
	evMigrate:    phaseArrive,
}

// network reports whether events of kind k move flits or credits (as
// opposed to decisions and the controller).
func (k kind) network() bool { return k <= evCableStart || k >= evLink }

// event is one thing that happens at an instant. Which fields are used
// depends on the kind.
type event struct {
	t    int64 // instant, ps
	ph   phase // step within the instant
	kind kind
	k    int   // flit index (evArrive, evCross)
	vl   int   // virtual lane (evCredit)
	h    *hop  // the packet at one hop (evArrive, evCross)
	port *port // evCredit, evCableStart, evDecide (switch output or HCA port)
	hca  *hca  // evConsumed
}

// entry is an event's place in the heap: its order key and where the event
// is stored. Keeping the heap small and free of pointers keeps it fast.
type entry struct {
	t   int64
	key uint64 // phase in the top byte, sequence number below
	id  int32  // index into eventQueue.events
}

func (a entry) before(b entry) bool {
	return a.t < b.t || (a.t == b.t && a.key < b.key)
}

// eventQueue is a plain binary min-heap of events ordered by (instant,
// phase, sequence number), where the sequence number counts the events in
// the order they were scheduled: a total order, so runs are reproducible.
type eventQueue struct {
	heap   []entry
	events []event // storage, indexed by entry.id
	free   []int32 // unused slots of events
	seq    uint64
}

func (q *eventQueue) len() int { return len(q.heap) }

// nextInstant returns the instant of the earliest event; the queue must not
// be empty.
func (q *eventQueue) nextInstant() int64 { return q.heap[0].t }

// each calls f for every queued event, in no particular order.
func (q *eventQueue) each(f func(e *event)) {
	for _, en := range q.heap {
		f(&q.events[en.id])
	}
}

// push queues e behind every queued event of its instant and phase.
func (q *eventQueue) push(e event) {
	var id int32
	if n := len(q.free); n > 0 {
		id = q.free[n-1]
		q.free = q.free[:n-1]
		q.events[id] = e
	} else {
		id = int32(len(q.events))
		q.events = append(q.events, e)
	}
	q.seq++
	q.heap = append(q.heap, entry{t: e.t, key: uint64(e.ph)<<56 | q.seq, id: id})
	i := len(q.heap) - 1
	for i > 0 {
		parent := (i - 1) / 2
		if !q.heap[i].before(q.heap[parent]) {
			break
		}
		q.heap[i], q.heap[parent] = q.heap[parent], q.heap[i]
		i = parent
	}
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() event {
	top := q.heap[0]
	last := len(q.heap) - 1
	q.heap[0] = q.heap[last]
	q.heap = q.heap[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && q.heap[l].before(q.heap[m]) {
			m = l
		}
		if r < last && q.heap[r].before(q.heap[m]) {
			m = r
		}
		if m == i {
			break
		}
		q.heap[i], q.heap[m] = q.heap[m], q.heap[i]
		i = m
	}
	e := q.events[top.id]
	q.events[top.id] = event{}
	q.free = append(q.free, top.id)
	return e
}
