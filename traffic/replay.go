package traffic

import (
	"fmt"
	"math"
	"slices"
	"sync"

	"flitsim/fabric/param"
)

// Replay: a trace job runs its Program's calls rank by rank (the Source
// side of pattern "trace"). Each rank keeps a clock: the computation
// before a call (Call.Compute, times the job's compute_scale) moves it on;
// a send creates its message at the clock (every send is eager: the rank
// goes on at once, and a request of a send is complete when created); a
// receive, a probe or a collective's wait holds the rank until the message
// it waits for has been delivered, and the clock moves to that delivery.
//
// Point-to-point messages match as MPI matches them: on a channel (source,
// communicator, tag) the k-th receive posted takes the k-th message sent.
// A receiving rank takes a source's messages in the order that source sent
// them (as a reliable connection delivers them; a message the network
// delivers early waits for those sent before it), matches each with the
// oldest receive posted on its channel, or keeps it until one is posted.
// A wildcard receive was resolved by the trace (its status names the
// source and tag matched in the traced run), so the replay matches what
// the traced run matched. What a rank keeps follows what is in flight and
// posted, not the trace's length.
// Collectives become messages by their algorithms (replaycoll.go). A
// message of no bytes travels as one of one byte (a header packet), and a
// message to oneself is delivered at once without the network.

// msgKey is a message's envelope: a point-to-point message's (src its
// sender's world rank, comm, tag, seq its ordinal among the messages from
// src to its destination) or a collective instance's round's (src −1, tag
// the round, seq the instance), whose messages a rank counts.
type msgKey struct {
	src, comm, tag int32
	seq            int64
}

// p2p reports whether k is a point-to-point message's envelope.
func (k msgKey) p2p() bool { return k.src >= 0 }

type arrival struct {
	n    int32
	last int64
}

// rop is a primitive step of a rank: send to a world rank (key the
// envelope; a point-to-point message's seq is given when it is sent); wait
// for count messages of a collective's key (del: and forget them); wait
// for posted receive recv to be matched; or, probe, for a message on
// channel ch no receive has taken.
type rop struct {
	kind  ropKind
	dst   int32
	bytes int64
	key   msgKey
	count int32
	del   bool
	recv  int64
	ch    chanKey
}

type ropKind uint8

const (
	ropSend ropKind = iota
	ropColl
	ropRecv
	ropProbe
	ropWaitColl // wait for nonblocking collective recv (its id) to end
)

type chanKey struct{ peer, comm, tag int32 }

// bgColl is a nonblocking collective of a rank: its steps, which run
// beside the rank's calls as their needs are met, and its own clock (when
// its next step may go: its post, then its needs' arrivals).
type bgColl struct {
	ops   []rop
	opi   int
	clock int64
	done  bool
}

// replayRank is a rank's place in the program.
type replayRank struct {
	rd     CallReader
	pass   int // passes begun (iterations)
	calls  int64
	clock  int64
	ops    []rop // the steps of the call under way, ops[opi:] still to do
	opi    int
	op     CallOp // the call under way
	start  int64  // when it began (after its computation)
	inCall bool
	reqs   requests // receives by request handle, oldest first (a tracer's handles recur)
	// Nonblocking collectives under way (Call.Async), by id in the order
	// posted, beside the rank's calls; creqs finds them by request handle.
	colls    map[int64]*bgColl
	bg       []int64 // the ids of those not yet ended, in order
	ncoll    int64
	creqs    requests
	ranOut   bool               // its calls are all read; it ends with its collectives
	arrived  map[msgKey]arrival // collectives' messages, by instance and round
	inst     map[int32]int64    // collective instances begun per communicator
	inflight window[msgKey]     // envelopes of the messages sent and not yet delivered, by tag
	nmsg     int64
	// Point-to-point: messages sent to each rank and taken from each (by
	// world rank, made on first use), messages delivered ahead of one sent
	// before them, and per channel the messages no receive has taken or
	// the receives no message has matched.
	sentTo, takenFrom []int64
	early             map[[2]int64]earlyMsg // by sender and ordinal
	chans             map[chanKey]*chanQueue
	recvs             window[recvState] // posted receives, by their ordinal
	nrecv             int64
	spare             []*chanQueue // emptied queues, to use again
	waiting           bool
	done              bool
	stats             RankStats
}

// RankStats is what a rank of a trace job did: per call kind the calls and
// the time spent in them (from the call's start to its end on the
// simulated network), and the computation between calls.
type RankStats struct {
	Calls   [numCallOps]int64
	InCalls [numCallOps]int64 // ps
	Traced  [numCallOps]int64 // ps: the same calls' time in the traced run
	Compute int64             // ps
	End     int64             // the instant its last call ended
}

// replay is the state of a trace job.
type replay struct {
	prog   Program
	comms  [][]int32
	rankOf [][]int32 // per communicator: world rank -> its rank there (−1: not in it)
	scale  float64   // compute_scale (0: 1)
	drop   bool      // drop_compute
	policy collPolicy
	cache  collCache
	passes int
	ranks  []replayRank
	total  int64 // messages through the network, all passes
	// err is the first error reading the program during the run (a trace
	// changed after the check): the rank it struck ends there.
	err error
}

// newReplay checks the whole program (every call of every rank decoded
// and expanded) and counts its messages; nothing of it is kept but the
// communicators.
func newReplay(j *Job) (*replay, error) {
	p := j.Program
	if p == nil {
		return nil, fmt.Errorf("job %s: a trace job without its trace", j.ID)
	}
	if p.Size() != len(j.Ranks) {
		return nil, fmt.Errorf("job %s: the trace %s has %d ranks, the job %d", j.ID, p.Name(), p.Size(), len(j.Ranks))
	}
	pol := collPolicy{}
	if lib, ok := p.(Librarian); ok && j.Traffic.Algorithm != AlgMPICH {
		var err error
		if pol, err = parsePolicy(lib.Algorithms()); err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
	}
	own, err := parsePolicy(j.Traffic.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	for op, a := range own {
		pol[op] = a
	}
	rp := &replay{prog: p, comms: p.Comms(), scale: j.Traffic.ComputeScale, drop: j.Traffic.DropCompute, policy: pol, cache: collCache{},
		passes: max(j.Traffic.Iterations, 1), ranks: make([]replayRank, p.Size())}
	if len(rp.comms) == 0 || len(rp.comms[0]) != p.Size() {
		return nil, fmt.Errorf("%s: the first communicator is not the world", p.Name())
	}
	rp.rankOf = make([][]int32, len(rp.comms))
	for c, m := range rp.comms {
		if len(m) == 1 && m[0] >= 0 && int(m[0]) < p.Size() { // MPI_COMM_SELF and the like: no table (rankIn)
			continue
		}
		rp.rankOf[c] = make([]int32, p.Size())
		for i := range rp.rankOf[c] {
			rp.rankOf[c][i] = -1
		}
		for i, w := range m {
			if w < 0 || int(w) >= p.Size() {
				return nil, fmt.Errorf("%s: communicator %d holds rank %d of %d", p.Name(), c, w, p.Size())
			}
			if rp.rankOf[c][w] >= 0 {
				return nil, fmt.Errorf("%s: communicator %d holds rank %d twice", p.Name(), c, w)
			}
			rp.rankOf[c][w] = int32(i)
		}
	}
	var memo *Checked
	if m, ok := p.(Memo); ok {
		memo = m.Checked()
	}
	key := pol.String()
	per, ok := memo.get(key)
	if !ok {
		for r := range rp.ranks {
			n, err := rp.check(r)
			if err != nil {
				return nil, err
			}
			per += n
		}
		memo.put(key, per)
	}
	rp.total = per * int64(rp.passes)
	return rp, nil
}

// A Memo is a Program that remembers what reading it through found
// (newReplay's check), so that the runs of a campaign read an unchanged
// trace through once per set of algorithms, not once per run.
type Memo interface {
	Checked() *Checked
}

// Checked holds, per set of collective algorithms, the messages a
// program's replay sends per pass, found by reading it through. Its zero
// value is ready; it is safe for concurrent use.
type Checked struct {
	mu  sync.Mutex
	per map[string]int64
}

func (c *Checked) get(key string) (int64, bool) {
	if c == nil {
		return 0, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.per[key]
	return v, ok
}

func (c *Checked) put(key string, v int64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.per == nil {
		c.per = map[string]int64{}
	}
	c.per[key] = v
}

// check reads rank r's calls once, expanding each as the replay will, and
// returns how many messages the rank sends through the network per pass.
func (rp *replay) check(r int) (int64, error) {
	rd, err := rp.prog.Calls(r)
	if err != nil {
		return 0, err
	}
	defer rd.Close()
	var n, k int64
	for {
		c, err := rd.Next()
		if isEOF(err) {
			return n, nil
		}
		k++
		if err != nil {
			return 0, &TraceError{Program: rp.prog.Name(), Rank: r, Call: k, Err: err}
		}
		ops, err := rp.expand(r, &c, nil)
		if err != nil {
			return 0, &TraceError{Program: rp.prog.Name(), Rank: r, Call: k, Err: err}
		}
		for _, o := range ops {
			if o.kind == ropSend && o.dst != int32(r) {
				n++
			}
		}
	}
}

// world returns the world rank of rank x of communicator c.
func (rp *replay) world(c, x int32) (int32, error) {
	if c < 0 || int(c) >= len(rp.comms) {
		return 0, fmt.Errorf("no communicator %d (%d known)", c, len(rp.comms))
	}
	if x < 0 || int(x) >= len(rp.comms[c]) {
		return 0, fmt.Errorf("rank %d outside communicator %d of %d ranks", x, c, len(rp.comms[c]))
	}
	return rp.comms[c][x], nil
}

// expand turns call c of world rank r into primitive steps. With st nil
// it only checks (no channel is numbered); with st it numbers the
// channels and collective instances of the rank's state.
func (rp *replay) expand(r int, c *Call, st *replayRank) ([]rop, error) {
	if c.Compute < 0 || c.Duration < 0 {
		return nil, fmt.Errorf("%s: negative time", c.Op)
	}
	if c.Op == CallOther || c.Op == CallWait && st == nil {
		return nil, nil
	}
	me := rp.rankIn(c.Comm, r)
	if me < 0 {
		return nil, fmt.Errorf("%s on communicator %d, which rank %d is not in", c.Op, c.Comm, r)
	}
	var ops []rop
	if st != nil {
		ops = st.ops[:0] // the rank's last steps are all done: reuse them
	}
	send := func(peer, tag int32, bytes int64) error {
		w, err := rp.world(c.Comm, peer)
		if err != nil {
			return err
		}
		if bytes < 0 || bytes > 1<<30 {
			return fmt.Errorf("%s of %d bytes", c.Op, bytes)
		}
		ops = append(ops, rop{kind: ropSend, dst: w, bytes: bytes, key: msgKey{src: int32(r), comm: c.Comm, tag: tag}})
		return nil
	}
	// recv posts a receive (with st) and returns its wait.
	recv := func(peer, tag int32) (rop, error) {
		w, err := rp.world(c.Comm, peer)
		if err != nil {
			return rop{}, err
		}
		ch := chanKey{w, c.Comm, tag}
		if c.Op == CallProbe {
			return rop{kind: ropProbe, ch: ch}, nil
		}
		o := rop{kind: ropRecv}
		if st != nil {
			o.recv = st.post(ch)
		}
		return o, nil
	}
	switch c.Op {
	case CallSend, CallIsend:
		return ops, send(c.Peer, c.Tag, c.Bytes)
	case CallRecv, CallIrecv, CallProbe:
		o, err := recv(c.Peer, c.Tag)
		if err != nil || st == nil {
			return nil, err
		}
		if c.Op == CallIrecv {
			st.reqs.push(c.Req, o.recv)
			return nil, nil
		}
		return append(ops, o), nil
	case CallSendrecv:
		o, err := recv(c.Peer2, c.Tag2)
		if err != nil {
			return nil, err
		}
		if err := send(c.Peer, c.Tag, c.Bytes); err != nil {
			return nil, err
		}
		return append(ops, o), nil
	case CallWait:
		for _, q := range c.Reqs {
			if id, ok := st.reqs.pop(q); ok {
				ops = append(ops, rop{kind: ropRecv, recv: id})
			} else if id, ok := st.creqs.pop(q); ok {
				ops = append(ops, rop{kind: ropWaitColl, recv: id})
			}
		}
		return ops, nil
	}
	// A collective.
	n := len(rp.comms[c.Comm])
	alg := rp.policy.algorithm(c.Op, n, c.Bytes)
	part, err := rp.cache.part(c, alg, n, int(me))
	if err != nil {
		return nil, err
	}
	var inst int64
	if st != nil {
		inst = st.inst[c.Comm]
		st.inst[c.Comm]++
	}
	key := func(round int16) msgKey { return msgKey{src: -1, comm: c.Comm, tag: int32(round), seq: inst} }
	for _, s := range part.steps {
		if s.need >= 0 && s.needCount > 0 {
			ops = append(ops, rop{kind: ropColl, key: key(s.need), count: s.needCount})
		}
		w, err := rp.world(c.Comm, s.dst)
		if err != nil {
			return nil, err
		}
		ops = append(ops, rop{kind: ropSend, dst: w, bytes: s.bytes, key: key(s.round)})
	}
	for _, rc := range part.recv {
		ops = append(ops, rop{kind: ropColl, key: key(rc.round), count: rc.count, del: true})
	}
	return ops, nil
}

// rankIn returns world rank r's rank in communicator c, −1 when it is not
// in it (or there is no c).
func (rp *replay) rankIn(c int32, r int) int32 {
	if c < 0 || int(c) >= len(rp.comms) {
		return -1
	}
	if t := rp.rankOf[c]; t != nil {
		return t[r]
	}
	if m := rp.comms[c]; len(m) == 1 && int(m[0]) == r {
		return 0
	}
	return -1
}

// start readies rank r for a run beginning at instant t0.
func (rp *replay) start(r int, t0 int64) {
	rp.ranks[r] = replayRank{clock: t0, ops: make([]rop, 0, 8), arrived: map[msgKey]arrival{}, inst: map[int32]int64{},
		early: map[[2]int64]earlyMsg{}, chans: map[chanKey]*chanQueue{}}
}

// chanQueue is a channel's messages no receive has taken (their delivery
// instants) or its receives no message has matched (their ordinals); one
// of the two is empty.
type chanQueue struct {
	msgs  []int64
	recvs []int64
}

type recvState struct {
	at      int64
	matched bool
}

// post posts a receive on channel ch at rank st and returns its ordinal.
func (st *replayRank) post(ch chanKey) int64 {
	id := st.nrecv
	st.nrecv++
	q := st.chans[ch]
	if q != nil && len(q.msgs) > 0 {
		st.recvs.put(id, recvState{at: q.msgs[0], matched: true})
		if q.msgs = q.msgs[1:]; len(q.msgs) == 0 {
			st.drop(ch, q)
		}
		return id
	}
	if q == nil {
		q = st.queue(ch)
	}
	q.recvs = append(q.recvs, id)
	st.recvs.put(id, recvState{})
	return id
}

// take gives the message of envelope k, delivered at t, to the oldest
// receive posted on its channel, or keeps it for the next one posted.
func (st *replayRank) take(k msgKey, t int64) {
	ch := chanKey{k.src, k.comm, k.tag}
	q := st.chans[ch]
	if q != nil && len(q.recvs) > 0 {
		if s := st.recvs.ptr(q.recvs[0]); s != nil {
			*s = recvState{at: t, matched: true}
		}
		if q.recvs = q.recvs[1:]; len(q.recvs) == 0 {
			st.drop(ch, q)
		}
		return
	}
	if q == nil {
		q = st.queue(ch)
	}
	q.msgs = append(q.msgs, t)
}

// queue makes channel ch's queue.
func (st *replayRank) queue(ch chanKey) *chanQueue {
	var q *chanQueue
	if n := len(st.spare); n > 0 {
		q, st.spare = st.spare[n-1], st.spare[:n-1]
	} else {
		q = &chanQueue{}
	}
	st.chans[ch] = q
	return q
}

// drop forgets channel ch's emptied queue q.
func (st *replayRank) drop(ch chanKey, q *chanQueue) {
	delete(st.chans, ch)
	q.msgs, q.recvs = q.msgs[:0], q.recvs[:0]
	st.spare = append(st.spare, q)
}

// deliver books the point-to-point message k delivered at t: taken at
// once when every message its sender sent before it to this rank has
// been, else kept until they have.
func (st *replayRank) deliver(k msgKey, t int64, n int) {
	if st.takenFrom == nil {
		st.takenFrom = make([]int64, n)
	}
	if k.seq != st.takenFrom[k.src] {
		st.early[[2]int64{int64(k.src), k.seq}] = earlyMsg{k, t}
		return
	}
	for {
		st.take(k, t)
		st.takenFrom[k.src]++
		e, ok := st.early[[2]int64{int64(k.src), k.seq + 1}]
		if !ok {
			return
		}
		delete(st.early, [2]int64{int64(k.src), k.seq + 1})
		k, t = e.k, e.t
	}
}

type earlyMsg struct {
	k msgKey
	t int64
}

// next returns rank r's next message: its world rank, bytes, creation
// instant and tag; or why there is none at instant now. Without
// nonblocking collectives under way a rank's next message is handed out
// as soon as its calls reach it, its creation instant perhaps ahead of
// now. With them, the rank's calls and its collectives' steps each have a
// next message due at some instant (its clock); the one due first goes
// (ties: the oldest collective's, then the calls'), and only once due:
// before, the rank answers Later, so that a step a delivery readies goes
// in its turn whenever a simulator asks.
func (rp *replay) next(r int, now int64) (dst int32, bytes int64, at, tag int64, s Status) {
	st := &rp.ranks[r]
	for {
		rp.settle(r, st)
		held := rp.runCalls(r, st) // the calls' next step is a send unless held
		if rp.settle(r, st) > 0 && held {
			continue // a collective ended: a wait for it may pass now
		}
		if st.done {
			return 0, 0, 0, 0, Done
		}
		callsSend := !held && !st.ranOut
		if len(st.bg) == 0 {
			if !callsSend {
				st.waiting = true
				return 0, 0, 0, 0, Waiting
			}
			st.waiting = false
			return rp.sendCall(r, st)
		}
		// The collective due first (the oldest of a tie), if any is due.
		best, due := -1, int64(math.MaxInt64)
		for i, id := range st.bg {
			c := st.colls[id]
			if c.opi < len(c.ops) && c.ops[c.opi].kind == ropSend && c.clock < due {
				best, due = i, c.clock
			}
		}
		st.waiting = true
		switch {
		case callsSend && st.clock < due && st.clock <= now:
			st.waiting = false
			return rp.sendCall(r, st)
		case best >= 0 && due <= now:
			c := st.colls[st.bg[best]]
			o := &c.ops[c.opi]
			c.opi++
			t := st.nmsg
			st.nmsg++
			st.inflight.put(t, o.key)
			return o.dst, max(o.bytes, 1), c.clock, t, Ready
		case callsSend:
			return 0, 0, min(st.clock, due), 0, Later
		case best >= 0:
			return 0, 0, due, 0, Later
		}
		return 0, 0, 0, 0, Waiting
	}
}

// sendCall hands out the send the rank's calls have reached.
func (rp *replay) sendCall(r int, st *replayRank) (int32, int64, int64, int64, Status) {
	o := &st.ops[st.opi]
	st.opi++
	k := o.key
	if k.p2p() {
		if st.sentTo == nil {
			st.sentTo = make([]int64, len(rp.ranks))
		}
		k.seq = st.sentTo[o.dst]
		st.sentTo[o.dst]++
	}
	t := st.nmsg
	st.nmsg++
	st.inflight.put(t, k)
	return o.dst, max(o.bytes, 1), st.clock, t, Ready
}

// runCalls runs rank r's calls up to their next send to another rank,
// taking what needs no network (waits met, sends to itself, calls read);
// it reports whether they are held (a wait not met, or no calls left:
// ranOut; done once its collectives have ended too).
func (rp *replay) runCalls(r int, st *replayRank) (held bool) {
	for {
		if st.done {
			return true
		}
		if st.ranOut {
			if len(st.bg) == 0 {
				st.done = true
			}
			return true
		}
		if st.opi >= len(st.ops) {
			if st.inCall {
				st.stats.InCalls[st.op] += st.clock - st.start
				st.stats.End = st.clock
				st.inCall = false
			}
			if !rp.advance(r, st) {
				st.ranOut = true
			}
			continue
		}
		o := &st.ops[st.opi]
		switch o.kind {
		case ropSend:
			if o.dst != int32(r) {
				return false
			}
			k := o.key // to oneself: no network
			if k.p2p() {
				if st.sentTo == nil {
					st.sentTo = make([]int64, len(rp.ranks))
				}
				k.seq = st.sentTo[o.dst]
				st.sentTo[o.dst]++
			}
			rp.arrive(st, k, st.clock)
		case ropColl:
			if !st.collMet(o, &st.clock) {
				return true
			}
		case ropRecv:
			rs, ok := st.recvs.get(o.recv)
			if ok && !rs.matched {
				return true
			}
			if ok {
				st.clock = max(st.clock, rs.at)
				st.recvs.take(o.recv)
			}
		case ropProbe:
			q := st.chans[o.ch]
			if q == nil || len(q.msgs) == 0 {
				return true
			}
			st.clock = max(st.clock, q.msgs[0])
		case ropWaitColl:
			c := st.colls[o.recv]
			if !c.done {
				return true
			}
			st.clock = max(st.clock, c.clock)
			delete(st.colls, o.recv)
		}
		st.opi++
	}
}

// collMet reports whether the messages collective step o waits for have
// all arrived, and then takes them, moving *clock to the last arrival.
func (st *replayRank) collMet(o *rop, clock *int64) bool {
	a := st.arrived[o.key]
	if a.n < o.count {
		return false
	}
	*clock = max(*clock, a.last)
	if o.del {
		delete(st.arrived, o.key)
	}
	return true
}

// settle runs rank r's nonblocking collectives through the steps that
// need no network (needs met, sends to itself), ends those with no step
// left, and returns how many it ended.
func (rp *replay) settle(r int, st *replayRank) (ended int) {
	for i := 0; i < len(st.bg); i++ {
		c := st.colls[st.bg[i]]
	steps:
		for c.opi < len(c.ops) {
			o := &c.ops[c.opi]
			switch o.kind {
			case ropSend:
				if o.dst != int32(r) {
					break steps
				}
				rp.arrive(st, o.key, c.clock)
			case ropColl:
				if !st.collMet(o, &c.clock) {
					break steps
				}
			}
			c.opi++
		}
		if c.opi >= len(c.ops) {
			c.done = true
			st.bg = append(st.bg[:i], st.bg[i+1:]...)
			i--
			ended++
		}
	}
	return ended
}

// advance reads rank r's next call into its steps; false when the rank has
// no more calls in any pass.
func (rp *replay) advance(r int, st *replayRank) bool {
	for {
		if st.rd == nil {
			if st.pass >= rp.passes {
				return false
			}
			rd, err := rp.prog.Calls(r)
			if err != nil {
				rp.fail(r, err)
				return false
			}
			st.rd = rd
			st.pass++
		}
		c, err := st.rd.Next()
		if err != nil {
			st.rd.Close()
			st.rd = nil
			if !isEOF(err) {
				rp.fail(r, err)
				return false
			}
			continue
		}
		st.calls++
		d := c.Compute
		switch {
		case rp.drop:
			d = 0
		case rp.scale != 1 && rp.scale != 0:
			d = int64(math.Round(float64(d) * rp.scale))
		}
		st.clock += d
		st.stats.Compute += d
		st.stats.Calls[c.Op]++
		st.stats.Traced[c.Op] += c.Duration
		st.op, st.start, st.inCall = c.Op, st.clock, true
		ops, err := rp.expand(r, &c, st)
		if err != nil {
			rp.fail(r, fmt.Errorf("call %d: %w", st.calls, err))
			return false
		}
		if c.Async && c.Op.Collective() {
			// Posted: its steps run beside the calls from here on.
			if st.colls == nil {
				st.colls = map[int64]*bgColl{}
			}
			id := st.ncoll
			st.ncoll++
			st.colls[id] = &bgColl{ops: slices.Clone(ops), clock: st.clock}
			st.bg = append(st.bg, id)
			st.creqs.push(c.Req, id)
			ops = nil
		}
		if ops == nil {
			ops = st.ops[:0] // keep the buffer
		}
		st.ops, st.opi = ops, 0
		return true
	}
}

// fail notes the first error of the run, which ends rank r's calls.
func (rp *replay) fail(r int, err error) {
	if rp.err == nil {
		rp.err = fmt.Errorf("%s, rank %d, during the run (the trace changed after it was checked?): %w", rp.prog.Name(), r, err)
	}
}

// Err returns the first error a trace job of workload s met during the
// run (a trace file changed after the check; its rank stopped there), nil
// for every other source. Both simulators end such a run with it.
func Err(s Source) error {
	w, ok := s.(*workload)
	if !ok {
		return nil
	}
	for _, rp := range w.replay {
		if rp != nil && rp.err != nil {
			return rp.err
		}
	}
	return nil
}

// arrive books a message of envelope k at rank st at instant t.
func (rp *replay) arrive(st *replayRank, k msgKey, t int64) {
	if k.p2p() {
		st.deliver(k, t, len(rp.ranks))
		return
	}
	a := st.arrived[k]
	a.n++
	a.last = max(a.last, t)
	st.arrived[k] = a
}

// delivered books the message tagged tag from world rank src to world
// rank dst, delivered at t; it reports whether dst was waiting.
func (rp *replay) delivered(src, dst int, tag, t int64) bool {
	k, ok := rp.ranks[src].inflight.take(tag)
	if !ok {
		return false
	}
	d := &rp.ranks[dst]
	rp.arrive(d, k, t)
	return d.waiting || len(d.bg) > 0 // a collective's step may be due
}

// checkTrace reports what keeps a trace job from running.
func (j Job) checkTrace() error {
	t := j.Traffic
	bad := func(key, format string, v ...any) error {
		msg := fmt.Sprintf(format, v...)
		if j.ID != "" {
			msg = fmt.Sprintf("job %s: ", j.ID) + msg
		}
		return &param.Error{Key: key, Msg: msg}
	}
	switch {
	case j.Program == nil && t.Trace == "":
		return bad("trace", "a trace job needs its trace (trace = a DUMPI trace's directory or .meta file)")
	case j.Program != nil && j.Program.Size() != len(j.Ranks):
		return bad("trace", "the trace %s has %d ranks, the job %d", j.Program.Name(), j.Program.Size(), len(j.Ranks))
	case t.Compute > 0 || t.ComputeNoise > 0:
		return bad("compute", "a trace times its own computation (compute_scale scales it, drop_compute drops it)")
	}
	if _, err := parsePolicy(t.Algorithm); err != nil {
		return bad("algorithm", "%v", err)
	}
	return nil
}

// TraceStats returns, for a trace job j of a workload source, each rank's
// RankStats so far; nil when job j is no trace job (or s no workload).
func TraceStats(s Source, j int) []RankStats {
	w, ok := s.(*workload)
	if !ok || j < 0 || j >= len(w.replay) || w.replay[j] == nil {
		return nil
	}
	out := make([]RankStats, len(w.replay[j].ranks))
	for r := range out {
		out[r] = w.replay[j].ranks[r].stats
	}
	return out
}

// requests holds a rank's posted receives by request handle, the oldest
// first: a tracer's handles recur, and a wait completes the oldest.
type requests struct {
	first map[int32]int64
	more  map[int32][]int64 // beyond the first, rare
}

func (q *requests) push(h int32, k int64) {
	if q.first == nil {
		q.first = map[int32]int64{}
	}
	if _, ok := q.first[h]; !ok {
		q.first[h] = k
		return
	}
	if q.more == nil {
		q.more = map[int32][]int64{}
	}
	q.more[h] = append(q.more[h], k)
}

func (q *requests) pop(h int32) (int64, bool) {
	k, ok := q.first[h]
	if !ok {
		return k, false
	}
	if m := q.more[h]; len(m) > 0 {
		q.first[h] = m[0]
		if len(m) == 1 {
			delete(q.more, h)
		} else {
			q.more[h] = m[1:]
		}
	} else {
		delete(q.first, h)
	}
	return k, true
}

// window holds values by an ordinal that grows (a rank's messages in
// flight by tag, its posted receives by ordinal): a slice from the oldest
// one still held on, so that its size follows what is held, not how many
// were.
type window[T any] struct {
	base int64 // the ordinal of vals[0]
	head int   // vals[:head] are all gone
	vals []T
	live []bool
}

func (w *window[T]) put(i int64, v T) {
	if w.head == len(w.vals) { // nothing held: start afresh at i
		w.base, w.head, w.vals, w.live = i, 0, w.vals[:0], w.live[:0]
	}
	var zero T
	for int64(len(w.vals)) < i-w.base {
		w.vals, w.live = append(w.vals, zero), append(w.live, false)
	}
	w.vals, w.live = append(w.vals, v), append(w.live, true)
}

// ptr returns the value of ordinal i, nil when none is held.
func (w *window[T]) ptr(i int64) *T {
	j := i - w.base
	if j < int64(w.head) || j >= int64(len(w.vals)) || !w.live[j] {
		return nil
	}
	return &w.vals[j]
}

func (w *window[T]) get(i int64) (T, bool) {
	if p := w.ptr(i); p != nil {
		return *p, true
	}
	var zero T
	return zero, false
}

// take returns the value of ordinal i and forgets it.
func (w *window[T]) take(i int64) (T, bool) {
	v, ok := w.get(i)
	if !ok {
		return v, false
	}
	w.live[i-w.base] = false
	for w.head < len(w.live) && !w.live[w.head] {
		w.head++
	}
	if w.head > 64 && 2*w.head >= len(w.vals) { // drop the gone half
		n := copy(w.vals, w.vals[w.head:])
		copy(w.live, w.live[w.head:])
		w.vals, w.live = w.vals[:n], w.live[:n]
		w.base += int64(w.head)
		w.head = 0
	}
	return v, true
}

// CheckTrace reads a trace job's program through as its replay will (every
// call decoded, every collective expanded by the job's algorithms) and
// reports what would stop it.
func CheckTrace(j Job) error {
	_, err := newReplay(&j)
	return err
}
