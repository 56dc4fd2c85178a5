package traffic

import (
	"fmt"
	"math"

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
// communicator, tag) the k-th receive posted takes the k-th message sent,
// whatever order the network delivers them in. A wildcard receive was
// resolved by the trace (its status names the source and tag matched in
// the traced run), so the replay matches what the traced run matched.
// Collectives become messages by their algorithms (replaycoll.go). A
// message of no bytes travels as one of one byte (a header packet), and a
// message to oneself is delivered at once without the network.

// msgKey names what a rank waits for: a point-to-point message (src,
// comm, tag, its ordinal seq on that channel) or the messages of a
// collective instance's round (src −1, tag the round, seq the instance).
type msgKey struct {
	src, comm, tag int32
	seq            int64
}

type arrival struct {
	n    int32
	last int64
}

// rop is a primitive step of a rank: send to a world rank, or wait for
// count messages of key (peek: without taking them; del: taking them).
type rop struct {
	send  bool
	dst   int32
	bytes int64
	key   msgKey
	count int32
	del   bool
}

type chanKey struct{ peer, comm, tag int32 }

// replayRank is a rank's place in the program.
type replayRank struct {
	rd       CallReader
	pass     int // passes begun (iterations)
	calls    int64
	clock    int64
	ops      []rop
	op       CallOp // the call under way
	start    int64  // when it began (after its computation)
	inCall   bool
	reqs     map[int32][]msgKey // receives by request handle, oldest first (a tracer's handles recur)
	posted   map[chanKey]int64  // receives posted per channel (source side)
	sent     map[chanKey]int64  // messages sent per channel (destination side)
	arrived  map[msgKey]arrival
	inst     map[int32]int64 // collective instances begun per communicator
	inflight map[int64]msgKey
	nmsg     int64
	waiting  bool
	done     bool
	stats    RankStats
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
	rankOf []map[int32]int32 // per communicator: world rank -> its rank there
	scale  float64           // compute_scale (0: 1)
	drop   bool              // drop_compute
	policy collPolicy
	cache  collCache
	passes int
	ranks  []replayRank
	total  int64 // messages through the network, all passes
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
	pol, err := parsePolicy(j.Traffic.Algorithm)
	if err != nil {
		return nil, fmt.Errorf("job %s: %w", j.ID, err)
	}
	rp := &replay{prog: p, comms: p.Comms(), scale: j.Traffic.ComputeScale, drop: j.Traffic.DropCompute, policy: pol, cache: collCache{},
		passes: max(j.Traffic.Iterations, 1), ranks: make([]replayRank, p.Size())}
	if len(rp.comms) == 0 || len(rp.comms[0]) != p.Size() {
		return nil, fmt.Errorf("%s: the first communicator is not the world", p.Name())
	}
	rp.rankOf = make([]map[int32]int32, len(rp.comms))
	for c, m := range rp.comms {
		rp.rankOf[c] = make(map[int32]int32, len(m))
		for i, w := range m {
			if w < 0 || int(w) >= p.Size() {
				return nil, fmt.Errorf("%s: communicator %d holds rank %d of %d", p.Name(), c, w, p.Size())
			}
			if _, dup := rp.rankOf[c][w]; dup {
				return nil, fmt.Errorf("%s: communicator %d holds rank %d twice", p.Name(), c, w)
			}
			rp.rankOf[c][w] = int32(i)
		}
	}
	var per int64
	for r := range rp.ranks {
		n, err := rp.check(r)
		if err != nil {
			return nil, err
		}
		per += n
	}
	rp.total = per * int64(rp.passes)
	return rp, nil
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
			if o.send && o.dst != int32(r) {
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
	me, ok := rp.rankOf[clampComm(c.Comm, len(rp.comms))][int32(r)]
	if !ok || c.Comm < 0 || int(c.Comm) >= len(rp.comms) {
		return nil, fmt.Errorf("%s on communicator %d, which rank %d is not in", c.Op, c.Comm, r)
	}
	var ops []rop
	send := func(peer, tag int32, bytes int64) error {
		w, err := rp.world(c.Comm, peer)
		if err != nil {
			return err
		}
		if bytes < 0 || bytes > 1<<30 {
			return fmt.Errorf("%s of %d bytes", c.Op, bytes)
		}
		k := msgKey{src: int32(r), comm: c.Comm, tag: tag}
		if st != nil {
			ch := chanKey{w, c.Comm, tag}
			k.seq = st.sent[ch]
			st.sent[ch]++
		}
		ops = append(ops, rop{send: true, dst: w, bytes: bytes, key: k})
		return nil
	}
	recv := func(peer, tag int32, peek bool) (msgKey, error) {
		w, err := rp.world(c.Comm, peer)
		if err != nil {
			return msgKey{}, err
		}
		k := msgKey{src: w, comm: c.Comm, tag: tag}
		if st != nil {
			ch := chanKey{w, c.Comm, tag}
			k.seq = st.posted[ch]
			if !peek {
				st.posted[ch]++
			}
		}
		return k, nil
	}
	switch c.Op {
	case CallSend, CallIsend:
		return ops, send(c.Peer, c.Tag, c.Bytes)
	case CallRecv, CallIrecv, CallProbe:
		k, err := recv(c.Peer, c.Tag, c.Op == CallProbe)
		if err != nil || st == nil {
			return nil, err
		}
		if c.Op == CallIrecv {
			st.reqs[c.Req] = append(st.reqs[c.Req], k)
			return nil, nil
		}
		return []rop{{key: k, count: 1, del: c.Op == CallRecv}}, nil
	case CallSendrecv:
		k, err := recv(c.Peer2, c.Tag2, false)
		if err != nil {
			return nil, err
		}
		if err := send(c.Peer, c.Tag, c.Bytes); err != nil {
			return nil, err
		}
		return append(ops, rop{key: k, count: 1, del: true}), nil
	case CallWait:
		for _, q := range c.Reqs {
			if ks := st.reqs[q]; len(ks) > 0 {
				ops = append(ops, rop{key: ks[0], count: 1, del: true})
				if st.reqs[q] = ks[1:]; len(ks) == 1 {
					delete(st.reqs, q)
				}
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
			ops = append(ops, rop{key: key(s.need), count: s.needCount})
		}
		w, err := rp.world(c.Comm, s.dst)
		if err != nil {
			return nil, err
		}
		ops = append(ops, rop{send: true, dst: w, bytes: s.bytes, key: key(s.round)})
	}
	for _, rc := range part.recv {
		ops = append(ops, rop{key: key(rc.round), count: rc.count, del: true})
	}
	return ops, nil
}

func clampComm(c int32, n int) int32 {
	if c < 0 || int(c) >= n {
		return 0
	}
	return c
}

// start readies rank r for a run beginning at instant t0.
func (rp *replay) start(r int, t0 int64) {
	rp.ranks[r] = replayRank{clock: t0, reqs: map[int32][]msgKey{}, posted: map[chanKey]int64{}, sent: map[chanKey]int64{},
		arrived: map[msgKey]arrival{}, inst: map[int32]int64{}, inflight: map[int64]msgKey{}}
}

// next returns rank r's next message: its world rank, bytes, creation
// instant and tag; or why there is none.
func (rp *replay) next(r int) (dst int32, bytes int64, at, tag int64, s Status) {
	st := &rp.ranks[r]
	for {
		if st.done {
			return 0, 0, 0, 0, Done
		}
		if len(st.ops) == 0 {
			if st.inCall {
				st.stats.InCalls[st.op] += st.clock - st.start
				st.stats.End = st.clock
				st.inCall = false
			}
			if !rp.advance(r, st) {
				st.done = true
			}
			continue
		}
		o := &st.ops[0]
		if o.send {
			st.ops = st.ops[1:]
			b := max(o.bytes, 1)
			if o.dst == int32(r) { // to oneself: no network
				rp.arrive(st, o.key, st.clock)
				continue
			}
			t := st.nmsg
			st.nmsg++
			st.inflight[t] = o.key
			st.waiting = false
			return o.dst, b, st.clock, t, Ready
		}
		a := st.arrived[o.key]
		if a.n < o.count {
			st.waiting = true
			return 0, 0, 0, 0, Waiting
		}
		st.clock = max(st.clock, a.last)
		if o.del {
			delete(st.arrived, o.key)
		}
		st.ops = st.ops[1:]
	}
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
				return false // checked by newReplay
			}
			st.rd = rd
			st.pass++
		}
		c, err := st.rd.Next()
		if err != nil {
			st.rd.Close()
			st.rd = nil
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
			ops = nil // checked by newReplay
		}
		st.ops = ops
		return true
	}
}

// arrive books a message of key at rank st at instant t.
func (rp *replay) arrive(st *replayRank, k msgKey, t int64) {
	a := st.arrived[k]
	a.n++
	a.last = max(a.last, t)
	st.arrived[k] = a
}

// delivered books the message tagged tag from world rank src to world
// rank dst, delivered at t; it reports whether dst was waiting.
func (rp *replay) delivered(src, dst int, tag, t int64) bool {
	s := &rp.ranks[src]
	k, ok := s.inflight[tag]
	if !ok {
		return false
	}
	delete(s.inflight, tag)
	d := &rp.ranks[dst]
	rp.arrive(d, k, t)
	return d.waiting && len(d.ops) > 0 && d.ops[0].key == k
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
