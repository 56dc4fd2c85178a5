package traffic

import (
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric/param"
)

// ideal drives a workload through an ideal network (Ideal): every message
// arrives one wire time after its creation, a terminal sends its messages
// back to back. It returns each job's last delivery instant, the messages
// per (src, dst) pair and the number of messages delivered, running until
// every terminal is done or limit messages were sent.
func ideal(t *testing.T, jobs []Job, n int, wire WireFunc, limit int) (last []int64, pairs map[[2]int]int, sent int) {
	t.Helper()
	src, err := NewWorkload(jobs, n, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, wire)
	require.NoError(t, err)
	run := Ideal(src, n, wire, limit, nil)
	return run.Last[:len(jobs)], run.Pairs, run.Sent
}

func ranks(from, n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = from + i
	}
	return r
}

// On an ideal network every dependent pattern ends when its chain of
// wire times says: a ping-pong of k iterations after 2k messages in turn,
// a ring allreduce after 2(n−1) chunk steps, a barrier after ⌈log₂ n⌉
// rounds, a binomial broadcast after ⌈log₂ n⌉ of its root's sends, a halo iteration after its messages to all neighbours; and
// every pattern sends exactly the messages JobMessages counts.
func TestJobsOnIdealNetwork(t *testing.T) {
	const w = 100 // ps per byte
	wire := func(b int) int64 { return int64(b) * w }
	for _, tc := range []struct {
		name  string
		job   JobTraffic
		n     int
		end   int64 // last delivery
		msgs  int
		pairs int // distinct (src, dst) pairs
	}{
		{"pingpong", JobTraffic{Kind: PingPong, MessageBytes: 10, Iterations: 3}, 4, 6 * 10 * w, 6, 2},
		{"allreduce", JobTraffic{Kind: Allreduce, MessageBytes: 50, Iterations: 1}, 5, 8 * 10 * w, 5 * 8, 5},
		{"allreduce-2", JobTraffic{Kind: Allreduce, MessageBytes: 50, Iterations: 2}, 5, 16 * 10 * w, 5 * 16, 5},
		{"barrier-8", JobTraffic{Kind: Barrier, MessageBytes: 1, Iterations: 1}, 8, 3 * w, 8 * 3, 24},
		{"barrier-5", JobTraffic{Kind: Barrier, MessageBytes: 1, Iterations: 2}, 5, 6 * w, 5 * 6, 15},
		// 0→4, 0→2, 0→1 one after the other; 4→6→7, 4→5 and 2→3 meanwhile.
		{"broadcast-8", JobTraffic{Kind: Broadcast, MessageBytes: 1, Iterations: 1}, 8, 3 * w, 7, 7},
		// Rank 0 starts the second iteration at once (3w): 0→1 arrives at
		// 6w, and so does 2→3 (2 has it at 5w).
		{"broadcast-5", JobTraffic{Kind: Broadcast, MessageBytes: 1, Iterations: 2}, 5, 6 * w, 8, 4},
		// 4x3 periodic grid: 4 neighbours each, 3 iterations.
		{"halo", JobTraffic{Kind: Halo, MessageBytes: 10, Iterations: 3, Grid: []int{4, 3}}, 12, 3 * 4 * 10 * w, 12 * 4 * 3, 12 * 4},
		// 2x2: one neighbour per dimension (±1 coincide).
		{"halo-2x2", JobTraffic{Kind: Halo, MessageBytes: 10, Iterations: 1}, 4, 2 * 10 * w, 4 * 2, 8},
		{"exchange", JobTraffic{Kind: Exchange, MessageBytes: 10, Iterations: 2}, 6, 10 * 10 * w, 6 * 5 * 2, 30},
		// Pairwise: 5 steps each one wire time after the last one's
		// message arrived; every rank sends to every other once.
		{"alltoall", JobTraffic{Kind: Alltoall, MessageBytes: 10, Iterations: 1}, 6, 5 * 10 * w, 6 * 5, 30},
		{"alltoall-2", JobTraffic{Kind: Alltoall, MessageBytes: 10, Iterations: 2}, 6, 10 * 10 * w, 6 * 5 * 2, 30},
		{"shift", JobTraffic{Kind: Shift, MessageBytes: 10, Iterations: 4, Distance: -1}, 6, 4 * 10 * w, 24, 6},
		{"permutation", JobTraffic{Kind: Permutation, MessageBytes: 10, Iterations: 1}, 7, 10 * w, 7, 7},
		// 2x2x2 (the most cubic grid of 8): three neighbours each.
		{"halo3d", JobTraffic{Kind: Halo3D, MessageBytes: 10, Iterations: 1}, 8, 3 * 10 * w, 8 * 3, 24},
		// Each iteration computes 500 ps first: 3 × (500 + 4 messages).
		{"halo-compute", JobTraffic{Kind: Halo, MessageBytes: 10, Iterations: 3, Grid: []int{4, 3}, Compute: 500}, 12, 3 * (500 + 4*10*w), 12 * 4 * 3, 12 * 4},
		// The wave over 2x2x2: 0 sends to 1, 2, 4 in turn (arriving at 1,
		// 2, 3 message times); 1, 2 and 4 forward at once, 3, 5 and 6 on
		// their second upstream message (3, 4, 5); 6's to 7 arrives at 6.
		// Every +1 edge of the grid carries one message: 3 × 4.
		{"sweep3d", JobTraffic{Kind: Sweep3D, MessageBytes: 10, Iterations: 1}, 8, 6 * 10 * w, 12, 12},
		// With 500 ps of compute before each rank's sends: three ranks
		// compute on the critical path 0 → 4 → 6 → 7.
		{"sweep3d-compute", JobTraffic{Kind: Sweep3D, MessageBytes: 10, Iterations: 1, Compute: 500}, 8, 3*500 + 6*10*w, 12, 12},
		// A line of 3 × 1 × 1 given as a grid, two sweeps: 0 → 1 → 2,
		// and rank 0 starts its second sweep at once.
		{"sweep3d-line", JobTraffic{Kind: Sweep3D, MessageBytes: 10, Iterations: 2, Grid: []int{3, 1, 1}}, 3, 3 * 10 * w, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.job.Load = 1
			// Two jobs: the measured one on terminals 3.., an idle
			// terminal before it, and a finite exchange after it.
			other := Job{ID: "other", Ranks: ranks(3+tc.n, 3), Traffic: JobTraffic{Kind: Exchange, MessageBytes: 1, Load: 1, Iterations: 1}}
			jobs := []Job{{ID: "j", Ranks: ranks(3, tc.n), Traffic: tc.job}, other}
			last, pairs, sent := ideal(t, jobs, 3+tc.n+3+1, wire, 1e6)
			assert.Equal(t, tc.end, last[0], "last delivery")
			src, err := NewWorkload(jobs, 3+tc.n+3+1, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, wire)
			require.NoError(t, err)
			assert.Equal(t, []int64{int64(tc.msgs), 6}, JobMessages(src))
			assert.Equal(t, tc.msgs+6, sent)
			np := 0
			for p := range pairs {
				assert.NotEqual(t, p[0], p[1], "a rank sends to itself")
				if p[0] >= 3 && p[0] < 3+tc.n {
					assert.True(t, p[1] >= 3 && p[1] < 3+tc.n, "message leaves the job: %v", p)
					np++
				}
			}
			assert.Equal(t, tc.pairs, np, "distinct pairs")
		})
	}
}

// A waiting rank draws nothing, and bursty noise pauses: over a long run
// its messages take about on/(on+off) of the time.
func TestNoiseBursts(t *testing.T) {
	wire := func(b int) int64 { return int64(b) }
	on, off := int64(5000), int64(15000)
	job := Job{ID: "n", Ranks: ranks(0, 4), Traffic: JobTraffic{Kind: Noise, MessageBytes: 100, Load: 1, BurstOn: on, BurstOff: off}}
	src, err := NewWorkload([]Job{job}, 4, func(string) *rand.Rand { return nil }, wire)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	var at int64
	msgs := 0
	for at < 200_000_000 {
		m, st := src.Next(0, 0, rng)
		require.Equal(t, Ready, st)
		require.GreaterOrEqual(t, m.At, at)
		at = m.At
		msgs++
	}
	busy := float64(msgs*100) / float64(at)
	assert.InDelta(t, float64(on)/float64(on+off), busy, 0.02, "share of time on")
	total, inf := src.Total()
	assert.Zero(t, total)
	assert.True(t, inf)
}

func TestJobCheck(t *testing.T) {
	base := func(k Kind, n int) Job {
		return Job{ID: "x", Ranks: ranks(0, n), Traffic: JobTraffic{Kind: k, MessageBytes: 8, Load: 1, Iterations: 1}}
	}
	for _, tc := range []struct {
		job Job
		msg string
	}{
		{base(Exchange, 1), "at least 2"},
		{func() Job { j := base(Shift, 4); j.Traffic.Distance = 8; return j }(), "onto itself"},
		{func() Job { j := base(Halo, 6); j.Traffic.Grid = []int{4, 2}; return j }(), "holds 8 ranks"},
		{func() Job { j := base(PingPong, 2); j.Traffic.Load = 0.5; return j }(), "does not apply"},
		{func() Job { j := base(Uniform, 2); j.Traffic.BurstOn = 5; return j }(), "noise jobs"},
		{func() Job { j := base(Noise, 2); j.Traffic.BurstOff = 5; return j }(), "needs burst_on"},
		{func() Job { j := base("spray", 2); return j }(), "unknown traffic kind"},
		{base(BitReversal, 6), "power-of-two"},
		{base(HotSpot, 4), "hot fraction 0 outside"},
		{func() Job { j := base(Uniform, 4); j.Traffic.HotFraction = 0.5; return j }(), "hotspot jobs"},
		{func() Job { j := base(Exchange, 4); j.Traffic.Compute = 5; return j }(), "dependent patterns"},
		{func() Job { j := base(Noise, 4); j.Traffic.ComputeNoise = 5; return j }(), "dependent patterns"},
		{func() Job { j := base(Sweep3D, 8); j.Traffic.Grid = []int{2, 2, 3}; return j }(), "holds 12 ranks"},
		{func() Job { j := base(Allreduce, 4); j.Traffic.Grid = []int{2, 2}; return j }(), "halo, halo3d, sweep3d, cg, milc, fft, tornado and transpose"},
		{base(Transpose, 8), "square 2D grid"},
		{func() Job { j := base(Transpose, 16); j.Traffic.Grid = []int{2, 8}; return j }(), "square 2D grid"},
		{func() Job { j := base(Tornado, 16); j.Traffic.Grid = []int{4, 2}; return j }(), "holds 8 ranks"},
	} {
		err := tc.job.Check()
		require.Error(t, err, tc.msg)
		assert.Contains(t, err.Error(), tc.msg)
	}
	for _, j := range []Job{base(BitReversal, 8), func() Job { j := base(HotSpot, 3); j.Traffic.HotFraction = 1; return j }()} {
		assert.NoError(t, j.Check())
	}
	_, err := NewWorkload([]Job{base(Exchange, 2), base(Exchange, 2)}, 4, nil, nil)
	assert.ErrorContains(t, err, "given twice")
	b := base(Exchange, 2)
	b.ID = "y"
	_, err = NewWorkload([]Job{base(Exchange, 2), b}, 4, nil, nil)
	assert.ErrorContains(t, err, "also in job")
}

// The most cubic grid of a job's size, as halo3d and sweep3d lay their
// ranks when no grid is given (halo: the most square 2D grid).
func TestDefaultGrids(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		n    int
		want []int
	}{
		{Halo3D, 64, []int{4, 4, 4}}, {Sweep3D, 8, []int{2, 2, 2}}, {Halo3D, 12, []int{3, 2, 2}},
		{Sweep3D, 1024, []int{16, 8, 8}}, {Halo3D, 7, []int{7, 1, 1}}, {Halo, 12, []int{4, 3}},
	} {
		j := Job{Ranks: ranks(0, tc.n), Traffic: JobTraffic{Kind: tc.kind}}
		assert.Equal(t, tc.want, j.grid(), "%s of %d", tc.kind, tc.n)
	}
}

// Compute noise is a seeded exponential per iteration and rank: a
// ping-pong of 200 round trips, each rank computing 0 + Exp(1 ns) before
// each of its messages, takes 200 × (2 messages + 2 ns) on average; and
// the same seeds give the same run.
func TestComputeNoise(t *testing.T) {
	wire := func(b int) int64 { return int64(b) * 100 }
	job := Job{ID: "pp", Ranks: ranks(0, 2), Traffic: JobTraffic{Kind: PingPong, MessageBytes: 10, Load: 1, Iterations: 200, ComputeNoise: 1000}}
	last, _, sent := ideal(t, []Job{job}, 2, wire, 1e6)
	assert.Equal(t, 400, sent)
	assert.InEpsilon(t, 200*(2*1000+2*1000), float64(last[0]), 0.1)
	again, _, _ := ideal(t, []Job{job}, 2, wire, 1e6)
	assert.Equal(t, last, again)
	job.Traffic.ComputeNoise = 0
	quiet, _, _ := ideal(t, []Job{job}, 2, wire, 1e6)
	assert.Equal(t, int64(200*2*1000), quiet[0])
}

// The broadcast tree is MPICH's binomial tree: every rank but the root
// receives exactly once per iteration, from itself minus its lowest set
// bit, and a rank sends to its children largest subtree first.
func TestBroadcastTree(t *testing.T) {
	for n := 1; n <= 40; n++ {
		from := make([]int, n)
		for i := range from {
			from[i] = -1
		}
		for r := range n {
			first, prev := broadcastFirst(r, n), n
			for k := range bits.Len(uint(first)) {
				c := r + first>>k
				require.Less(t, c, n)
				require.Less(t, c, prev, "n=%d rank %d: children largest first", n, r)
				require.Equal(t, -1, from[c], "n=%d: rank %d receives twice", n, c)
				from[c], prev = r, c
			}
		}
		for c := 1; c < n; c++ {
			assert.Equal(t, c-(c&-c), from[c], "n=%d: parent of %d", n, c)
		}
	}
}

// The collectives' other algorithms on an ideal network end when their
// rounds say and send the messages JobMessages counts; every algorithm
// completes for every job size (no rank waits for a message never sent).
func TestCollectiveAlgorithms(t *testing.T) {
	const w = 10
	wire := func(b int) int64 { return int64(b) * w }
	checkRounds(t, wire, []roundsCase{
		// log₂ 8 rounds of the whole vector.
		{"recursive-doubling-8", JobTraffic{Kind: Allreduce, Algorithm: AlgRecursiveDoubling, MessageBytes: 80}, 8, 3 * 80 * w, 8 * 3},
		// 5 ranks: rank 0 hands its vector to 1 (1 time), 1..4 double on
		// 4 ranks (rank 1 twice, a time behind), 1 hands the result back.
		{"recursive-doubling-5", JobTraffic{Kind: Allreduce, Algorithm: AlgRecursiveDoubling, MessageBytes: 80}, 5, 4 * 80 * w, 1 + 4*2 + 1},
		// Halving 40, 20, 10 bytes, doubling 10, 20, 40.
		{"rabenseifner-8", JobTraffic{Kind: Allreduce, Algorithm: AlgRabenseifner, MessageBytes: 80}, 8, 140 * w, 8 * 6},
		// Three rounds of four blocks each.
		{"bruck-8", JobTraffic{Kind: Alltoall, Algorithm: AlgBruck, MessageBytes: 10}, 8, 3 * 40 * w, 8 * 3},
		// Seven steps one after the other (XOR pairs on 8 ranks, shifts on 6).
		{"pairwise-xor-8", JobTraffic{Kind: Alltoall, Algorithm: AlgPairwiseXOR, MessageBytes: 10}, 8, 7 * 10 * w, 8 * 7},
		{"pairwise-xor-6", JobTraffic{Kind: Alltoall, Algorithm: AlgPairwiseXOR, MessageBytes: 10}, 6, 5 * 10 * w, 6 * 5},
		// Three messages back to back from every rank.
		{"isend-4", JobTraffic{Kind: Alltoall, Algorithm: AlgIsend, MessageBytes: 10}, 4, 30 * w, 4 * 3},
		// MPICH's batches of 32: on a symmetric ideal network a batch's
		// last receive comes with its last send, so 39 and 69 messages
		// back to back.
		{"scattered-40", JobTraffic{Kind: Alltoall, Algorithm: AlgScattered, MessageBytes: 10}, 40, 39 * 10 * w, 40 * 39},
		{"scattered-70", JobTraffic{Kind: Alltoall, Algorithm: AlgScattered, MessageBytes: 10}, 70, 69 * 10 * w, 70 * 69},
		// Scatter: 0→2 (20 B), 0→1 and 2→3 (10 B) by 30; three ring
		// rounds of 10 B.
		{"scatter-ring-4", JobTraffic{Kind: Broadcast, Algorithm: AlgScatterRing, MessageBytes: 40}, 4, 60 * w, 3 + 4*3},
		// Double binary tree on 2 ranks: each sends its half up (40 B) to
		// the other, the root of the other tree, which sends the result back.
		{"tree-2", JobTraffic{Kind: Allreduce, Algorithm: AlgTree, MessageBytes: 80}, 2, 80 * w, 4},
		// On 4 ranks (by hand): the halves go up and down two trees of depth
		// 2 whose inner ranks (1 and 0; 2 and 3) differ, five half-vector
		// times on the busiest sender.
		{"tree-4", JobTraffic{Kind: Allreduce, Algorithm: AlgTree, MessageBytes: 80}, 4, 200 * w, 4 * 3},
		// Scatter by 30, then rounds of 10 and 20 B.
		{"scatter-rd-4", JobTraffic{Kind: Broadcast, Algorithm: AlgScatterRD, MessageBytes: 40}, 4, 60 * w, 3 + 4*2},
	})
	for _, kind := range []Kind{Allreduce, Broadcast, Alltoall, Barrier} {
		for _, alg := range append([]string{AlgMPICH}, algorithms[kind]...) {
			for n := 2; n <= 19; n++ {
				for _, b := range []int{8, 300, 5000, 40000, 600000} {
					job := Job{ID: "j", Ranks: ranks(0, n), Traffic: JobTraffic{Kind: kind, Algorithm: alg, MessageBytes: b, Load: 1, Iterations: 3}}
					if alg == AlgScatterRD && n&(n-1) != 0 {
						continue // recursive doubling needs a power of two
					}
					src, err := NewWorkload([]Job{job}, n, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, wire)
					require.NoError(t, err)
					_, _, sent := ideal(t, []Job{job}, n, wire, 1e7)
					require.Equal(t, int(JobMessages(src)[0]), sent, "%s %s n=%d %d B: every message sent, every rank done", kind, alg, n, b)
				}
			}
		}
	}
}

// MPICH's all-to-all of 257 B to 32 KiB (MPIR_Alltoall_intra_scattered)
// posts 32 sends and receives at a time, rank r sending to r−ii−i and
// receiving from r+ii+i, and waits for a batch before the next: a round
// per batch, whose first send needs all of the last batch's receives.
func TestScatteredAlltoall(t *testing.T) {
	for _, n := range []int{2, 32, 33, 64, 70} {
		job := JobTraffic{Kind: Alltoall, Algorithm: AlgMPICH, MessageBytes: 1 << 10}
		require.Equal(t, AlgScattered, job.algorithm(n))
		s := newSchedule(AlgScattered, n, 1<<10)
		batches := (n + 31) / 32
		require.EqualValues(t, batches, s.rounds, "n=%d", n)
		recv := make([]map[int16]int32, n)
		for r := range recv {
			recv[r] = map[int16]int32{}
		}
		for r := range n {
			var want []int32
			for k := range batches {
				for i := 0; i < 32 && 32*k+i < n; i++ {
					if d := ((r-32*k-i)%n + n) % n; d != r {
						want = append(want, int32(d))
					}
				}
			}
			var got []int32
			for _, st := range s.ranks[r] {
				got = append(got, st.dst)
				recv[st.dst][st.round]++
			}
			require.Equal(t, want, got, "n=%d rank %d: MPICH's order", n, r)
		}
		for r := range n {
			first := map[int16]schedStep{}
			for _, st := range s.ranks[r] {
				if _, ok := first[st.round]; !ok {
					first[st.round] = st
				} else {
					assert.EqualValues(t, -1, st.need, "n=%d rank %d: only a batch's first send waits", n, r)
				}
			}
			for k := range int16(batches) {
				st := first[k]
				need := k - 1
				if k == 0 {
					need = int16(batches - 1)
				}
				assert.Equal(t, need, st.need, "n=%d rank %d batch %d", n, r, k)
				assert.Equal(t, k == 0, st.prev)
				assert.Equal(t, recv[r][need], st.needCount, "n=%d rank %d batch %d: all of the last batch's receives", n, r, k)
			}
		}
	}
}

// MPICH's pairwise all-to-all (its choice above 32 KiB) pairs rank r with
// r XOR k in step k on a power of two, and shifts by k otherwise, as
// flitsim's own pairwise always does; the trace replay's schedule is the
// pattern's. Every step is a permutation: each rank receives once.
func TestPairwiseXOR(t *testing.T) {
	for _, n := range []int{2, 8, 16, 12} {
		for _, alg := range []string{AlgMPICH, AlgPairwiseXOR, AlgPairwise} {
			job := Job{ID: "a", Ranks: ranks(0, n), Traffic: JobTraffic{Kind: Alltoall, Algorithm: alg, MessageBytes: 64 << 10, Load: 1, Iterations: 2}}
			w, err := NewWorkload([]Job{job}, n, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, func(b int) int64 { return int64(b) })
			require.NoError(t, err)
			parts := globalParts(CallAlltoall, job.Traffic.algorithm(n), n, 64<<10)
			for k := 1; k < n; k++ {
				seen := make([]bool, n)
				for r := range n {
					want := (r + k) % n
					if alg != AlgPairwise && n&(n-1) == 0 {
						want = r ^ k
					}
					for it := range int64(2) {
						assert.Equal(t, want, w.(*workload).program(0, r, it*int64(n-1)+int64(k-1), nil).dst, "%s n=%d rank %d step %d iteration %d", alg, n, r, k, it)
					}
					assert.Equal(t, int32(want), parts[r].steps[k-1].dst, "%s n=%d rank %d step %d: the replay's", alg, n, r, k)
					require.False(t, seen[want], "%s n=%d step %d: rank %d receives twice", alg, n, k, want)
					seen[want] = true
				}
			}
		}
	}
}

// The skeletons run their phases in order on an ideal network and every
// rank completes, for every job size.
func TestSkeletons(t *testing.T) {
	const w = 10
	wire := func(b int) int64 { return int64(b) * w }
	checkRounds(t, wire, []roundsCase{
		// 2x2x2 halo of 100 B (three neighbours, 300 B on each link),
		// then two allreduces of three 8-byte rounds.
		{"cg-8", JobTraffic{Kind: CG, MessageBytes: 100}, 8, (300 + 2*3*8) * w, 8*3 + 2*8*3},
		// 2x2x2x2: four neighbours, then one allreduce of four rounds.
		{"milc-16", JobTraffic{Kind: MILC, MessageBytes: 100}, 16, (400 + 4*8) * w, 16*4 + 16*4},
		// 2x2: one message in each row, then one in each column.
		{"fft-4", JobTraffic{Kind: FFT, MessageBytes: 100}, 4, 200 * w, 4 + 4},
	})
	bad := Job{ID: "m", Ranks: ranks(0, 16), Traffic: JobTraffic{Kind: MILC, MessageBytes: 8, Load: 1, Iterations: 1, Grid: []int{2, 2, 4}}}
	require.ErrorContains(t, bad.Check(), "4D grid")
	for _, kind := range []Kind{CG, MILC, FFT, BFS} {
		for n := 2; n <= 33; n++ {
			job := Job{ID: "j", Ranks: ranks(0, n), Traffic: JobTraffic{Kind: kind, MessageBytes: 64, Load: 1, Iterations: 3}}
			src, err := NewWorkload([]Job{job}, n, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, wire)
			require.NoError(t, err, "%s n=%d", kind, n)
			_, _, sent := ideal(t, []Job{job}, n, wire, 1e7)
			require.Equal(t, int(JobMessages(src)[0]), sent, "%s n=%d: every message sent, every rank done", kind, n)
		}
	}
}

// roundsCase is one job of n ranks, one iteration, alone on an ideal
// network: when its last message arrives and how many it sends.
type roundsCase struct {
	name string
	job  JobTraffic
	n    int
	end  int64
	msgs int
}

func checkRounds(t *testing.T, wire WireFunc, cases []roundsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.job.Load, tc.job.Iterations = 1, 1
			last, _, sent := ideal(t, []Job{{ID: "j", Ranks: ranks(0, tc.n), Traffic: tc.job}}, tc.n, wire, 1e6)
			assert.Equal(t, tc.end, last[0], "last delivery")
			assert.Equal(t, tc.msgs, sent)
		})
	}
}

// Tornado and transpose send where Dally and Towles' definitions say, on
// the grid's coordinates (coordinate 0 fastest).
func TestShapedPatterns(t *testing.T) {
	// Transpose on 4 x 4: (x, y) -> (y, x).
	assert.Equal(t, 4, shapedDst(Transpose, []int{4, 4}, 1))   // (1,0) -> (0,1)
	assert.Equal(t, 9, shapedDst(Transpose, []int{4, 4}, 6))   // (2,1) -> (1,2)
	assert.Equal(t, 15, shapedDst(Transpose, []int{4, 4}, 15)) // the diagonal stays
	// Tornado: x + ceil(k/2) - 1 in every dimension.
	assert.Equal(t, 3, shapedDst(Tornado, []int{8}, 0))
	assert.Equal(t, 2, shapedDst(Tornado, []int{8}, 7))
	assert.Equal(t, 5, shapedDst(Tornado, []int{4, 4}, 0)) // (0,0) -> (1,1)
	assert.Equal(t, 4, shapedDst(Tornado, []int{4, 4}, 3)) // (3,0) -> (0,1)
	assert.Equal(t, 2, shapedDst(Tornado, []int{5}, 0))    // ceil(5/2) - 1 = 2
	assert.Equal(t, 1, shapedDst(Tornado, []int{2, 2}, 1)) // k = 2: itself

	// Through the source: a transpose job's ranks send to their mirrors,
	// the diagonal ones to another rank.
	job := Job{ID: "t", Ranks: ranks(0, 16), Traffic: JobTraffic{Kind: Transpose, MessageBytes: 8, Load: 1}}
	require.NoError(t, job.Check())
	src, err := NewWorkload([]Job{job}, 16, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, func(int) int64 { return 1 })
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	for r := range 16 {
		m, st := src.Next(r, 0, rng)
		require.Equal(t, Ready, st)
		if x, y := r%4, r/4; x != y {
			assert.Equal(t, x*4+y, m.Dst, "rank %d", r)
		} else {
			assert.NotEqual(t, r, m.Dst, "rank %d sends uniformly, not to itself", r)
		}
	}
}

// An infinite job with an end: its ranks create messages, back to back
// at full load, until the first one that would be created at or after the
// end, and then nothing (Done) for good; a finite job or an end before the
// start is refused at the key.
func TestJobEnd(t *testing.T) {
	wire := func(b int) int64 { return int64(b) * 100 }
	job := Job{ID: "s", Ranks: []int{0, 1}, Traffic: JobTraffic{Kind: Shift, MessageBytes: 1000, Load: 1, Distance: 1, Start: 5000, End: 1_000_000}}
	require.NoError(t, job.Check())
	src, err := NewWorkload([]Job{job}, 2, func(string) *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }, wire)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(3, 4))
	var n int
	for {
		m, st := src.Next(0, 0, rng)
		if st == Done {
			break
		}
		require.Equal(t, Ready, st)
		require.Equal(t, int64(5000)+int64(n)*100_000, m.At, "message %d", n)
		require.Less(t, m.At, job.Traffic.End)
		n++
	}
	assert.Equal(t, 10, n, "5 ns + 10 · 100 ns reaches 1 µs")
	_, st := src.Next(0, 0, rng)
	assert.Equal(t, Done, st)
	for _, bad := range []JobTraffic{
		{Kind: Exchange, MessageBytes: 1000, Load: 1, Iterations: 1, End: 1000},
		{Kind: Uniform, MessageBytes: 1000, Load: 1, Start: 2000, End: 1000},
	} {
		err := Job{ID: "x", Ranks: []int{0, 1}, Traffic: bad}.Check()
		var pe *param.Error
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "end", pe.Key)
	}
}
