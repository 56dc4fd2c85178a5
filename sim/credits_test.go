package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The credit queue against a naive model, a sorted list of every release
// instant: after any sequence of releases (in order, or overlapping in
// overlap mode), settle(t) holds exactly the releases at or before t, and
// when(need) is the instant of the need-th release counting the ones held.
func TestCreditsAgainstNaive(t *testing.T) {
	for _, overlap := range []bool{false, true} {
		for seed := uint64(1); seed <= 1000; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			c := newCredits(overlap)
			l := newLaneCredits(0)
			var naive []int64 // releases not yet settled
			held := int32(0)
			now, last := int64(0), int64(0)
			for step := 0; step < 60; step++ {
				switch r.IntN(3) {
				case 0, 1: // release a progression, perhaps later without settling
					if r.IntN(3) == 0 {
						now += int64(r.IntN(10))
					}
					n := int32(1 + r.IntN(10))
					dt := int64(pickOne(r, 0, 1, 3, 10, 16))
					t0 := now + int64(r.IntN(50))
					if q := c.queue(&l); overlap && len(q) > 0 && r.IntN(3) == 0 {
						t0 = max(now, q[len(q)-1].last()+int64(r.IntN(3))) // just after the last segment
					}
					if !overlap {
						t0 = max(t0, last) // in order, as a FIFO lane releases
						if dt == 0 {
							n = 1
						}
					}
					c.release(&l, t0, dt, n, now)
					for k := int32(0); k < n; k++ {
						naive = append(naive, t0+int64(k)*dt)
					}
					last = max(last, t0+int64(n-1)*dt)
					requireSorted(t, c.queue(&l), "overlap %v seed %d step %d: after release", overlap, seed, step)
				default: // time passes; settle and ask
					now += int64(r.IntN(30))
					slices.Sort(naive)
					for len(naive) > 0 && naive[0] <= now {
						naive, held = naive[1:], held+1
					}
					c.settle(&l, now)
					requireSorted(t, c.queue(&l), "overlap %v seed %d step %d: after settle", overlap, seed, step)
					require.Equal(t, held, l.avail, "overlap %v seed %d step %d: held", overlap, seed, step)
					need := held + int32(r.IntN(8))
					want := never
					switch {
					case need <= held:
						want = now
					case int(need-held) <= len(naive):
						want = naive[need-held-1]
					}
					require.Equal(t, want, c.when(&l, need, now), "overlap %v seed %d step %d: when(%d)", overlap, seed, step, need)
				}
			}
		}
	}
}

func pickOne(r *rand.Rand, xs ...int) int { return xs[r.IntN(len(xs))] }

// requireSorted checks a credit queue's order: by first release.
func requireSorted(t *testing.T, q []segment, msg string, args ...any) {
	t.Helper()
	for i := 1; i < len(q); i++ {
		require.LessOrEqual(t, q[i-1].t0, q[i].t0, append([]any{msg}, args...)...)
	}
}

// A lane is two cache lines: its state, then its first credit segments.
func TestLaneSize(t *testing.T) {
	require.EqualValues(t, 128, unsafe.Sizeof(lane{}))
}

// A packet's hop state is 32 bytes, two to a cache line.
func TestPacketSize(t *testing.T) {
	require.EqualValues(t, 32, unsafe.Sizeof(packet{}))
}

// A full queue settles before it takes a new segment, and in overlap mode
// that can file a partly drained segment behind the one that was last: the
// new segment must still go in order (found in review: appended, its
// credit at 6 was missed by a settle at 7).
func TestCreditsFullQueueSettleKeepsOrder(t *testing.T) {
	c := newCredits(true)
	l := newLaneCredits(0)
	c.release(&l, 0, 10, 10, 0) // A: 0, 10, …, 90
	c.release(&l, 1, 0, 1, 0)   // B
	c.release(&l, 2, 0, 1, 0)   // D
	c.release(&l, 5, 0, 1, 0)   // E: the queue is full
	c.release(&l, 6, 3, 1, 4)   // C: settling at 4 leaves [E 5, A 10]
	requireSorted(t, c.queue(&l), "after C")
	c.settle(&l, 7)
	require.EqualValues(t, 5, l.avail) // A's 0, B, D, E, C
	require.Equal(t, int64(10), c.when(&l, 6, 7))
}

// A channel's sender state is one cache line.
func TestChannelSize(t *testing.T) {
	require.EqualValues(t, 64, unsafe.Sizeof(channel{}))
}
