package difftest

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs"
	"flitsim/configs/pipeline"
	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/reference"
	"flitsim/traffic"
)

// bothSims runs p in the fast and the reference simulator and requires
// that they agree packet for packet.
func bothSims(t *testing.T, net *fabric.Network, tb *routing.Tables, p sim.Params) *sim.Result {
	t.Helper()
	p.Record = true
	fast, err := sim.Run(net, tb, p)
	require.NoError(t, err)
	ref, err := reference.Run(net, tb, p)
	require.NoError(t, err)
	require.Empty(t, Compare(fast, ref))
	for j := range fast.Jobs {
		assert.Equal(t, fast.Jobs[j].Trace, ref.Jobs[j].Trace, "job %s: the same time per call", fast.Jobs[j].ID)
	}
	return fast
}

// A ping-pong written as a trace is the ping-pong pattern: the same
// messages at the same instants in both simulators, the same completion;
// computation between the calls adds to it exactly (rank 0 computes
// before each ping, on the critical path).
func TestTracePingPongIsThePattern(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	const iters, c = 5, 3 * fabric.Microsecond
	pingpong := func(compute int64) *traffic.MemProgram {
		p := &traffic.MemProgram{ID: "pingpong", Ranks: make([][]traffic.Call, 2)}
		for it := range iters {
			p.Ranks[0] = append(p.Ranks[0], traffic.Call{Op: traffic.CallSend, Peer: 1, Bytes: 3000, Compute: compute},
				traffic.Call{Op: traffic.CallRecv, Peer: 1, Tag: int32(it)})
			p.Ranks[1] = append(p.Ranks[1], traffic.Call{Op: traffic.CallRecv, Peer: 0},
				traffic.Call{Op: traffic.CallSend, Peer: 0, Tag: int32(it), Bytes: 3000})
		}
		return p
	}
	run := func(job traffic.Job) sim.JobResult {
		p := sim.DefaultParams()
		p.Jobs = []traffic.Job{job}
		r := bothSims(t, net, tb, p)
		require.True(t, r.Jobs[0].Completed)
		return r.Jobs[0]
	}
	ranks := []int{0, 3}
	pat := run(traffic.Job{ID: "pp", Ranks: ranks, Traffic: traffic.JobTraffic{Kind: traffic.PingPong, MessageBytes: 3000, Load: 1, Iterations: iters}})
	trace := func(compute int64) sim.JobResult {
		return run(traffic.Job{ID: "pp", Ranks: ranks, Program: pingpong(compute), Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}})
	}
	plain := trace(0)
	assert.Equal(t, pat.CompletionNs, plain.CompletionNs)
	assert.Equal(t, 2*int64(iters), plain.Messages)
	withC := trace(c)
	assert.InDelta(t, plain.CompletionNs+float64(iters*c)/1000, withC.CompletionNs, 1e-9)
	assert.InDelta(t, float64(iters*c)/1000/2, withC.Trace.ComputeNs, 1e-9, "rank 0 computes, rank 1 does not: the mean per rank")
}

// Traces made here replay in both simulators alike, beside each other on
// one fat tree: every message delivered, no faster than on an ideal
// network.
func TestTracesInBothSimulators(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	var jobs []traffic.Job
	next := 0
	for _, dir := range []string{"halo3d8", "cg4", "collectives4"} {
		prog, err := configs.LoadTrace("../../traffic/dumpi/testdata/" + dir)
		require.NoError(t, err)
		job := traffic.Job{ID: dir, Program: prog, Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1, ComputeScale: 0.05}}
		for range prog.Size() {
			job.Ranks = append(job.Ranks, next)
			next += 1
		}
		jobs = append(jobs, job)
	}
	p := sim.DefaultParams()
	p.Jobs = jobs
	r := bothSims(t, net, tb, p)
	pipeline.IdealTimes(r, p)
	for j, jr := range r.Jobs {
		require.True(t, jr.Completed, jr.ID)
		src, err := traffic.NewWorkload([]traffic.Job{jobs[j]}, 16, nil, nil)
		require.NoError(t, err)
		assert.Equal(t, traffic.JobMessages(src)[0], jr.Messages, jr.ID)
		assert.GreaterOrEqual(t, jr.IdealSlowdown, 1.0, jr.ID)
		require.NotNil(t, jr.Trace)
	}
}

// The Chakra traces made here (a data-parallel step, a two-stage
// pipeline) replay in both simulators alike, beside each other.
func TestChakraInBothSimulators(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=2,n=3")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	var jobs []traffic.Job
	for i, dir := range []string{"dp4", "pp2x2"} {
		prog, err := configs.LoadTrace("../../traffic/chakra/testdata/" + dir)
		require.NoError(t, err)
		jobs = append(jobs, traffic.Job{ID: dir, Program: prog, Ranks: []int{i, i + 2, i + 4, i + 6},
			Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}})
	}
	p := sim.DefaultParams()
	p.Jobs = jobs
	r := bothSims(t, net, tb, p)
	pipeline.IdealTimes(r, p)
	for _, jr := range r.Jobs {
		require.True(t, jr.Completed, jr.ID)
		assert.Greater(t, jr.IdealSlowdown, 1.0, jr.ID)
	}
	// NCCL's double binary tree for the data-parallel step's allreduces:
	// the same calls, other messages (two trees' halves up and down).
	jobs[0].Traffic.Algorithm = "allreduce=tree"
	tree := bothSims(t, net, tb, p)
	pipeline.IdealTimes(tree, p)
	require.True(t, tree.Jobs[0].Completed)
	// 1.75 MiB per allreduce: two chunks a half, 24 messages against the
	// ring's 24 (six a rank), but other ones.
	assert.Equal(t, r.Jobs[0].Messages, tree.Jobs[0].Messages)
	assert.NotEqual(t, r.Jobs[0].CompletionNs, tree.Jobs[0].CompletionNs)
	require.Len(t, tree.Jobs[0].Trace.Calls, len(r.Jobs[0].Trace.Calls))
	for i, c := range r.Jobs[0].Trace.Calls {
		assert.Equal(t, c.Count, tree.Jobs[0].Trace.Calls[i].Count, "the same calls")
	}
}

// changing is a program whose files change after the check: rank 1's
// calls read anew after opens opens fail halfway.
type changing struct {
	*traffic.MemProgram
	opens *int
	after int
}

func (c changing) Calls(r int) (traffic.CallReader, error) {
	rd, err := c.MemProgram.Calls(r)
	if r == 1 {
		*c.opens++
		if *c.opens > c.after {
			return failing{rd}, err
		}
	}
	return rd, err
}

// failing reads a rank's first call and then fails.
type failing struct{ traffic.CallReader }

func (f failing) Next() (traffic.Call, error) {
	c, err := f.CallReader.Next()
	if err == nil && c.Tag > 0 {
		return traffic.Call{}, errors.New("record 7: unknown function 999")
	}
	return c, err
}

// A trace that changes between the check and the run (rank 1's file now
// breaks off) ends the run in both simulators with an error naming the
// program and rank, not with a deadlock or a short run that looks
// complete.
func TestTraceChangedDuringRun(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	mem := &traffic.MemProgram{ID: "pp", Ranks: make([][]traffic.Call, 2)}
	for it := range 3 {
		mem.Ranks[0] = append(mem.Ranks[0], traffic.Call{Op: traffic.CallSend, Peer: 1, Tag: int32(it), Bytes: 100},
			traffic.Call{Op: traffic.CallRecv, Peer: 1, Tag: int32(it)})
		mem.Ranks[1] = append(mem.Ranks[1], traffic.Call{Op: traffic.CallRecv, Peer: 0, Tag: int32(it)},
			traffic.Call{Op: traffic.CallSend, Peer: 0, Tag: int32(it), Bytes: 100})
	}
	for name, run := range map[string]func(*fabric.Network, *routing.Tables, sim.Params) (*sim.Result, error){"fast": sim.Run, "reference": reference.Run} {
		opens := 0
		p := sim.DefaultParams()
		p.Jobs = []traffic.Job{{ID: "pp", Ranks: []int{0, 3}, Program: changing{mem, &opens, 1},
			Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}}}
		_, err := run(net, tb, p)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), "pp, rank 1, during the run", name)
		assert.Contains(t, err.Error(), "unknown function 999", name)
		assert.Equal(t, 2, opens, "%s: read once by the check, once by the run", name)
	}
}

// A nonblocking collective overlaps the computation after it in both
// simulators alike (the source answers traffic.Later while the rank
// computes and its collective still has steps to take): four ranks post
// a 64 KiB allreduce, compute 20 or 40 µs, wait for it and exchange a
// message;
// posted, the run ends when the longer of the two does, then the
// message; blocking, after both.
func TestNonblockingCollectiveInBothSimulators(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=2,n=2")
	require.NoError(t, err)
	tb, err := routing.Compute("dfsssp", net, routing.DefaultOptions())
	require.NoError(t, err)
	run := func(async bool, compute int64) sim.JobResult {
		p := &traffic.MemProgram{ID: "overlap", Ranks: make([][]traffic.Call, 4)}
		for r := range 4 {
			p.Ranks[r] = []traffic.Call{{Op: traffic.CallAllreduce, Bytes: 64 << 10, Req: 3, Async: async},
				{Op: traffic.CallWait, Reqs: []int32{3}, Compute: compute},
				{Op: traffic.CallSendrecv, Peer: int32(r ^ 1), Peer2: int32(r ^ 1), Bytes: 1000}}
		}
		q := sim.DefaultParams()
		q.Jobs = []traffic.Job{{ID: "overlap", Ranks: []int{0, 1, 2, 3}, Program: p,
			Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1, Algorithm: "allreduce=ring"}}}
		r := bothSims(t, net, tb, q)
		require.True(t, r.Jobs[0].Completed)
		return r.Jobs[0]
	}
	alone := run(false, 0).CompletionNs // the allreduce (29.6 µs here), then the message
	for _, c := range []int64{20 * fabric.Microsecond, 40 * fabric.Microsecond} {
		blocking, posted := run(false, c).CompletionNs, run(true, c).CompletionNs
		us := float64(c) / 1000
		assert.InDelta(t, alone+us, blocking, 1e-6, "blocking: the computation after the allreduce")
		if us < alone {
			assert.InDelta(t, alone, posted, 1e-6, "posted: the computation hides in the allreduce")
		} else {
			assert.Less(t, posted, us+0.5*alone, "posted: the allreduce hides in the computation")
			assert.Greater(t, posted, us)
		}
	}
}
