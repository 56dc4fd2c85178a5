package reference

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
)

// never is a time that does not come: a resource busy until never is busy
// until some later event says otherwise.
const never = math.MaxInt64

// message is one message of a terminal.
type message struct {
	src, dst  int   // terminals
	created   int64 // T_m
	tag       int64 // traffic.Msg.Tag
	packets   int   // how many packets it is cut into
	delivered int   // how many of them have been delivered
	bytes     int   // payload
	// mode is the routing mode its source chose for it + 1 when the source
	// routes application-aware (0: not chosen yet).
	mode int8
	// get: it goes as a rendezvous (traffic.Msg.Get): an RTS, GET
	// requests, data responses.
	get bool
}

// packet is one packet, from its creation at the source to its delivery.
type packet struct {
	msg      *message // nil for an acknowledgement
	kind     pktKind
	created  int64 // creation instant of a packet queued among responses
	srcNode  int
	dstNode  int
	dstLID   uint16
	sl       uint8
	payload  int
	flits    int
	seq      int64 // at its source, from 1
	injected int64 // the instant its injection started
	// The switches of its source and destination HCAs.
	srcSw, dstSw int
	// Source routing: the switch-to-switch hops it has taken.
	hops int
	// Adaptive routing: the candidates drawn at its creation, the route
	// it takes, its mode.
	cands []routing.Route
	route routing.Route
	mode  routing.Mode
	// again: it was lost and waits, or went, among its source's
	// responses to be sent again (Timeline).
	again bool
	// escape: injected while the sources were migrated: its SL is the
	// escape tables', which route it at every switch (Timeline).
	escape bool
}

// kind says what a packet is (sim/doc.go: NIC window, Rendezvous).
type pktKind uint8

const (
	data    pktKind = iota // a packet of a message, a PUT
	ack                    // the acknowledgement of a packet (HW.NICWindow)
	rts                    // a rendezvous' request to send, its message's one packet at the source
	getReq                 // a rendezvous' GET request, for the data of payload bytes
	getData                // a rendezvous' data response: a packet of its message
)

// lastFlitBytes is how many bytes the packet's last flit holds: a packet
// of a message (a PUT's or a GET's data) carries its payload and headers,
// every other kind its headers alone.
func (p *packet) lastFlitBytes(hw fabric.Hardware) int {
	if p.kind == data || p.kind == getData {
		return hw.LastFlitBytes(p.payload)
	}
	return hw.LastFlitBytes(0)
}

// flitPs is how long flit k of packet p takes where a flit takes ft (a
// cable, or a host bus): ft, its last flit with HW.WireBytes its bytes'
// share of ft.
func (s *simulator) flitPs(p *packet, k int, ft int64) int64 {
	if k == p.flits-1 {
		return s.p.HW.LastFlitPs(ft, p.lastFlitBytes(s.p.HW))
	}
	return ft
}

// trainPs is how long packet p takes on a cable of flit time ft.
func (s *simulator) trainPs(p *packet, ft int64) int64 {
	return int64(p.flits-1)*ft + s.flitPs(p, p.flits-1, ft)
}

// queued: the packet waits among its HCA's responses, not in its message
// order.
func (p *packet) queued() bool { return p.kind == ack || p.kind == getReq || p.kind == getData }

// response: the packet counts as a response in the NIC counters.
func (p *packet) response() bool { return p.kind == ack || p.kind == getData }

// hop is a packet's passage through one node: its stay in an input buffer
// (at a switch or at its destination HCA) and, at a switch or its source
// HCA, its departure through an output port. A packet has one hop per node
// on its path.
type hop struct {
	p *packet
	// buf is the input buffer it arrives in (nil at the source HCA).
	buf *inBuf
	// arr[k] is when flit k fully arrived; arrived counts them.
	arr     []int64
	arrived int
	// out and outVL are the port the packet leaves through and its VL on
	// that cable (out is nil at a switch without a port for it: the packet
	// never moves on).
	out   *port
	outVL int
	// Crossbar progress: crossed counts the flits that have crossed,
	// lastCross is when the last of them did, waiting says the next flit's
	// crossing waits for it to arrive.
	crossed   int
	lastCross int64
	waiting   bool
	// lost: out's cable was down when it was granted; its flits cross
	// into nothing.
	lost bool
	// d0 is when flit 0 started onto out's cable; next is the hop at the
	// far end, made when flit 0 starts.
	d0   int64
	next *hop
}

// inBuf is the input buffer of one VL at one port (a FIFO of packets at a
// switch, the receive buffer at an HCA).
type inBuf struct {
	at  *port
	vl  int
	cap int
	// occ counts the flits in the buffer: arrived and not yet crossed (at
	// a switch) or consumed (at an HCA).
	occ int
	// q holds the packets whose head has arrived and that have not been
	// granted, in arrival order; q[0] is the head packet (switches only).
	// With VOQ every output considers the oldest packet for it in q.
	q []*hop
	// free is free(i, v): when the previous packet has crossed.
	free int64
	// lastRead is when the buffer's last flit crossed, -1 before any.
	lastRead int64
}

// head returns the buffer's head packet, or nil.
func (b *inBuf) head() *hop {
	if len(b.q) == 0 {
		return nil
	}
	return b.q[0]
}

// qflit is a flit waiting in a port's output queue for the cable: at a
// switch the output buffer, at an HCA the packet being injected.
type qflit struct {
	h     *hop
	k     int
	ready int64 // when it entered the queue (its crossing, or the injection)
}

// port is one end of a cable at a node: the receiving side (its input
// buffers) and the sending side (credits, output queue, cable and, at a
// switch, the crossbar path and the arbiter of the output).
type port struct {
	node     int
	num      int
	isSwitch bool
	peer     *port
	// in holds one input buffer per VL.
	in []*inBuf

	// credits[v] are the free places of the peer's buffer for VL v this
	// side knows of; capacity is that buffer's size.
	credits  []int
	capacity int

	// ring is the torus ring of the channel leaving here
	// (fabric.Network.Ring), -1 off the rings.
	ring int

	// The output queue and the cable; ft is a flit's time on the cable
	// (its class's rate, the same at both ends).
	queue        []qflit
	startPending bool  // a cable-start event for the queue's head is scheduled
	cableFree    int64 // previous flit's start + ft
	ft           int64

	// Switch outputs only.
	held      int      // flits crossed into the output buffer, not yet started
	xbar      int64    // xbar(o): when the crossbar path is free
	lastCross int64    // when the last flit crossed into this output, -1 before any
	lastVL    int      // VL of the last grant
	lastPort  []int    // per VL, input port of the last grant on it
	cand      []*inBuf // input buffers whose competing packet routes to this output
	decideAt  int64    // instant of the latest decision event scheduled, -1 if none

	// hca is the HCA this port sends for (its lowest cabled port), or nil.
	hca *hca
	// Counters (Params.Counters): flits and packets sent, time stalled,
	// and whether a stall is open since stallFrom.
	sentFlits, sentPackets, stalled int64
	sentPs                          int64 // the sent packets' time on the cable
	// respFlits and respPackets: the responses an HCA's port sent (NIC
	// window), which its request counts leave out.
	respFlits, respPackets int64
	stalling               bool
	stallFrom              int64
}

// busFlit is a flit that has arrived at a sink and waits for its host bus.
type busFlit struct {
	h       *hop
	k       int
	arrival int64
}

// hca is a terminal: a source of messages and a sink.
type hca struct {
	term int
	node int
	port *port // lowest cabled port, the one it sends through
	sw   int   // the switch that port is cabled to
	rng  *rand.Rand
	// routeRng draws adaptive routes' candidates (nil: routed by tables),
	// respRng those of its responses.
	routeRng, respRng *rand.Rand
	// With a NIC window: responses to send, oldest first, and the packets
	// it injected whose responses have not arrived.
	resp        []*packet
	outstanding int

	// Source.
	msg      *message // the message being cut into packets
	left     int      // its payload bytes not yet cut
	done     bool     // the source has no more messages for it
	sent     int64    // payload of the messages created
	lastDone int64    // delivery of its last counted message (0: none)
	cur      *packet  // the next packet to inject, nil when done
	linkFree int64    // start of the previous packet + its flits·ft
	seq      int64    // packets created
	decideAt int64    // instant of the latest decision event scheduled
	// ask: a delivery woke the source, which is asked for the next
	// message at the instant's decision, once every delivery of the
	// instant is booked (sim's package doc, "Traffic").
	ask bool
	// later: the source said to ask again (Later), at laterAt or when a
	// delivery wakes it; every decision asks it until it answers.
	later   bool
	laterAt int64

	// Sink.
	bus     []busFlit // arrived flits not yet consumed, in arrival order
	busy    bool      // the head of bus is being consumed
	phi     int64     // hiccup phase
	win     [2]int64  // payload delivered in windows of even and odd index
	stats   welford   // samples of its consumption bandwidth, GB/s
	payload int64     // payload delivered in all
	// latency counts its own packets' latencies (Params.Counters).
	latency sim.LatencyHist
	// aa is its application-aware routing state (nil: off).
	aa *sim.AppAware
	// With a timeline: its packets injected and neither delivered nor
	// lost, and the migration state of its last injection.
	inflight int
	state    int
}

// welford keeps a running mean and variance.
type welford struct {
	n    int
	mean float64
	m2   float64
}

func (w *welford) add(x float64) {
	w.n++
	d := x - w.mean
	w.mean += d / float64(w.n)
	w.m2 += d * (x - w.mean)
}

// sd is the sample standard deviation (0 below two samples).
func (w *welford) sd() float64 {
	if w.n < 2 {
		return 0
	}
	return math.Sqrt(w.m2 / float64(w.n-1))
}

// z99 is the two-sided 99 % quantile of the normal distribution.
const z99 = 2.5758293035489

// halfWidth is the 99 % confidence half-width of the mean of independent
// samples (a sink's steadiness).
func (w *welford) halfWidth() float64 {
	if w.n < 2 {
		return 0
	}
	return z99 * w.sd() / math.Sqrt(float64(w.n))
}

// batchMeansHalfWidth is the 99 % confidence half-width of the mean of
// the window totals ws by batch means, as the package doc of sim says:
// batch j of k (from the end) averages windows n−(k−j)·b … n−(k−j−1)·b−1.
func batchMeansHalfWidth(ws []float64) float64 {
	n := len(ws)
	if n < 2 {
		return 0
	}
	k := 20
	if n < k {
		k = n
	}
	b := n / k
	var batches welford
	for j := 0; j < k; j++ {
		from := n - (k-j)*b
		sum := 0.0
		for i := from; i < from+b; i++ {
			sum += ws[i]
		}
		batches.add(sum / float64(b))
	}
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(k - 1)}.Quantile(0.995)
	return t * batches.sd() / math.Sqrt(float64(k))
}
