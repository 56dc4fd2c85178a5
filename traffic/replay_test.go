package traffic

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// program builds an in-memory program of n ranks from each rank's calls.
func program(n int, comms [][]int32, calls func(r int) []Call) *MemProgram {
	p := &MemProgram{ID: "mem", Members: comms, Ranks: make([][]Call, n)}
	for r := range n {
		p.Ranks[r] = calls(r)
	}
	return p
}

func traceJob(p Program, t JobTraffic) Job {
	t.Kind, t.Load, t.MessageBytes = Trace, 1, 1
	if t.Iterations == 0 {
		t.Iterations = 1
	}
	return Job{ID: "tr", Ranks: ranks(0, p.Size()), Traffic: t, Program: p}
}

// A collective replayed from a trace sends what the pattern of the same
// collective and algorithm sends, at the same instants: the two are one
// schedule (flitsim's own algorithms are written as schedules for the
// replay, and the scheduled ones are shared).
func TestReplayCollectiveIsThePattern(t *testing.T) {
	const w = 10
	wire := func(b int) int64 { return int64(b) * w }
	ops := map[Kind]CallOp{Allreduce: CallAllreduce, Broadcast: CallBcast, Alltoall: CallAlltoall, Barrier: CallBarrier}
	for kind, op := range ops {
		for _, alg := range algorithms[kind] {
			for _, n := range []int{2, 3, 5, 8, 12, 16} {
				if alg == AlgScatterRD && n&(n-1) != 0 {
					continue
				}
				const b = 4000
				pat := Job{ID: "p", Ranks: ranks(0, n), Traffic: JobTraffic{Kind: kind, Algorithm: alg, MessageBytes: b, Load: 1, Iterations: 1}}
				lastP, pairsP, sentP := ideal(t, []Job{pat}, n, wire, 1e6)
				p := program(n, nil, func(int) []Call { return []Call{{Op: op, Bytes: b}} })
				tr := traceJob(p, JobTraffic{Algorithm: op.String() + "=" + alg})
				if op == CallBarrier {
					tr.Traffic.Algorithm = ""
				}
				lastT, pairsT, sentT := ideal(t, []Job{tr}, n, wire, 1e6)
				name := fmt.Sprintf("%s %s n=%d", kind, alg, n)
				assert.Equal(t, sentP, sentT, name)
				assert.Equal(t, pairsP, pairsT, name)
				assert.Equal(t, lastP, lastT, name)
			}
		}
	}
}

// Every collective of a trace, by every algorithm it may run, on the world
// and on a communicator of some of the ranks, with a root other than 0:
// every rank gets through, and the messages sent are the ones counted.
func TestReplayCollectivesComplete(t *testing.T) {
	wire := func(b int) int64 { return int64(b) }
	for op := CallBarrier; op < numCallOps; op++ {
		for _, alg := range append([]string{AlgMPICH}, traceAlgs[op]...) {
			for n := 2; n <= 13; n++ {
				for _, b := range []int64{0, 8, 3000, 70000} {
					// The odd ranks form communicator 1.
					var odd []int32
					world := make([]int32, n)
					for r := range n {
						world[r] = int32(r)
						if r%2 == 1 {
							odd = append(odd, int32(r))
						}
					}
					comms := [][]int32{world, odd}
					p := program(n, comms, func(r int) []Call {
						var calls []Call
						for c, m := range comms {
							size := len(m)
							if r%2 == 0 && c == 1 || size < 2 {
								continue
							}
							call := Call{Op: op, Comm: int32(c), Peer: int32(1 % size), Bytes: b, Compute: 1000}
							counts := make([]int64, size)
							for i := range counts {
								counts[i] = b*int64(1+i%3)/3 + min(b, 1)
							}
							switch op {
							case CallAlltoallv:
								me := int64(r)
								if c == 1 {
									me = int64(r / 2)
								}
								call.Counts, call.Counts2 = make([]int64, size), make([]int64, size)
								for i := range size {
									call.Counts[i] = (me*7 + int64(i)*3) % 4 * b // what this rank sends to i
									call.Counts2[i] = (int64(i)*7 + me*3) % 4 * b
								}
							case CallReduceScatter, CallAllgatherv:
								call.Counts = counts
							case CallGatherv:
								call.Counts2 = counts
								me := r
								if c == 1 {
									me = r / 2
								}
								call.Bytes = counts[me]
							case CallScatterv:
								call.Counts = counts
								me := r
								if c == 1 {
									me = r / 2
								}
								call.Bytes = counts[me]
							}
							calls = append(calls, call, call)
						}
						return calls
					})
					a := alg
					if alg != AlgMPICH {
						a = op.String() + "=" + alg
					}
					job := traceJob(p, JobTraffic{Algorithm: a, Iterations: 2})
					src, err := NewWorkload([]Job{job}, n, nil, wire)
					require.NoError(t, err, "%s %s n=%d", op, alg, n)
					_, _, sent := ideal(t, []Job{job}, n, wire, 1e7)
					require.Equal(t, int(JobMessages(src)[0]), sent, "%s %s n=%d b=%d: every message sent, every rank done", op, alg, n, b)
					if b > 0 || !op.Collective() || op == CallBarrier {
						require.Positive(t, sent, "%s %s n=%d b=%d", op, alg, n, b)
					}
				}
			}
		}
	}
}

// ring.c of traffic/dumpi/testdata, written as calls: per iteration a ring
// exchange with Irecv, Isend and Waitall, an 8-byte allreduce, a 256-byte
// all-to-all and a barrier, then computation.
func ringProgram(n, iters int, compute int64) *MemProgram {
	return program(n, nil, func(r int) []Call {
		calls := []Call{{Op: CallOther}}
		for it := range iters {
			c0 := int64(0)
			if it > 0 {
				c0 = compute
			}
			calls = append(calls,
				Call{Op: CallIrecv, Peer: int32((r + n - 1) % n), Tag: int32(it), Bytes: 1024, Req: 1, Compute: c0},
				Call{Op: CallIsend, Peer: int32((r + 1) % n), Tag: int32(it), Bytes: 1024, Req: 2},
				Call{Op: CallWait, Reqs: []int32{1, 2}},
				Call{Op: CallAllreduce, Bytes: 8},
				Call{Op: CallAlltoall, Bytes: 256},
				Call{Op: CallBarrier})
		}
		return append(calls, Call{Op: CallOther, Compute: compute})
	})
}

// The ring program on 4 ranks on an ideal network: the messages per pair
// are what the program and MPICH's algorithms send (ring 1 per iteration;
// allreduce by recursive doubling: partners r^1, r^2; all-to-all of 256 B
// on 4 ranks: every message posted at once; the dissemination barrier: r+1,
// r+2), and the computation adds to the run time exactly.
func TestReplayRingProgram(t *testing.T) {
	wire := func(b int) int64 { return int64(b) * 250 } // 4 GB/s
	const n, iters = 4, 3
	job := traceJob(ringProgram(n, iters, 0), JobTraffic{})
	last0, pairs, sent := ideal(t, []Job{job}, n, wire, 1e6)
	for s := range n {
		for d := range n {
			if s == d {
				continue
			}
			want := 1 // the all-to-all
			if d == (s+1)%n {
				want++ // the ring, the barrier's first round
			}
			if d == s^1 || d == s^2 {
				want++ // the allreduce
			}
			if d == (s+1)%n || d == (s+2)%n {
				want++ // the barrier
			}
			assert.Equal(t, iters*want, pairs[[2]int{s, d}], "%d -> %d", s, d)
		}
	}
	src, err := NewWorkload([]Job{job}, n, nil, wire)
	require.NoError(t, err)
	assert.Equal(t, int(JobMessages(src)[0]), sent)
	// One iteration's critical path: the ring message (1,024 B), two
	// allreduce rounds (8 B each), the all-to-all (three 256-byte messages
	// back to back), two barrier rounds (1 B each).
	per := wire(1024) + 2*wire(8) + 3*wire(256) + 2*wire(1)
	assert.Equal(t, int64(iters)*per, last0[0])
	// The computation between iterations adds up on the critical path
	// (the last computation follows the last message).
	const c = 1_000_000
	lastC, _, _ := ideal(t, []Job{traceJob(ringProgram(n, iters, c), JobTraffic{})}, n, wire, 1e6)
	assert.Equal(t, last0[0]+(iters-1)*c, lastC[0])
	lastS, _, _ := ideal(t, []Job{traceJob(ringProgram(n, iters, c), JobTraffic{ComputeScale: 0.5})}, n, wire, 1e6)
	assert.Equal(t, last0[0]+(iters-1)*c/2, lastS[0])
	lastD, _, _ := ideal(t, []Job{traceJob(ringProgram(n, iters, c), JobTraffic{DropCompute: true})}, n, wire, 1e6)
	assert.Equal(t, last0[0], lastD[0])
}

// Point-to-point matching is MPI's: on one channel the k-th receive takes
// the k-th message sent, a sender's messages taken in the order sent
// whatever order they arrive in; channels of other tags or communicators
// are apart; a probe waits without taking; a wait on a send's request does
// not wait; a message to oneself needs no network.
func TestReplayMatching(t *testing.T) {
	p := program(2, [][]int32{{0, 1}, {1, 0}}, func(r int) []Call {
		if r == 0 {
			return []Call{
				{Op: CallIsend, Peer: 1, Tag: 5, Bytes: 100, Req: 7},
				{Op: CallSend, Peer: 1, Tag: 5, Bytes: 200},
				{Op: CallSend, Peer: 1, Tag: 6, Bytes: 300},
				{Op: CallSend, Comm: 1, Peer: 0, Tag: 5, Bytes: 400}, // rank 0 of comm 1 is world rank 1
				{Op: CallWait, Reqs: []int32{7}},
				{Op: CallIsend, Peer: 0, Tag: 1, Bytes: 10, Req: 8},
				{Op: CallRecv, Peer: 0, Tag: 1},
			}
		}
		return []Call{
			{Op: CallRecv, Peer: 0, Tag: 6},
			{Op: CallProbe, Peer: 0, Tag: 5},
			{Op: CallIrecv, Peer: 0, Tag: 5, Req: 1},
			{Op: CallIrecv, Peer: 0, Tag: 5, Req: 2},
			{Op: CallWait, Reqs: []int32{2}},
			{Op: CallRecv, Comm: 1, Peer: 1, Tag: 5},
			{Op: CallWait, Reqs: []int32{1}},
		}
	})
	job := traceJob(p, JobTraffic{})
	w, err := newWorkload([]Job{job}, 2, nil, nil)
	require.NoError(t, err)
	var msgs []Msg
	for {
		m, st := w.Next(0, 0, nil)
		if st != Ready {
			assert.Equal(t, Done, st, "rank 0 waits for nothing: its self-message needs no network")
			break
		}
		msgs = append(msgs, m)
	}
	require.Len(t, msgs, 4)
	assert.Equal(t, []int{100, 200, 300, 400}, []int{msgs[0].Bytes, msgs[1].Bytes, msgs[2].Bytes, msgs[3].Bytes})
	_, st := w.Next(1, 0, nil)
	require.Equal(t, Waiting, st, "rank 1 waits for tag 6")
	// Deliver out of order: the second, fourth and third message first.
	// Rank 1 takes a sender's messages in the order they were sent, so
	// tag 6 (the third) waits for the first.
	w.Delivered(0, msgs[3], 40)
	w.Delivered(0, msgs[1], 20)
	w.Delivered(0, msgs[2], 30)
	_, st = w.Next(1, 0, nil)
	require.Equal(t, Waiting, st, "tag 6 came, but after the first message, which has not")
	w.Delivered(0, msgs[0], 50)
	_, st = w.Next(1, 0, nil)
	require.Equal(t, Done, st)
	rp := w.replay[0]
	assert.Equal(t, int64(50), rp.ranks[1].stats.End, "rank 1 ends with the last message it needed")
	assert.Equal(t, int64(4), rp.total)
}

// A trace that cannot run is refused before the run, at its rank and call.
func TestReplayRefuses(t *testing.T) {
	for name, c := range map[string]Call{
		"no such communicator":   {Op: CallSend, Comm: 3, Peer: 1},
		"peer outside":           {Op: CallSend, Peer: 9},
		"root outside":           {Op: CallBcast, Peer: 5, Bytes: 8},
		"v counts of a size":     {Op: CallAlltoallv, Counts: []int64{1}},
		"negative compute":       {Op: CallOther, Compute: -1},
		"too large a collective": {Op: CallGather, Bytes: 1 << 29},
	} {
		p := program(3, nil, func(r int) []Call {
			if r == 1 {
				return []Call{{Op: CallOther}, c}
			}
			return nil
		})
		_, err := NewWorkload([]Job{traceJob(p, JobTraffic{})}, 3, nil, nil)
		var te *TraceError
		require.ErrorAs(t, err, &te, name)
		assert.Equal(t, 1, te.Rank, name)
		assert.Equal(t, int64(2), te.Call, name)
	}
	_, err := NewWorkload([]Job{traceJob(ringProgram(4, 1, 0), JobTraffic{})}, 8, nil, nil)
	require.NoError(t, err)
	j := traceJob(ringProgram(4, 1, 0), JobTraffic{})
	j.Ranks = ranks(0, 5)
	assert.ErrorContains(t, j.Check(), "has 4 ranks, the job 5")
	for _, a := range []string{"allreduce", "allreduce=bruck", "ring=allreduce", "alltoall=bruck,bcast=scatter"} {
		j := traceJob(ringProgram(4, 1, 0), JobTraffic{Algorithm: a})
		assert.Error(t, j.Check(), a)
	}
}

// Iterations replay the program again: twice the messages.
func TestReplayIterations(t *testing.T) {
	wire := func(b int) int64 { return int64(b) }
	_, _, one := ideal(t, []Job{traceJob(ringProgram(5, 2, 10), JobTraffic{})}, 5, wire, 1e6)
	_, _, two := ideal(t, []Job{traceJob(ringProgram(5, 2, 10), JobTraffic{Iterations: 2})}, 5, wire, 1e6)
	assert.Equal(t, 2*one, two)
	_ = rand.New
}

// Every random program runs to its end on an ideal network, under MPICH's
// algorithms and under every named one, sending what it counts.
func TestRandomPrograms(t *testing.T) {
	wire := func(b int) int64 { return 500 + int64(b)*250 }
	for seed := uint64(1); seed <= 300; seed++ {
		n := 2 + int(seed%11)
		alg := ""
		if seed%3 == 0 {
			alg = "allreduce=ring,bcast=scatter-ring,alltoall=pairwise,allgather=recursive-doubling"
		}
		job := traceJob(RandomProgram(n, seed), JobTraffic{Algorithm: alg})
		src, err := NewWorkload([]Job{job}, n+1, nil, wire)
		require.NoError(t, err, "seed %d", seed)
		run := Ideal(src, n+1, wire, 1<<30, nil)
		require.True(t, run.Done, "seed %d: every rank ends", seed)
		require.Equal(t, JobMessages(src)[0], int64(run.Sent), "seed %d", seed)
	}
}

// genProgram is a program made as it is read: every rank sends its right
// neighbour a message per iteration on a tag of its own (the iteration),
// receives its left neighbour's, iters times. Nothing of it is held.
type genProgram struct{ n, iters int }

func (g genProgram) Name() string     { return "gen" }
func (g genProgram) Size() int        { return g.n }
func (g genProgram) Comms() [][]int32 { return (&MemProgram{Ranks: make([][]Call, g.n)}).Comms() }
func (g genProgram) Calls(r int) (CallReader, error) {
	return &genCalls{g: g, r: r}, nil
}

type genCalls struct {
	g    genProgram
	r, i int
}

func (c *genCalls) Next() (Call, error) {
	it, k := c.i/3, c.i%3
	if it >= c.g.iters {
		return Call{}, errEOF
	}
	c.i++
	n := c.g.n
	switch k {
	case 0:
		return Call{Op: CallIrecv, Peer: int32((c.r + n - 1) % n), Tag: int32(it), Bytes: 512, Req: 1, Compute: 100}, nil
	case 1:
		return Call{Op: CallIsend, Peer: int32((c.r + 1) % n), Tag: int32(it), Bytes: 512, Req: 2}, nil
	}
	return Call{Op: CallWait, Reqs: []int32{1, 2}}, nil
}

func (c *genCalls) Close() error { return nil }

// The replay keeps what is in flight, not what the trace held: after a
// run of thousands of iterations, each on a tag of its own, no rank holds
// a channel, an early message, a collective's count or a receive, and the
// windows hold at most a window's slack.
func TestReplayKeepsNothing(t *testing.T) {
	wire := func(b int) int64 { return int64(b) * 250 }
	for _, iters := range []int{10, 3000} {
		job := traceJob(genProgram{n: 16, iters: iters}, JobTraffic{})
		w, err := newWorkload([]Job{job}, 16, nil, wire)
		require.NoError(t, err)
		run := Ideal(w, 16, wire, 1<<30, nil)
		require.True(t, run.Done)
		require.Equal(t, 16*iters, run.Sent)
		for r, st := range w.replay[0].ranks {
			assert.Empty(t, st.chans, "rank %d", r)
			assert.Empty(t, st.early, "rank %d", r)
			assert.Empty(t, st.arrived, "rank %d", r)
			assert.LessOrEqual(t, len(st.inflight.vals), 130, "rank %d", r)
			assert.LessOrEqual(t, len(st.recvs.vals), 130, "rank %d", r)
		}
	}
}

// countedProgram counts the readings of a program that remembers its check.
type countedProgram struct {
	*MemProgram
	reads   int
	checked Checked
}

func (c *countedProgram) Calls(r int) (CallReader, error) { c.reads++; return c.MemProgram.Calls(r) }
func (c *countedProgram) Checked() *Checked               { return &c.checked }

// A program that remembers its check is read through once per set of
// algorithms, not once per workload made of it.
func TestReplayCheckRemembered(t *testing.T) {
	p := &countedProgram{MemProgram: ringProgram(4, 2, 0)}
	for range 3 {
		_, err := NewWorkload([]Job{traceJob(p, JobTraffic{})}, 4, nil, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, 4, p.reads, "one check, rank by rank")
	_, err := NewWorkload([]Job{traceJob(p, JobTraffic{Algorithm: "allreduce=ring"})}, 4, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 8, p.reads, "other algorithms: another check")
}

// A nonblocking collective (Call.Async) runs beside the computation that
// follows it: on an ideal network of 10 ps a byte, two ranks all-reduce
// 100 bytes (the ring: 50 bytes out and back, done at 1,000 ps), compute
// c, wait for the allreduce and then rank 0 sends 10 bytes to rank 1 (100
// ps). Blocking, the send goes at 1,000 + c; posted, at max(c, 1,000).
func TestReplayNonblockingCollective(t *testing.T) {
	wire := func(b int) int64 { return int64(b) * 10 }
	for _, c := range []struct {
		compute, blocking, async int64
	}{{2000, 3100, 2100}, {300, 1400, 1100}} {
		for _, async := range []bool{false, true} {
			p := program(2, nil, func(r int) []Call {
				calls := []Call{{Op: CallAllreduce, Bytes: 100, Req: 7, Async: async}, {Op: CallWait, Reqs: []int32{7}, Compute: c.compute}}
				if r == 0 {
					return append(calls, Call{Op: CallSend, Peer: 1, Bytes: 10})
				}
				return append(calls, Call{Op: CallRecv, Peer: 0})
			})
			job := traceJob(p, JobTraffic{Algorithm: "allreduce=ring"})
			require.NoError(t, CheckTrace(job))
			last, _, sent := ideal(t, []Job{job}, 2, wire, 100)
			want := c.blocking
			if async {
				want = c.async
			}
			assert.Equal(t, 5, sent)
			assert.Equal(t, want, last[0], "compute %d, async %v", c.compute, async)
		}
	}
}
