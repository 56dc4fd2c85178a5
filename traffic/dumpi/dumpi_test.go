package dumpi

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/traffic"
)

func readAll(t *testing.T, p traffic.Program, r int) []traffic.Call {
	t.Helper()
	rd, err := p.Calls(r)
	require.NoError(t, err)
	defer rd.Close()
	var out []traffic.Call
	for {
		c, err := rd.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, c)
	}
}

// The ring traces (testdata/ring.c on 4 and 8 ranks, MPICH 4.0.2) read as
// the program's calls: Init, Comm_rank, Comm_size, then per iteration an
// Irecv of 1 KiB from the left neighbour with the iteration as tag, an
// Isend to the right, a Waitall of both, an 8-byte allreduce, a 256-byte
// all-to-all and a barrier, and Finalize; the traced computation between
// the calls is there.
func TestRingTraces(t *testing.T) {
	for _, dir := range []string{"ring4", "ring8"} {
		tr, err := Open(filepath.Join("testdata", dir))
		require.NoError(t, err, dir)
		n := tr.Size()
		require.Equal(t, map[string]int{"ring4": 4, "ring8": 8}[dir], n)
		assert.Len(t, tr.Comms(), 1+n, "the world and each rank's MPI_COMM_SELF")
		assert.Equal(t, int64(3*n), tr.Records["MPI_Isend"])
		assert.Empty(t, tr.Skipped)
		for r := range n {
			calls := readAll(t, tr, r)
			require.Len(t, calls, 22, "%s rank %d", dir, r)
			for _, i := range []int{0, 1, 2, 21} {
				assert.Equal(t, traffic.CallOther, calls[i].Op)
			}
			var compute int64
			for it := range 3 {
				c := calls[3+6*it : 9+6*it]
				assert.Equal(t, traffic.Call{Op: traffic.CallIrecv, Peer: int32((r + n - 1) % n), Tag: int32(it), Bytes: 1024, Req: c[0].Req, Compute: c[0].Compute, Duration: c[0].Duration}, c[0])
				assert.Equal(t, traffic.Call{Op: traffic.CallIsend, Peer: int32((r + 1) % n), Tag: int32(it), Bytes: 1024, Req: c[1].Req, Compute: c[1].Compute, Duration: c[1].Duration}, c[1])
				assert.Equal(t, traffic.CallWait, c[2].Op)
				assert.ElementsMatch(t, []int32{c[0].Req, c[1].Req}, c[2].Reqs)
				assert.Equal(t, traffic.CallAllreduce, c[3].Op)
				assert.Equal(t, int64(8), c[3].Bytes)
				assert.Equal(t, traffic.CallAlltoall, c[4].Op)
				assert.Equal(t, int64(256), c[4].Bytes)
				assert.Equal(t, traffic.CallBarrier, c[5].Op)
				for _, x := range c {
					assert.Zero(t, x.Comm)
					compute += x.Compute
				}
			}
			// spin(200000) between iterations: some tens of µs each.
			assert.Greater(t, compute, int64(2*10e6), "rank %d computes between iterations", r)
		}
	}
}

// A trace replays on an ideal network: every message the program sends
// (the ring's, the collectives' by MPICH's algorithms) is sent and every
// rank gets through.
func TestRingTraceReplays(t *testing.T) {
	tr, err := Open("testdata/ring8")
	require.NoError(t, err)
	job := traffic.Job{ID: "ring", Ranks: []int{0, 1, 2, 3, 4, 5, 6, 7}, Program: tr,
		Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}}
	src, err := traffic.NewWorkload([]traffic.Job{job}, 8, nil, func(b int) int64 { return int64(b) * 250 })
	require.NoError(t, err)
	// Per iteration: the ring 8, the allreduce by recursive doubling 8·3,
	// the 256-byte all-to-all on 8 ranks by Bruck 8·3, the barrier 8·3.
	assert.Equal(t, int64(3*(8+24+24+24)), traffic.JobMessages(src)[0])
}

// Truncated or corrupted traces are errors naming the file, the rank and
// the record, never a panic and never a silent misreading.
func TestCorruptTraces(t *testing.T) {
	good, err := os.ReadFile("testdata/ring4/dumpi-2026.11.28.16.01.31-0001.bin")
	require.NoError(t, err)
	read := func(b []byte) error {
		files := [][]byte{good, b, good, good}
		_, err := FromBytes("t", files)
		return err
	}
	require.NoError(t, read(good))
	// The first Waitall's request array: its count follows the 29-byte
	// prefix and the call's own count.
	waitall := int64(-1)
	d := &decoder{r: bufio.NewReader(bytes.NewReader(good[16:])), off: 16, limit: int64(len(good))}
	var rec record
	for waitall < 0 {
		require.NoError(t, d.next(&rec))
		if rec.id == idWaitall {
			waitall = rec.offset + 29 + 4
		}
	}
	for name, c := range map[string]struct {
		edit func([]byte) []byte
		want string
	}{
		"empty":          {func([]byte) []byte { return nil }, "too short"},
		"no magic":       {func(b []byte) []byte { b[0] = 0; return b }, "not a DUMPI file"},
		"truncated":      {func(b []byte) []byte { return b[:len(b)-100] }, "no index"},
		"unknown id":     {func(b []byte) []byte { b[16], b[17] = 0x01, 0x30; return b }, "record 1: unknown function id 304"},
		"mask":           {func(b []byte) []byte { b[18] = 0x7f; return b }, "unused bits"},
		"array count":    {func(b []byte) []byte { b[waitall], b[waitall+1] = 0x7f, 0xff; return b }, "runs past the record stream"},
		"footer count":   {func(b []byte) []byte { b[969+8+3]++; return b }, "the footer counts"},
		"timestamp":      {func(b []byte) []byte { b[16+7] = 0xff; return b }, "timestamp"}, // the first record's CPU start ns
		"index past end": {func(b []byte) []byte { b[len(b)-32] = 0x7f; return b }, "points past the file"},
	} {
		b := append([]byte(nil), good...)
		err := read(c.edit(b))
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.Contains(t, err.Error(), "rank 1", name)
	}
}

const collectivesPrefix = "dumpi-2026.11.29.00.39.55"

// FuzzTrace: no input panics the reader, and what it accepts it can
// stream to the end. An input is two ranks' files, cut at split, so that
// the communicators of several ranks are rebuilt too.
func FuzzTrace(f *testing.F) {
	r0, err := os.ReadFile("testdata/collectives4/" + collectivesPrefix + "-0000.bin")
	require.NoError(f, err)
	r1, err := os.ReadFile("testdata/collectives4/" + collectivesPrefix + "-0001.bin")
	require.NoError(f, err)
	ring, err := os.ReadFile("testdata/ring4/dumpi-2026.11.28.16.01.31-0001.bin")
	require.NoError(f, err)
	f.Add(append(append([]byte(nil), r0...), r1...), uint32(len(r0)))
	f.Add(append(append([]byte(nil), ring...), ring...), uint32(len(ring)))
	f.Add(ring[:100], uint32(50))
	f.Fuzz(func(t *testing.T, b []byte, split uint32) {
		cut := int(split) % (len(b) + 1)
		tr, err := FromBytes("fuzz", [][]byte{b[:cut], b[cut:]})
		if err != nil {
			return
		}
		for r := range 2 {
			rd, err := tr.Calls(r)
			if err != nil {
				return
			}
			for {
				if _, err := rd.Next(); err != nil {
					break
				}
			}
		}
	})
}

// expected reads a trace's expected.txt (written from the program's logic,
// never from the trace): messages and bytes per (source, destination)
// world-rank pair, and calls per collective kind, communicator and rank.
func expected(t *testing.T, dir string) (p2p map[[2]int][2]int64, coll map[string]int64) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.txt"))
	require.NoError(t, err)
	p2p, coll = map[[2]int][2]int64{}, map[string]int64{}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 5 && f[0] == "p2p":
			s, _ := strconv.Atoi(f[1])
			d, _ := strconv.Atoi(f[2])
			m, _ := strconv.ParseInt(f[3], 10, 64)
			b, _ := strconv.ParseInt(f[4], 10, 64)
			p2p[[2]int{s, d}] = [2]int64{m, b}
		case len(f) == 5 && f[0] == "coll":
			n, _ := strconv.ParseInt(f[4], 10, 64)
			coll[f[1]+" "+f[2]+" "+f[3]] = n
		}
	}
	return p2p, coll
}

// Every trace made here (testdata/README.md) reads as its program sends:
// the point-to-point messages and bytes of each rank pair (sends on any
// communicator, a Sendrecv's send, none to MPI_PROC_NULL) and the
// collective calls of each rank on each communicator equal what the
// program's own logic says; and the trace replays on an ideal network to
// its end, every message counted sent.
func TestTracesMadeHere(t *testing.T) {
	dirs, err := filepath.Glob("testdata/*/expected.txt")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(dirs), 10)
	names := map[traffic.CallOp]string{traffic.CallAllreduce: "Allreduce", traffic.CallBcast: "Bcast", traffic.CallReduce: "Reduce",
		traffic.CallAllgather: "Allgather", traffic.CallGather: "Gather", traffic.CallScatter: "Scatter", traffic.CallAlltoall: "Alltoall",
		traffic.CallAlltoallv: "Alltoallv", traffic.CallReduceScatter: "Reduce_scatter", traffic.CallBarrier: "Barrier"}
	for _, e := range dirs {
		dir := filepath.Dir(e)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			wantP2P, wantColl := expected(t, dir)
			tr, err := Open(dir)
			require.NoError(t, err)
			gotP2P, gotColl := map[[2]int][2]int64{}, map[string]int64{}
			for r := range tr.Size() {
				for _, c := range readAll(t, tr, r) {
					switch c.Op {
					case traffic.CallSend, traffic.CallIsend, traffic.CallSendrecv:
						d := int(tr.Comms()[c.Comm][c.Peer])
						x := gotP2P[[2]int{r, d}]
						gotP2P[[2]int{r, d}] = [2]int64{x[0] + 1, x[1] + c.Bytes}
					default:
						if name, ok := names[c.Op]; ok {
							comm := "WORLD"
							if c.Comm != 0 {
								comm = "ROW"
							}
							gotColl[fmt.Sprintf("%s %s %d", name, comm, r)]++
						}
					}
				}
			}
			assert.Equal(t, wantP2P, gotP2P)
			assert.Equal(t, wantColl, gotColl)
			n := tr.Size()
			job := traffic.Job{ID: "t", Ranks: make([]int, n), Program: tr, Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1}}
			for i := range job.Ranks {
				job.Ranks[i] = i
			}
			sent, total := replayIdeal(t, job, n)
			assert.Equal(t, total, sent)
		})
	}
}

// replayIdeal runs a job through an ideal network (traffic.Ideal) until
// every rank is done; it returns the messages sent and the count
// JobMessages gives.
func replayIdeal(t *testing.T, job traffic.Job, n int) (sent, total int64) {
	t.Helper()
	wire := func(b int) int64 { return 1000 + int64(b)*250 }
	src, err := traffic.NewWorkload([]traffic.Job{job}, n, nil, wire)
	require.NoError(t, err)
	run := traffic.Ideal(src, n, wire, 1<<30, nil)
	require.True(t, run.Done, "every rank finishes")
	return int64(run.Sent), traffic.JobMessages(src)[0]
}
