package traffic

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPlace(t *testing.T) {
	// Three switches with three HCAs each; HCAs 0, 4 and 8 busy.
	switchOf := []int{0, 0, 0, 1, 1, 1, 2, 2, 2}
	freeSet := func() []bool { return []bool{false, true, true, true, false, true, true, true, false} }
	for _, tc := range []struct {
		o    Order
		size int
		want []int
	}{
		{ByHCA, 4, []int{1, 2, 3, 5}},
		{RoundRobin, 4, []int{3, 6, 1, 7}}, // order 0 3 6 1 4 7 …, busy ones skipped
		{ByHCA, 6, []int{1, 2, 3, 5, 6, 7}},
	} {
		free := freeSet()
		got, err := Place(tc.o, tc.size, free, switchOf, rand.New(rand.NewPCG(1, 1)))
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.o)
		for _, h := range got {
			assert.False(t, free[h], "HCA %d placed but still free", h)
		}
	}
	free := freeSet()
	got, err := Place(RandomOrder, 6, free, switchOf, rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	sort.Ints(got)
	assert.Equal(t, []int{1, 2, 3, 5, 6, 7}, got, "six of six free HCAs, in any order")
	_, err = Place(ByHCA, 7, freeSet(), switchOf, nil)
	require.ErrorContains(t, err, "7 HCAs: 6 of 9 free")
	_, err = Place(ByHCA, 0, nil, switchOf, nil)
	require.Error(t, err)
}

func TestFragmentationMix(t *testing.T) {
	const n = 1000
	f := Fragmentation{Utilization: 0.8, MinSize: 4, MaxSize: 100}
	mix, err := f.Mix(n, rand.New(rand.NewPCG(7, 7)))
	require.NoError(t, err)
	seen := make([]bool, n)
	busy, gaps := 0, 0
	for _, j := range mix {
		require.True(t, sort.IntsAreSorted(j))
		assert.GreaterOrEqual(t, len(j), 4)
		assert.LessOrEqual(t, len(j), 100)
		for k, h := range j {
			require.False(t, seen[h], "HCA %d in two jobs", h)
			seen[h] = true
			if k > 0 && h != j[k-1]+1 {
				gaps++
			}
		}
		busy += len(j)
	}
	assert.LessOrEqual(t, busy, 800, "never above the utilization")
	assert.Greater(t, busy, 600, "the stream fills the fabric close to it")
	assert.Positive(t, gaps, "first fit after departures splits jobs: the mix is fragmented")
	again, err := f.Mix(n, rand.New(rand.NewPCG(7, 7)))
	require.NoError(t, err)
	assert.Equal(t, mix, again, "same seed, same mix")
	other, err := f.Mix(n, rand.New(rand.NewPCG(8, 7)))
	require.NoError(t, err)
	assert.NotEqual(t, mix, other)

	for _, bad := range []Fragmentation{{Utilization: 1.5}, {MinSize: 10, MaxSize: 5}, {MaxSize: 2000}} {
		_, err := bad.Mix(n, rand.New(rand.NewPCG(1, 1)))
		assert.Error(t, err, "%+v", bad)
	}
}

// PlaceOnSwitches deals a job evenly over n random switches with a free
// HCA, ranks in fabric order; a switch short of free HCAs leaves its turn
// to the others; too few switches or HCAs are refused.
func TestPlaceOnSwitches(t *testing.T) {
	// Five switches with four HCAs each; switch 1 has one free HCA.
	switchOf := make([]int, 20)
	for h := range switchOf {
		switchOf[h] = h / 4
	}
	freeSet := func() []bool {
		f := make([]bool, 20)
		for h := range f {
			f[h] = h < 4 || h > 6
		}
		return f
	}
	for seed := range uint64(20) {
		free := freeSet()
		got, err := PlaceOnSwitches(7, 3, free, switchOf, rand.New(rand.NewPCG(seed, 1)))
		require.NoError(t, err)
		require.Len(t, got, 7)
		per := map[int]int{}
		for i, h := range got {
			per[switchOf[h]]++
			assert.False(t, free[h])
			if i > 0 {
				assert.Less(t, got[i-1], h, "fabric order")
			}
		}
		require.Len(t, per, 3, "seed %d: %v", seed, got)
		var counts []int
		for _, c := range per {
			counts = append(counts, c)
		}
		want := []int{2, 2, 3} // 7 over 3 switches
		if per[1] > 0 {
			want = []int{1, 3, 3} // switch 1's one free HCA, the others take its turns
		}
		assert.ElementsMatch(t, want, counts, "seed %d: %v", seed, per)
	}
	// The drawn switches differ by seed, and the same seed draws the same.
	a, _ := PlaceOnSwitches(8, 2, nil, switchOf, rand.New(rand.NewPCG(1, 1)))
	b, _ := PlaceOnSwitches(8, 2, nil, switchOf, rand.New(rand.NewPCG(1, 1)))
	assert.Equal(t, a, b)
	seen := map[string]bool{}
	for seed := range uint64(10) {
		c, _ := PlaceOnSwitches(8, 2, nil, switchOf, rand.New(rand.NewPCG(seed, 1)))
		seen[fmt.Sprint(c)] = true
	}
	assert.Greater(t, len(seen), 2)
	_, err := PlaceOnSwitches(4, 6, freeSet(), switchOf, rand.New(rand.NewPCG(1, 1)))
	require.ErrorContains(t, err, "6 switches: 5 have a free HCA")
	_, err = PlaceOnSwitches(9, 2, freeSet(), switchOf, rand.New(rand.NewPCG(1, 1)))
	require.ErrorContains(t, err, "9 HCAs on 2 switches")
	_, err = PlaceOnSwitches(18, 5, freeSet(), switchOf, rand.New(rand.NewPCG(1, 1)))
	require.ErrorContains(t, err, "they have 17 free")
}
