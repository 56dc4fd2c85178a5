package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The set keeps each key once, whatever the order and however it grew.
func TestEdgeSet(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var s edgeSet
	want := map[uint64]bool{}
	for i := 0; i < 50000; i++ {
		k := uint64(r.IntN(20000))
		if i%7 == 0 {
			k = edgeKey(int32(r.IntN(1<<20)), int32(r.IntN(1<<20)))
		}
		require.Equal(t, !want[k], s.add(k), "key %d", k)
		want[k] = true
	}
	require.Equal(t, len(want), s.n)
	require.True(t, s.add(0) == !want[0])
}
