package sim

import (
	"container/heap"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// A chunk fills whole cache lines (its padding follows chunkLen), so that
// gathering a bucket reads no line shared with another chunk.
func TestQueueChunkFillsLines(t *testing.T) {
	require.Zero(t, unsafe.Sizeof(qchunk{})%64, "chunk of %d bytes", unsafe.Sizeof(qchunk{}))
	require.Less(t, unsafe.Sizeof(qchunk{})-uintptr(chunkLen)*unsafe.Sizeof(qitem{}), uintptr(64), "padding beyond a line")
}

// The calendar queue pops in (time, phase, push order) whatever the load
// does to its shape: a metamorphic check against a plain sort, under
// bursts at one instant, far-future events beyond the ring, load that grows
// and shrinks by orders of magnitude (forcing rebuilds), and interleaved
// pushes into the bucket being consumed.
func TestQueueOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		gap  func(r *rand.Rand) int64
	}{
		{"uniform-1us", func(r *rand.Rand) int64 { return r.Int64N(1 << 20) }},
		{"same-instant", func(r *rand.Rand) int64 { return r.Int64N(2) * 16000 }},
		{"far-future", func(r *rand.Rand) int64 {
			if r.IntN(10) == 0 {
				return r.Int64N(1 << 40)
			}
			return r.Int64N(1 << 14)
		}},
		{"mixed-scales", func(r *rand.Rand) int64 { return r.Int64N(1 << (4 + r.IntN(30))) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, uint64(len(tc.name))))
			var q eventQueue
			pending := &refHeap{}
			now, seq := int64(0), 0
			push := func() {
				seq++
				e := event{at: now + tc.gap(r), phase: uint8(r.IntN(4)), ref: int32(seq)}
				q.push(e)
				heap.Push(pending, ref{e.at, e.phase, seq})
			}
			// Grow to 50k in flight, shrink to nothing, grow again.
			for round, target := range []int{50000, 10, 20000, 0} {
				for q.len() != target {
					if q.len() < target && r.IntN(3) > 0 || q.len() == 0 {
						push()
						continue
					}
					want := heap.Pop(pending).(ref)
					require.Equal(t, want.at, q.peek().at, "round %d", round)
					e := q.pop()
					require.Equal(t, int32(want.seq), e.ref, "round %d: popped out of order", round)
					now = e.at
				}
			}
			require.Zero(t, pending.Len())
			// Drained, every chunk and overflow slot is free again.
			free := 0
			for c := q.freeCh; c >= 0; c = q.chunks[c].next {
				free++
			}
			require.Equal(t, len(q.chunks), free, "chunks leaked")
			require.Len(t, q.overFree, len(q.overEv), "overflow slots leaked")
		})
	}
}

type ref struct {
	at    int64
	phase uint8
	seq   int
}

// refHeap is the obviously right reference: container/heap on the full key.
type refHeap []ref

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.phase != b.phase {
		return a.phase < b.phase
	}
	return a.seq < b.seq
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(ref)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
