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
		for seed := uint64(1); seed <= 300; seed++ {
			r := rand.New(rand.NewPCG(seed, 7))
			c := newCredits(overlap)
			l := newLaneCredits(0)
			var naive []int64 // releases not yet settled
			held := int32(0)
			now, last := int64(0), int64(0)
			for step := 0; step < 60; step++ {
				switch r.IntN(3) {
				case 0, 1: // release a progression
					n := int32(1 + r.IntN(6))
					dt := int64(pickOne(r, 0, 1, 3, 16))
					t0 := now + int64(r.IntN(50))
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
				default: // time passes; settle and ask
					now += int64(r.IntN(30))
					slices.Sort(naive)
					for len(naive) > 0 && naive[0] <= now {
						naive, held = naive[1:], held+1
					}
					c.settle(&l, now)
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

// A lane is one cache line.
func TestLaneSize(t *testing.T) {
	require.EqualValues(t, 128, unsafe.Sizeof(lane{}))
}

// A packet's hop state is 32 bytes, two to a cache line.
func TestPacketSize(t *testing.T) {
	require.EqualValues(t, 32, unsafe.Sizeof(packet{}))
}
