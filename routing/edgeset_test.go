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

// The map and the set's has answer as Go's map does, whatever the order
// and however they grew, and a reset map is empty.
func TestEdgeMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var m edgeMap
	var s edgeSet
	want := map[uint64]int32{}
	for round := 0; round < 2; round++ {
		for i := 0; i < 50000; i++ {
			k := uint64(r.IntN(30000))
			if i%5 == 0 {
				k = edgeKey(int32(r.IntN(1<<20)), int32(r.IntN(1<<20)))
			}
			v, ok := m.get(k)
			w, wok := want[k]
			require.Equal(t, wok, ok, "key %d", k)
			require.Equal(t, w, v, "key %d", k)
			require.Equal(t, wok, s.has(k), "key %d", k)
			if !ok {
				m.put(k, int32(i))
				s.add(k)
				want[k] = int32(i)
			}
		}
		require.Equal(t, len(want), m.n)
		m.reset()
		s = edgeSet{}
		clear(want)
		_, ok := m.get(0)
		require.False(t, ok)
	}
}
