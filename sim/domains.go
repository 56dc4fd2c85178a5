package sim

import (
	"encoding/binary"
	"hash"
	"hash/fnv"
	"math"
	"runtime"
	"slices"
	"strconv"

	"flitsim/fabric/invariants"
)

// A run cut into domains (Params.Domains). Nothing a node does reaches
// another node sooner than one cable delay later: a head arrives after a
// cable and a flit, a credit after a cable. So the fabric is cut into
// domains of nodes (each HCA with its switch), every domain keeps its own
// event queue, and the run advances in windows: from the earliest queued
// event W, every domain runs its events before W + cable delay on its
// own, and what a domain's events do to another domain's nodes waits in
// its mailbox until the window ends:
//
//   - a packet's head reaching a node of another domain (an event there);
//   - the credits a switch frees on an input lane whose sender is in
//     another domain, and the wake-up they may bring that sender.
//
// Both come due at or after the window's end, so the other domain could
// not have used them sooner. Within a window a domain depends on nothing
// but itself, and so the windows' events may run on one goroutine per
// domain, or interleaved on one, with the same outcome: results do not
// depend on Params.Workers. They do depend on the cut: a credit the
// sender learns of at the window's end instead of when it was freed
// changes which events are queued (a sender with no known credits notes
// its need and is woken, instead of scheduling its retry at once), not
// when anything moves; the run's events and trace hash differ from an
// uncut run's, everything else agrees (the differential tests run cut
// runs against the reference simulator).
//
// The controllers run between windows: a window never passes a steady
// state sample or the time limit, the totals (packets in the network,
// deliveries, flit-hops, the horizon) are folded into domain 0 at each
// window's end, and a deadlock is found there. Finite traffic ends at the
// instant its last counted message is delivered, which the coordinator
// must see as it happens: a window runs on several goroutines only while
// more counted messages remain than the HCAs could deliver in one window
// (bound); otherwise its events run interleaved in time order on one,
// which stops at the completing instant as the uncut loop does.
//
// Shared state is written by one domain at a time: a channel and its
// lanes' sender fields by the sending node's domain, a lane's buffer by
// the receiving node's, a packet by the domain of the node that holds it.
// Packets come from one slab; each domain has its own free list, which
// the coordinator tops up between windows (growing the slab only then), and
// a domain whose list runs dry ends its window early. A lane's credit
// queue lives in its sender's domain's arena.

// domains is the state a cut run's domains share.
type domains struct {
	doms    []*simulator // doms[0] is the run's simulator
	domOf   []uint8      // node → domain
	workers int
	// bound is the most counted messages one window can complete: each
	// HCA's host bus finishes a packet at most once per flit time of the
	// bus.
	bound int64
	// parallel is set while a window runs on several goroutines.
	parallel bool
	// forced runs every window on the workers (Params.Workers set);
	// otherwise a window runs on them only when the one before held
	// parallelEvents events or more (handing a window over costs some
	// microseconds, and a short cable makes windows of a few events).
	forced     bool
	lastEvents int64
	// lastParallel: the window just run ran on the workers, which then
	// deliver its mail too.
	lastParallel bool
	start        []chan job // per worker beyond the first: its next job
	done         chan struct{}
}

// job is what the workers do next: run a window up to end, or deliver
// the mail of their domains (mail).
type job struct {
	end  uint64
	mail bool
}

// domainMem is what a domain keeps for itself beyond its kernel and
// totals: its mailbox, the counted deliveries whose sources it books at
// the window's end, its free packets, and its trace hash.
type domainMem struct {
	out     []event    // head arrivals at other domains' nodes
	ops     []creditOp // credits freed for other domains' senders
	done    []doneRec  // counted deliveries: their sources' completion instants
	nfree   int        // packets on the free list
	formed  int        // packets formed in the window
	starved bool       // its free list ran dry: its window ended early
	need    int        // the free packets the event it starved on takes
	th      hash.Hash64
}

// creditOp is a grant's credits for an input lane whose sender is another
// domain's: the crossbar-bound and arrival-bound releases of move, and the
// sender's wake-up from first on.
type creditOp struct {
	l              int32
	n1, n2, n3     int32
	t1, dt1        int64
	t2, dt2, first int64
	t3, dt3        int64 // a short last flit's credit (HW.WireBytes)
}

// doneRec is a counted delivery of a message from HCA src (its index) at at.
type doneRec struct {
	src int32
	at  int64
}

// autoDomainHCAs is the fabric size from which Params.Domains = 0 cuts a
// run in two: below it a window holds too few events to pay for the
// mailboxes (and the campaigns' fabrics, all smaller, keep their event
// counts).
const autoDomainHCAs = 8192

// parallelEvents is the events a window needs for its successor to run
// on several goroutines when Params.Workers is 0.
const parallelEvents = 4096

// evKey is the queue's order key of an instant and phase.
func evKey(at int64, phase uint8) uint64 { return uint64(at)<<2 | uint64(phase) }

// cut cuts the run into domains, if Params.Domains (or its default) asks
// for more than one and the run allows it: tables, no adaptive routing
// (a route choice reads other outputs' credits), no jobs (a workload's
// messages wait on deliveries elsewhere), and a cable delay to look ahead
// by.
func (s *simulator) cut() {
	n := s.p.Domains
	if n == 0 {
		n = 1
		if s.net.NumHCAs() >= autoDomainHCAs {
			n = 2
		}
	}
	n = min(n, s.net.NumSwitches, math.MaxUint8)
	if n <= 1 || s.ad != nil || s.jobs != nil || s.tm != nil || s.prop <= 0 {
		return
	}
	p := &domains{domOf: s.partition(n), forced: s.p.Workers > 0}
	p.workers = s.p.Workers
	if p.workers == 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	p.workers = max(1, min(p.workers, n))
	if pf := s.pcieFt; pf > 0 {
		p.bound = int64(len(s.hcas)) * (s.prop/pf + 1)
	} else {
		p.bound = math.MaxInt64
	}
	for i := range n {
		d := s
		if i > 0 {
			c := *s
			d = &c
			d.k = kernel{endAt: never}
			d.k.q.reverseTies = s.k.q.reverseTies
			d.res = Result{}
			d.cr = newCredits(s.voq)
			d.free = -1
			d.inNetwork, d.firstInject, d.lastDone, d.payload, d.countedDone, d.horizon = 0, -1, 0, 0, 0, 0
			if s.ctr != nil {
				d.ctr = &counting{ch: s.ctr.ch, respFlits: s.ctr.respFlits, respPkts: s.ctr.respPkts, hist: make([]LatencyHist, len(s.hcas))}
				if s.ctr.ser != nil {
					d.ctr.ser = NewSeriesTally(s.ctr.ser.window, len(s.jobs))
				}
			}
		}
		d.par, d.dom = p, uint8(i)
		d.dmem = domainMem{th: fnv.New64a()}
		p.doms = append(p.doms, d)
	}
	for i := range s.chans {
		c := &s.chans[i]
		c.toDom = p.domOf[c.to]
		for v := range s.nVL {
			s.lanes[i*s.nVL+v].fromDom = p.domOf[c.from]
		}
	}
	s.res.Domains = n
	for _, d := range p.doms {
		p.refill(d, 64)
	}
}

// partition assigns every node a domain: the switches by level (hops from
// the nearest switch with HCAs), each level's in index order cut into n
// equal runs, so that every domain has its share of every level (of a fat
// tree's leaves, middle and top, which carry different loads) and the
// generators' numbering keeps neighbours together; an HCA goes with its
// switch.
func (s *simulator) partition(n int) []uint8 {
	ns := s.net.NumSwitches
	adj := make([][]int32, ns)
	level := make([]int32, ns)
	for i := range level {
		level[i] = -1
	}
	var q []int32
	for i := range s.hcas {
		if sw := s.chans[s.hcas[i].ch].to; level[sw] < 0 {
			level[sw] = 0
			q = append(q, sw)
		}
	}
	for i := range s.chans {
		c := &s.chans[i]
		if int(c.from) < ns && int(c.to) < ns {
			adj[c.from] = append(adj[c.from], c.to)
		}
	}
	slices.Sort(q)
	top := int32(0)
	for len(q) > 0 {
		v := q[0]
		q = q[1:]
		top = max(top, level[v])
		for _, w := range adj[v] {
			if level[w] < 0 {
				level[w] = level[v] + 1
				q = append(q, w)
			}
		}
	}
	byLevel := make([][]int32, top+2)
	for i, l := range level {
		if l < 0 {
			l = top + 1 // unreachable from any HCA
		}
		byLevel[l] = append(byLevel[l], int32(i))
	}
	dom := make([]uint8, len(s.net.Nodes))
	for _, sws := range byLevel {
		for r, sw := range sws {
			dom[sw] = uint8(r * n / len(sws))
		}
	}
	for i := range s.hcas {
		dom[s.hcas[i].node] = dom[s.chans[s.hcas[i].ch].to]
	}
	return dom
}

// refill puts n new packets on domain d's free list, growing the slab
// every domain shares (between windows only).
func (p *domains) refill(d *simulator, n int) {
	invariants.Checkf(!p.parallel, "packet slab grown during a parallel window")
	s := p.doms[0]
	base := len(s.pkts)
	s.pkts = append(s.pkts, make([]packet, n)...)
	s.info = append(s.info, make([]packetInfo, n)...)
	for _, x := range p.doms {
		x.pkts, x.info = s.pkts, s.info
	}
	for i := base + n - 1; i >= base; i-- {
		d.pkts[i].next = d.free
		d.free = int32(i)
	}
	d.dmem.nfree += n
}

// loopDomains is loop for a run cut into domains.
func (s *simulator) loopDomains() {
	p := s.par
	k := &s.k
	p.startWorkers()
	defer p.stopWorkers()
	for !k.stop {
		p.barrier()
		// Nothing queued anywhere with packets inside: deadlock (a
		// completed run ends at its instant whatever is left).
		if k.endAt == never && p.modelEvents() == 0 && s.inNetwork > 0 {
			s.deadlocked()
			break
		}
		next := p.peek()
		if next == nil || next.at > k.endAt {
			break
		}
		if next.at > s.p.MaxTime {
			s.timeLimit()
			break
		}
		if next.kind == evSample { // domain 0's, as loop runs it
			if next.at > s.horizon && s.inNetwork > 0 {
				k.now = next.at
				if s.frozen() {
					s.deadlocked()
					break
				}
			}
			e := k.q.pop()
			k.now = e.at
			s.handle(e, s.dmem.th)
			for _, d := range p.doms[1:] {
				d.steady = s.steady
			}
			continue
		}
		end := min(evKey(next.at+s.prop, phaseArrive), evKey(s.p.MaxTime+1, phaseArrive))
		if s.steadyMode() {
			end = min(end, evKey((s.steady.windows+1)*s.p.SampleWindow, phaseCtl))
		}
		before := s.res.Events + p.events()
		p.lastParallel = p.workers > 1 && (p.forced || p.lastEvents >= parallelEvents) && (s.counted == 0 || s.counted-s.countedDone > p.bound)
		if p.lastParallel {
			p.runParallel(end)
		} else {
			p.interleave(end)
		}
		p.lastEvents = s.res.Events + p.events() - before
		if ev := s.res.Events + p.events(); ev >= s.watchAt {
			s.tell(ev)
		}
	}
	p.barrier()
	if s.ctr != nil {
		for _, d := range p.doms[1:] {
			for i := range d.ctr.hist {
				s.ctr.hist[i].Merge(&d.ctr.hist[i])
			}
			s.ctr.ser.Merge(d.ctr.ser)
		}
	}
	if s.p.Record {
		slices.SortStableFunc(s.res.Deliveries, func(a, b Delivery) int { return int(a.DonePs - b.DonePs) })
	}
	if s.p.TraceHash {
		h := fnv.New64a()
		for _, d := range p.doms {
			h.Write(binary.LittleEndian.AppendUint64(nil, d.dmem.th.Sum64()))
		}
		s.res.TraceHash = strconv.FormatUint(h.Sum64(), 16)
	}
}

// peek returns the earliest queued event of all domains (nil: none).
func (p *domains) peek() *event {
	var best *event
	for _, d := range p.doms {
		if d.k.q.len() == 0 {
			continue
		}
		if e := d.k.q.peek(); best == nil || evKey(e.at, e.phase) < evKey(best.at, best.phase) {
			best = e
		}
	}
	return best
}

// events is the number of events the domains beyond the first have run
// since the last barrier (it folds them into domain 0).
func (p *domains) events() int64 {
	var n int64
	for _, d := range p.doms[1:] {
		n += d.res.Events
	}
	return n
}

// modelEvents is the number of model events queued in all domains.
func (p *domains) modelEvents() int64 {
	var n int64
	for _, d := range p.doms {
		n += d.k.modelEvents
	}
	return n
}

// step runs the domain's next event.
func (s *simulator) step() {
	e := s.advance()
	invariants.Checkf(e.kind != evSample, "a controller's sample inside a window")
	s.handle(e, s.dmem.th)
}

// window runs the domain's events before key end, or until its free
// packets run short of what the next event may form (needs).
func (s *simulator) window(end uint64) {
	for s.k.q.len() > 0 {
		e := s.k.q.peek()
		if evKey(e.at, e.phase) >= end {
			return
		}
		if s.starve(e) {
			return
		}
		s.step()
	}
}

// needs returns how many packets handling e may form: one at most,
// except the delivery of a rendezvous' RTS, which forms its
// acknowledgement and a GET request per packet of its message.
func (s *simulator) needs(e *event) int {
	if e.kind == evDone && s.info[e.ref].kind == kindRTS {
		return 1 + int(s.rtsPackets(e.ref))
	}
	return 1
}

// starve reports whether the domain lacks the free packets e may form,
// and then marks it starved until the next refill.
func (s *simulator) starve(e *event) bool {
	n := s.needs(e)
	if s.dmem.nfree >= n {
		return false
	}
	s.dmem.starved, s.dmem.need = true, max(s.dmem.need, n)
	return true
}

// interleave runs a window's events of all domains on this goroutine in
// time order, which lets it stop at the instant the last counted message
// is delivered (as the uncut loop does); each domain's events are the same
// as its window alone would run.
func (p *domains) interleave(end uint64) {
	s := p.doms[0]
	for {
		var d *simulator
		best := end
		for _, x := range p.doms {
			if x.dmem.starved || x.k.q.len() == 0 {
				continue
			}
			if e := x.k.q.peek(); evKey(e.at, e.phase) < best {
				best, d = evKey(e.at, e.phase), x
			}
		}
		if d == nil || int64(best>>2) > s.k.endAt {
			return
		}
		if d.starve(d.k.q.peek()) {
			continue
		}
		d.step()
		if s.counted > 0 && s.k.endAt == never && p.countedDone() == s.counted {
			s.k.endAt = d.k.now
		}
	}
}

// countedDone is the number of counted messages delivered in all domains.
func (p *domains) countedDone() int64 {
	var n int64
	for _, d := range p.doms {
		n += d.countedDone
	}
	return n
}

// runParallel runs a window's events with one goroutine per worker, each
// taking every workers-th domain.
func (p *domains) runParallel(end uint64) {
	p.parallel = true
	p.hand(job{end: end})
	p.parallel = false
}

// hand runs job j on every worker, this goroutine being the first.
func (p *domains) hand(j job) {
	for _, c := range p.start {
		c <- j
	}
	p.runShare(0, j)
	for range p.start {
		<-p.done
	}
}

func (p *domains) runShare(w int, j job) {
	for i := w; i < len(p.doms); i += p.workers {
		if j.mail {
			p.deliver(p.doms[i])
		} else {
			p.doms[i].window(j.end)
		}
	}
}

func (p *domains) startWorkers() {
	p.done = make(chan struct{})
	for w := 1; w < p.workers; w++ {
		c := make(chan job)
		p.start = append(p.start, c)
		go func() {
			for j := range c {
				p.runShare(w, j)
				p.done <- struct{}{}
			}
		}()
	}
}

func (p *domains) stopWorkers() {
	for _, c := range p.start {
		close(c)
	}
	p.start = nil
}

// deliver hands domain d its mail, in the order of the sending domains:
// the heads arriving at its nodes, and the credits freed for its senders
// with the wake-ups they bring.
func (p *domains) deliver(d *simulator) {
	for _, src := range p.doms {
		m := &src.dmem
		for _, e := range m.out {
			if p.domOf[e.node] == d.dom {
				d.k.schedule(e)
			}
		}
		for i := range m.ops {
			op := &m.ops[i]
			ln := &d.lanes[op.l]
			if ln.fromDom != d.dom {
				continue
			}
			d.releaseOp(ln, op, d.k.now)
			d.wakeSender(int(op.l), op.first)
		}
	}
}

// barrier ends a window: it delivers the mailboxes in domain order (so
// that every target queue and credit queue sees them in one order,
// whatever ran the window), books counted deliveries, folds the domains'
// totals into domain 0, shares the horizon and the smallest packet, and
// tops up the free packet lists.
func (p *domains) barrier() {
	s := p.doms[0]
	// The smallest packet first: the wake-ups below bound their tries by it.
	minFlits := s.minFlits
	for _, d := range p.doms {
		minFlits = min(minFlits, d.minFlits)
	}
	for _, d := range p.doms {
		d.minFlits = minFlits
	}
	// Each domain takes its mail from the others, on the workers when the
	// window ran on them (what it does touches that domain's state alone).
	if p.lastParallel {
		p.hand(job{mail: true})
	} else {
		for _, d := range p.doms {
			p.deliver(d)
		}
	}
	for _, src := range p.doms {
		m := &src.dmem
		m.out, m.ops = m.out[:0], m.ops[:0]
		for _, r := range m.done {
			hc := &s.hcas[r.src]
			hc.doneAt = max(hc.doneAt, r.at)
		}
		m.done = m.done[:0]
	}
	horizon := s.horizon
	for _, d := range p.doms[1:] {
		r, dr := &s.res, &d.res
		r.Events += dr.Events
		r.FlitHops += dr.FlitHops
		r.FlitsInjected += dr.FlitsInjected
		r.FlitsConsumed += dr.FlitsConsumed
		r.Packets += dr.Packets
		r.Messages += dr.Messages
		r.Deliveries = append(r.Deliveries, dr.Deliveries...)
		dr.Events, dr.FlitHops, dr.FlitsInjected, dr.FlitsConsumed, dr.Packets, dr.Messages = 0, 0, 0, 0, 0, 0
		dr.Deliveries = dr.Deliveries[:0]
		s.inNetwork += d.inNetwork
		s.countedDone += d.countedDone
		s.payload += d.payload
		d.inNetwork, d.countedDone, d.payload = 0, 0, 0
		s.lastDone = max(s.lastDone, d.lastDone)
		if d.firstInject >= 0 && (s.firstInject < 0 || d.firstInject < s.firstInject) {
			s.firstInject = d.firstInject
		}
		horizon = max(horizon, d.horizon)
	}
	for _, d := range p.doms {
		d.horizon = horizon
		d.k.endAt = s.k.endAt
		// A window forms at most a few packets per HCA; keep four
		// windows' worth at hand.
		if want := max(64+4*d.dmem.formed, d.dmem.need); d.dmem.nfree < want {
			p.refill(d, want-d.dmem.nfree)
		}
		d.dmem.formed, d.dmem.starved, d.dmem.need = 0, false, 0
	}
}
