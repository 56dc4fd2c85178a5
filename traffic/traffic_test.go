package traffic

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// open returns spec's Source over the terminals of switchOf (1-byte
// messages unless set, one wire unit each), every stream seeded by seed.
func open(t *testing.T, s Spec, switchOf []int, seed uint64) Source {
	t.Helper()
	if s.MessageBytes == 0 {
		s.MessageBytes = 1
	}
	src, err := Open(s, nil, switchOf, func(string) *rand.Rand { return rng(seed) }, func(int) int64 { return 1 })
	require.NoError(t, err)
	return src
}

// next returns the destination of terminal src's next message, or -1 when
// it has none.
func next(s Source, src int, r *rand.Rand) int {
	m, st := s.Next(src, 0, r)
	if st != Ready {
		return -1
	}
	return m.Dst
}

// Every terminal sends exactly one message to every other terminal, in the
// order +1, −1, +2, −2, … (seeds/001 §4.3.3.2), for odd and even n, and
// the run counts those messages and no jobs.
func TestExchangeCoversAllPairsOnce(t *testing.T) {
	for _, n := range []int{2, 3, 4, 5, 8, 11, 256} {
		p := open(t, Spec{Kind: Exchange}, make([]int, n), 1)
		total, inf := p.Total()
		assert.Equal(t, int64(n*(n-1)), total)
		assert.False(t, inf)
		assert.Nil(t, Jobs(p), "a pattern is no workload of jobs")
		assert.Nil(t, JobMessages(p))
		for src := 0; src < n; src++ {
			assert.True(t, p.Counted(src))
			assert.Equal(t, -1, JobOf(p, src))
			seen := map[int]bool{}
			for k := 0; ; k++ {
				d := next(p, src, nil)
				if d < 0 {
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
		}
	}
}

func TestUniformNeverSelfAndCoversAll(t *testing.T) {
	p := open(t, Spec{Kind: Uniform}, make([]int, 10), 1)
	_, inf := p.Total()
	assert.True(t, inf)
	assert.False(t, p.Counted(3))
	r := rng(7)
	count := make([]int, 10)
	for i := 0; i < 20000; i++ {
		d := next(p, 3, r)
		require.NotEqual(t, 3, d)
		require.GreaterOrEqual(t, d, 0)
		count[d]++
	}
	for d, c := range count {
		if d != 3 {
			assert.InDelta(t, 20000/9, c, 200, "destination %d", d)
		}
	}
}

func TestPatterns(t *testing.T) {
	p := open(t, Spec{Kind: Permutation}, make([]int, 16), 3)
	seen := map[int]bool{}
	for i := 0; i < 16; i++ {
		d := next(p, i, nil)
		assert.NotEqual(t, i, d)
		assert.Equal(t, d, next(p, i, nil), "the same destination every time")
		seen[d] = true
	}
	assert.Len(t, seen, 16, "a permutation")
	b := open(t, Spec{Kind: BitReversal}, make([]int, 8), 1)
	assert.Equal(t, 4, next(b, 1, rng(1))) // 001 → 100
	assert.Equal(t, 3, next(b, 6, rng(1))) // 110 → 011
	assert.NotEqual(t, 5, next(b, 5, rng(1)), "a palindrome sends elsewhere")
	_, err := Open(Spec{Kind: BitReversal, JobTraffic: JobTraffic{MessageBytes: 1}}, nil, make([]int, 12), func(string) *rand.Rand { return rng(1) }, func(int) int64 { return 1 })
	assert.ErrorContains(t, err, "power-of-two")
	s := open(t, Spec{Kind: Shift, JobTraffic: JobTraffic{Distance: -1}}, make([]int, 5), 1)
	assert.Equal(t, 4, next(s, 0, nil))
	s = open(t, Spec{Kind: Shift}, make([]int, 5), 1)
	assert.Equal(t, 1, next(s, 0, nil), "shift 1 when none is given")
	_, err = Open(Spec{Kind: Shift, JobTraffic: JobTraffic{Distance: 5, MessageBytes: 1}}, nil, make([]int, 5), func(string) *rand.Rand { return rng(1) }, func(int) int64 { return 1 })
	assert.ErrorContains(t, err, "onto itself")
	_, err = Open(Spec{Kind: "nope", JobTraffic: JobTraffic{MessageBytes: 1}}, nil, make([]int, 5), func(string) *rand.Rand { return rng(1) }, func(int) int64 { return 1 })
	assert.ErrorContains(t, err, "unknown traffic kind")
	_, err = Open(Spec{Kind: Uniform, JobTraffic: JobTraffic{MessageBytes: 1}}, nil, make([]int, 1), func(string) *rand.Rand { return rng(1) }, func(int) int64 { return 1 })
	assert.ErrorContains(t, err, "at least 2")
}

// A dependent pattern runs over every HCA as it runs over a job's ranks:
// a [[traffic]] ring allreduce on four terminals waits for its left
// neighbour's chunk.
func TestDependentPatternOverEveryHCA(t *testing.T) {
	p := open(t, Spec{Kind: Allreduce, JobTraffic: JobTraffic{MessageBytes: 8}}, make([]int, 4), 1)
	total, inf := p.Total()
	assert.Equal(t, int64(4*2*3), total)
	assert.False(t, inf)
	m, st := p.Next(0, 0, nil)
	require.Equal(t, Ready, st)
	assert.Equal(t, Msg{Dst: 1, Bytes: 2, At: 0, Tag: 0}, m)
	_, st = p.Next(0, 0, nil)
	assert.Equal(t, Waiting, st, "step 1 waits for rank 3's step 0")
	m3, _ := p.Next(3, 0, nil)
	assert.True(t, p.Delivered(3, m3, 7))
	m, st = p.Next(0, 0, nil)
	require.Equal(t, Ready, st)
	assert.Equal(t, int64(7), m.At, "sent when the chunk it waited for arrived")
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
