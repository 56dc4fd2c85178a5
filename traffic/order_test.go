package traffic

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLayout(t *testing.T) {
	// HCAs 0-2 on switch 7, 3-4 on switch 2, 5 on switch 9.
	switchOf := []int{7, 7, 7, 2, 2, 9}
	for _, c := range []struct {
		order Order
		want  []int32
	}{
		{ByHCA, []int32{0, 1, 2, 3, 4, 5}},
		{"", []int32{0, 1, 2, 3, 4, 5}},
		{RoundRobin, []int32{0, 3, 5, 1, 4, 2}},
	} {
		got, err := Layout(c.order, switchOf, rng(1))
		require.NoError(t, err)
		assert.Equal(t, c.want, got, "order %q", c.order)
	}
	got, err := Layout(RandomOrder, make([]int, 50), rng(1))
	require.NoError(t, err)
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	for i, h := range sorted {
		require.Equal(t, int32(i), h, "a random order is a permutation")
	}
	assert.NotEqual(t, sorted, got, "50 ranks drawn in order: the draw is not random")
	again, _ := Layout(RandomOrder, make([]int, 50), rng(1))
	assert.Equal(t, got, again, "same seed, same order")
	_, err = Layout("diagonal", switchOf, rng(1))
	assert.Error(t, err)
}

// Under every order the exchange still sends exactly one message from every
// HCA to every other; its first message goes to the HCA holding rank+1.
func TestExchangeUnderEveryOrder(t *testing.T) {
	switchOf := []int{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2}
	n := len(switchOf)
	for _, o := range Orders() {
		p := open(t, Spec{Kind: Exchange, Order: Order(o.Order)}, switchOf, 3)
		hca, _ := Layout(Order(o.Order), switchOf, rng(3))
		if o.Order == string(RandomOrder) {
			// Open draws the layout from the same stream after the pattern,
			// which draws nothing for the exchange.
			assert.NotEqual(t, []int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, hca)
		}
		for r, src := range hca {
			seen := map[int]bool{}
			for k := 0; ; k++ {
				d := next(p, int(src), nil)
				if d < 0 {
					break
				}
				if k == 0 {
					assert.Equal(t, int(hca[(r+1)%n]), d, "order %s: rank %d's first message goes to rank %d", o.Order, r, r+1)
				}
				assert.NotEqual(t, int(src), d)
				assert.False(t, seen[d])
				seen[d] = true
			}
			assert.Len(t, seen, n-1, "order %s, HCA %d", o.Order, src)
		}
	}
}

// The hot spot is rank 0, wherever the order puts it.
func TestHotSpotFollowsRankZero(t *testing.T) {
	switchOf := []int{0, 0, 1, 1, 2, 2}
	p := open(t, Spec{Kind: HotSpot, Order: RoundRobin, JobTraffic: JobTraffic{HotFraction: 1}}, switchOf, 1)
	for src := 1; src < len(switchOf); src++ {
		assert.Equal(t, 0, next(p, src, rng(2)), "rank 0 sits on HCA 0 under round robin")
	}
	hca, _ := Layout(RandomOrder, switchOf, rng(5))
	p = open(t, Spec{Kind: HotSpot, Order: RandomOrder, JobTraffic: JobTraffic{HotFraction: 1}}, switchOf, 5)
	for src := range switchOf {
		if int32(src) != hca[0] {
			assert.Equal(t, int(hca[0]), next(p, src, rng(2)))
		}
	}
}

func TestParseOrder(t *testing.T) {
	o, err := ParseOrder("")
	require.NoError(t, err)
	assert.Equal(t, ByHCA, o)
	for _, x := range Orders() {
		o, err := ParseOrder(x.Order)
		require.NoError(t, err)
		assert.Equal(t, Order(x.Order), o)
	}
	_, err = ParseOrder("Random")
	assert.ErrorContains(t, err, "known: hca, random, round-robin")
}
