package traffic

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// Every terminal sends exactly one message to every other terminal, in the
// order +1, −1, +2, −2, … (seeds/001 §4.3.3.2), for odd and even n.
func TestExchangeCoversAllPairsOnce(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8, 11, 256} {
		p, err := New(Spec{Kind: Exchange}, make([]int, n), rng(1))
		require.NoError(t, err)
		for src := 0; src < n; src++ {
			seen := map[int]bool{}
			for k := 0; ; k++ {
				d, ok := p.Next(src, nil)
				if !ok {
					break
				}
				if k == 0 {
					assert.Equal(t, (src+1)%n, d)
				}
				if k == 1 && n > 2 {
					assert.Equal(t, (src+n-1)%n, d)
				}
				assert.NotEqual(t, src, d)
				assert.False(t, seen[d], "n=%d src=%d sends to %d twice", n, src, d)
				seen[d] = true
			}
			assert.Len(t, seen, n-1, "n=%d", n)
			assert.Equal(t, n-1, p.Messages(src))
		}
	}
}

func TestUniformNeverSelfAndCoversAll(t *testing.T) {
	p, err := New(Spec{Kind: Uniform}, make([]int, 10), rng(1))
	require.NoError(t, err)
	r := rng(7)
	count := make([]int, 10)
	for i := 0; i < 20000; i++ {
		d, ok := p.Next(3, r)
		require.True(t, ok)
		require.NotEqual(t, 3, d)
		count[d]++
	}
	for d, c := range count {
		if d != 3 {
			assert.InDelta(t, 20000/9, c, 200, "destination %d", d)
		}
	}
}

func TestPatterns(t *testing.T) {
	p, err := New(Spec{Kind: Permutation}, make([]int, 16), rng(3))
	require.NoError(t, err)
	seen := map[int]bool{}
	for i := 0; i < 16; i++ {
		d, _ := p.Next(i, nil)
		assert.NotEqual(t, i, d)
		seen[d] = true
	}
	assert.Len(t, seen, 16, "a permutation")
	b, err := New(Spec{Kind: BitReversal}, make([]int, 8), rng(1))
	require.NoError(t, err)
	d, _ := b.Next(1, rng(1)) // 001 → 100
	assert.Equal(t, 4, d)
	_, err = New(Spec{Kind: BitReversal}, make([]int, 12), rng(1))
	assert.Error(t, err)
	s, err := New(Spec{Kind: Shift, Distance: -1}, make([]int, 5), rng(1))
	require.NoError(t, err)
	d, _ = s.Next(0, nil)
	assert.Equal(t, 4, d)
	_, err = New(Spec{Kind: "nope"}, make([]int, 5), rng(1))
	assert.ErrorContains(t, err, "unknown traffic kind")
}

func TestGapMeansLoad(t *testing.T) {
	r := rng(5)
	var sum int64
	const busy, n = 1000, 200000
	for i := 0; i < n; i++ {
		sum += Gap(0.25, busy, r)
	}
	assert.InDelta(t, 3000, float64(sum)/n, 30, "load 0.25: mean gap 3× the busy time")
	assert.Zero(t, Gap(1, busy, r))
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int{"2048": 2048, "2KiB": 2048, "10MTU": 20480, "1 mtu": 2048} {
		got, err := ParseBytes(in, 2048)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := ParseBytes("-3", 2048)
	assert.Error(t, err)
}
