package chakra

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/traffic"
)

func ideal(t *testing.T, p traffic.Program, algorithm string) (traffic.IdealRun, int64) {
	t.Helper()
	n := p.Size()
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i
	}
	job := traffic.Job{ID: "ai", Ranks: ranks, Program: p, Traffic: traffic.JobTraffic{Kind: traffic.Trace, MessageBytes: 1, Load: 1, Iterations: 1, Algorithm: algorithm}}
	wire := func(b int) int64 { return int64(b) * 250 } // 4 GB/s, nothing else
	src, err := traffic.NewWorkload([]traffic.Job{job}, n, nil, wire)
	require.NoError(t, err)
	run := traffic.Ideal(src, n, wire, 1<<30, nil)
	require.True(t, run.Done)
	return run, traffic.JobMessages(src)[0]
}

// dp4 (testdata/make_et.py): the three gradients' all-reduces by NCCL's
// ring, each posted after its backward node and overlapping the backward
// nodes after it, on an ideal network: every NPU computes 20+40+10+20 µs
// and posts the 1 MiB all-reduce (2(n−1) = 6 steps of a quarter), the
// 4 MiB one 80 µs later and the 256 KiB one 40 µs after that; the
// optimizer waits for all three. The ring is symmetric, so a step's
// message arrives just as the rank's own step ends and its sender never
// idles from 90 µs on: the last message arrives after 90 µs plus the
// wire time of the three vectors' 6 quarters (blocking, the backward
// nodes' 120 µs would come on top).
func TestDataParallelStep(t *testing.T) {
	tr, err := Open("testdata/dp4")
	require.NoError(t, err)
	require.Equal(t, 4, tr.Size())
	run, total := ideal(t, tr, "")
	assert.Equal(t, int64(3*4*6), total)
	assert.Equal(t, 3*4*6, run.Sent)
	w := func(b int64) int64 { return b * 250 }
	us := int64(1_000_000)
	want := (20+40+10+20)*us + 6*w(1<<20/4+4<<20/4+256<<10/4)
	assert.Equal(t, want, run.Last[0], "the last message; the optimizer computes after it")
	// Under MPICH's algorithms instead (Rabenseifner above 2 KiB): other
	// messages, the same computation.
	_, mpich := ideal(t, tr, "mpich")
	assert.NotEqual(t, total, mpich)
}

// pp2x2: a pipeline of two data-parallel stages; the activations go
// forward, the gradient back, each stage all-reduces in its own process
// group (comm_group.json).
func TestPipelineStages(t *testing.T) {
	tr, err := Open("testdata/pp2x2")
	require.NoError(t, err)
	assert.Len(t, tr.Comms(), 3, "the world and the two groups")
	run, total := ideal(t, tr, "")
	// 4 point-to-point messages, two 2-rank ring all-reduces of 2 steps.
	assert.Equal(t, int64(4+2*2*2), total)
	for s := range 2 {
		assert.Equal(t, 1, run.Pairs[[2]int{s, s + 2}])
		assert.Equal(t, 1, run.Pairs[[2]int{s + 2, s}])
	}
	w := func(b int64) int64 { return b * 250 }
	us := int64(1_000_000)
	act := w(512 << 10)
	// Stage 0 computes 30, sends; stage 1 receives, computes 30 + 60,
	// sends back; stage 0 computes 60 and all-reduces 2 MiB in 2 steps of
	// 1 MiB.
	assert.Equal(t, 30*us+act+90*us+act+60*us+2*w(1<<20), run.Last[0])
}

// Malformed traces are errors naming the NPU, never a panic.
func TestCorruptChakra(t *testing.T) {
	good, err := os.ReadFile("testdata/dp4/dp4.0.et")
	require.NoError(t, err)
	read := func(b []byte) error {
		_, err := FromReaders("t", []io.Reader{bytes.NewReader(good), bytes.NewReader(b)}, nil)
		return err
	}
	require.NoError(t, read(good))
	for name, c := range map[string]struct {
		b    []byte
		want string
	}{
		"empty":     {nil, "no GlobalMetadata"},
		"truncated": {good[:len(good)-3], "ends inside"},
		"length":    {[]byte{0xff, 0xff, 0xff, 0xff, 0x0f}, "message 0 of"},
		"cycle":     {append(append([]byte(nil), good[:8]...), mkNode(1, 4, 2)...), ""},
	} {
		if name == "cycle" {
			b := append(append([]byte(nil), good[:8]...), mkNode(1, 4, 2)...)
			b = append(b, mkNode(2, 4, 1)...)
			c.b, c.want = b, "cycle"
		}
		err := read(c.b)
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), c.want, name)
		assert.Contains(t, err.Error(), "NPU 1", name)
	}
}

// mkNode is a length-delimited Node of id, type and one data dependency.
func mkNode(id, typ, dep byte) []byte {
	m := []byte{0x08, id, 0x18, typ, 0x28, dep}
	return append([]byte{byte(len(m))}, m...)
}

// FuzzChakra: no input panics the reader.
func FuzzChakra(f *testing.F) {
	for _, p := range []string{"testdata/dp4/dp4.0.et", "testdata/pp2x2/pp2x2.2.et"} {
		b, err := os.ReadFile(p)
		require.NoError(f, err)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := FromReaders("fuzz", []io.Reader{bytes.NewReader(b), bytes.NewReader(b)}, nil)
		if err != nil {
			return
		}
		for r := range 2 {
			rd, _ := tr.Calls(r)
			for {
				if _, err := rd.Next(); err != nil {
					break
				}
			}
		}
	})
}

var _ = filepath.Join
