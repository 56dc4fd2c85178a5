// Package traffic generates the messages HCAs send (seeds/001 §4.3.3):
// uniform random injection, the all-to-all exchange with varying shift
// distances, the usual synthetic patterns (shift, random permutation, bit
// reversal, hot spot), noise and the dependent patterns of MPI programs
// (halo, sweep, ping-pong, collectives), with compute between iterations. There is one traffic model: a job runs a
// pattern over its ranks, and a campaign's [[traffic]] pattern is one job
// of every HCA (Open). It knows nothing of the simulator: a Source answers
// "what does terminal i send next, and when?", and every random draw
// comes from the stream the caller passes in.
package traffic

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"sort"
	"strings"

	"flitsim/fabric/param"
)

// Kind names a traffic pattern over ranks 0..n-1. A [[traffic]] table runs
// one over every HCA (rank i on the HCA its Order lays it on), a job over
// its own ranks; both are the same code with the same draws (Open).
// Open-loop patterns create their messages at the load given whatever the
// network does; dependent ones (halo, ping-pong, ring allreduce, barrier,
// broadcast, pairwise all-to-all) create a message only once the messages
// it depends on have arrived, as an MPI program does.
type Kind string

// The patterns.
const (
	Uniform     Kind = "uniform"     // every message to a uniformly drawn other rank
	Exchange    Kind = "exchange"    // all-to-all per iteration, shifts +1, −1, +2, −2, …
	Shift       Kind = "shift"       // rank r sends to r+distance
	Permutation Kind = "permutation" // rank r sends to π(r), a seeded derangement
	BitReversal Kind = "bitrev"      // rank r sends to bit-reverse(r); n a power of two
	HotSpot     Kind = "hotspot"     // a fraction of the messages to rank 0, the rest uniform
	Tornado     Kind = "tornado"     // rank x sends to x + ⌈k/2⌉ − 1 in every dimension of its grid (Dally and Towles)
	Transpose   Kind = "transpose"   // rank (x, y) of a square grid sends to (y, x)
	Noise       Kind = "noise"       // uniform, bursty when burst_on is set: seeded on/off periods
	Halo        Kind = "halo"        // nearest neighbours on a periodic rank grid; an iteration waits for the last one's halos
	Halo3D      Kind = "halo3d"      // halo on a 3D grid (Ember's halo3d): six face neighbours
	Sweep3D     Kind = "sweep3d"     // wavefront from a corner of a 3D grid (Ember's sweep3d): a rank sends downstream once upstream has
	PingPong    Kind = "pingpong"    // ranks 0 and 1: a message and its answer per iteration
	Allreduce   Kind = "allreduce"   // ring allreduce: 2(n−1) steps of msg/n bytes to the right neighbour, each after the left's
	Barrier     Kind = "barrier"     // dissemination barrier: ⌈log₂ n⌉ rounds, r → r+2^k after round k−1 arrived
	Broadcast   Kind = "broadcast"   // binomial-tree broadcast from rank 0 (MPICH's): a rank forwards once it has received
	Alltoall    Kind = "alltoall"    // pairwise all-to-all (MPI's for large messages): step k to r+k+1 once step k−1's message arrived
	// The application skeletons (skeletons.go): an iteration is a
	// sequence of phases, each after the last.
	CG   Kind = "cg"   // CG/HPCG: 3D halo, then two 8-byte allreduces
	MILC Kind = "milc" // MILC: 4D halo, then an 8-byte allreduce
	FFT  Kind = "fft"  // 2D FFT: all-to-all within each row of a 2D grid, then within each column
	BFS  Kind = "bfs"  // Graph500 BFS level: an irregular all-to-all-v, then an 8-byte allreduce
	// Trace replays an MPI program's trace (replay.go).
	Trace Kind = "trace"
)

// Kinds lists the patterns with their help texts, sorted.
func Kinds() []struct{ Kind, Help string } {
	k := []struct{ Kind, Help string }{
		{string(Uniform), "uniform random: every message to a uniformly drawn other rank; open loop, infinite"},
		{string(Exchange), "all-to-all exchange with varying shift distances (seeds/001 §4.3.3.2): per iteration rank r sends one message to every other, r+1, r−1, r+2, r−2, …; open loop, one iteration"},
		{string(Shift), "shift: rank r sends to rank r+distance; open loop, infinite"},
		{string(Permutation), "random permutation: rank r sends to π(r), a seeded derangement; open loop, infinite"},
		{string(BitReversal), "bit reversal: rank r sends to the bit-reversed r (palindromes uniformly); needs a power-of-two rank count; open loop, infinite"},
		{string(Tornado), "tornado (Dally and Towles; seeds/003 Fig. 6): on the job's grid (grid = [k₀, k₁, …], by default one ring of all ranks) rank x sends to x + ⌈kᵢ/2⌉ − 1 mod kᵢ in every dimension; a rank that would send to itself (kᵢ ≤ 2 everywhere) sends uniformly; open loop, infinite"},
		{string(Transpose), "matrix transpose (seeds/003 Fig. 6): on a square 2D grid (grid = [k, k], by default √n × √n) rank (x, y) sends to (y, x); the diagonal sends uniformly; open loop, infinite"},
		{string(HotSpot), "hot spot: a fraction hot_fraction of the messages go to rank 0, the rest uniform; open loop, infinite"},
		{string(Noise), "network noise: uniform random traffic at the load given, in seeded on/off bursts when burst_on is set; open loop, infinite"},
		{string(Halo), "halo exchange on a periodic rank grid (grid = [x, y, …]): each iteration sends to every neighbour after all neighbours' previous halos arrived"},
		{string(Halo3D), "3D halo exchange (Ember's halo3d): halo on a periodic 3D grid, by default the most cubic one of the job's size; six face neighbours"},
		{string(Sweep3D), "wavefront sweep (Ember's sweep3d) over a 3D grid (grid = [x, y, z], by default the most cubic): rank (x, y, z) sends to (x+1, y, z), (x, y+1, z) and (x, y, z+1) once this iteration's messages from (x−1, y, z), (x, y−1, z) and (x, y, z−1) have arrived; rank (0, 0, 0) starts each iteration"},
		{string(PingPong), "ping-pong between ranks 0 and 1: rank 1 answers each message, rank 0 sends the next on the answer"},
		{string(Allreduce), "ring allreduce: 2(n−1) steps of msg_bytes/n to the right neighbour, each after the left neighbour's previous step arrived"},
		{string(Barrier), "dissemination barrier: ⌈log₂ n⌉ rounds; in round k rank r sends to r+2^k once round k−1's message arrived"},
		{string(Broadcast), "binomial-tree broadcast from rank 0 as MPICH's: rank r receives from r minus its lowest set bit, then sends to r+2^k for every 2^k below that bit, largest first; rank 0 starts each iteration without waiting"},
		{string(CG), "CG/HPCG skeleton: per iteration a halo on the most cubic 3D grid (msg_bytes per face), then two 8-byte allreduces by recursive doubling (the dot products), each phase after the last"},
		{string(MILC), "MILC skeleton: per iteration a halo on the most hypercubic 4D grid (eight neighbours, msg_bytes each), then an 8-byte allreduce by recursive doubling"},
		{string(FFT), "2D FFT skeleton: per iteration the transposes, an all-to-all (every message posted at once, msg_bytes per pair) within each row of the squarest 2D grid, then within each column"},
		{string(BFS), "Graph500 BFS skeleton: per iteration (a level) an all-to-all-v, each pair's size a fixed seeded multiple 1/4-7/4 of msg_bytes, every message posted at once, then an 8-byte allreduce (is the frontier empty?)"},
		{string(Trace), "replay of an MPI program's trace (trace = a DUMPI trace's directory or .meta file): each rank's calls in order with the traced computation between them (compute_scale), point-to-point messages matched as MPI matches them, collectives by the algorithm key (default mpich: MPICH's choice by size; or collective=algorithm,...); iterations repeat the whole program"},
		{string(Alltoall), "pairwise all-to-all as MPI libraries run MPI_Alltoall on large messages (osu_alltoall, seeds/003 Fig. 6): n−1 steps; in step k rank r sends to r+k+1 and starts step k+1 once step k's message from r−k−1 has arrived (algorithm pairwise-xor, MPICH's: to and from r XOR (k+1) on a power of two)"},
	}
	sort.Slice(k, func(i, j int) bool { return k[i].Kind < k[j].Kind })
	return k
}

// Dependent reports whether the pattern's messages wait for deliveries.
func (k Kind) Dependent() bool {
	return k.Gridded() || k == PingPong || k == Allreduce || k == Barrier || k == Broadcast || k == Alltoall || k == BFS || k == Trace
}

// Shaped reports whether the pattern reads a rank grid (grid): the
// gridded dependent patterns and the open-loop tornado and transpose.
func (k Kind) Shaped() bool { return k.Gridded() || k == Tornado || k == Transpose }

// Gridded reports whether the pattern is a dependent one laid on a grid.
func (k Kind) Gridded() bool {
	return k == Halo || k == Halo3D || k == Sweep3D || k == CG || k == MILC || k == FFT
}

// Skeleton reports whether the pattern is an application skeleton.
func (k Kind) Skeleton() bool { return k == CG || k == MILC || k == FFT || k == BFS }

// DefaultIterations is a pattern's iteration count when none is given:
// none (infinite) for the streams, one for the others.
func (k Kind) DefaultIterations() int {
	switch k {
	case Uniform, Shift, Permutation, BitReversal, HotSpot, Noise, Tornado, Transpose:
		return 0
	}
	return 1
}

// Spec is a [[traffic]] table's pattern: one job of every HCA (Job). Its
// keys are a job's traffic keys (JobTraffic, embedded: message size, load,
// start, iterations, bursts, ... declared once, there), but that the
// pattern is kind (flag --traffic), and the rank order. The campaign's
// [[traffic]] tables, flitsim sim's flags and flitsim params read these
// declarations; a zero value means the declared default, and zero
// iterations the pattern's default (Job).
type Spec struct {
	// Kind is the pattern; it shadows JobTraffic's (key pattern).
	Kind Kind `json:"kind" param:"kind" flag:"traffic" help:"the pattern"`
	JobTraffic
	// Order lays the pattern's ranks on the HCAs ("" is ByHCA).
	Order Order `json:"order,omitempty" param:"order" unset:"hca" help:"which HCA is rank i"`
	// Program is a trace pattern's program, loaded from JobTraffic.Trace
	// by the caller (configs).
	Program Program `json:"-"`
}

// ParamValues lists the values of Spec's text keys (param.Valuer): the
// patterns and the rank orders.
func (*Spec) ParamValues(key string) []string {
	var v []string
	switch key {
	case "kind":
		v = kindNames()
	case "order":
		for _, o := range Orders() {
			v = append(v, o.Order)
		}
	}
	return v
}

func kindNames() []string {
	var v []string
	for _, k := range Kinds() {
		v = append(v, k.Kind)
	}
	return v
}

// Finite reports whether every terminal stops after a known number of messages.
func (s Spec) Finite() bool { return s.Iterations > 0 || s.Kind.DefaultIterations() > 0 }

// Job returns the pattern as one job over n ranks, rank r on terminal r
// (Open lays the ranks out by s.Order): the pattern's default iterations
// when none are given, a load of 1, a shift of 1 and a hot spot's share of
// 0.1 when they are zero; a distance and a hot fraction only where the
// pattern reads them.
func (s Spec) Job(n int) Job {
	t := s.JobTraffic
	t.Kind = s.Kind
	if t.Iterations == 0 {
		t.Iterations = s.Kind.DefaultIterations()
	}
	if t.Load == 0 {
		t.Load = 1
	}
	t.Distance, t.HotFraction = 0, 0
	switch s.Kind {
	case Shift:
		t.Distance = cmp.Or(s.Distance, 1)
	case HotSpot:
		t.HotFraction = cmp.Or(s.HotFraction, 0.1)
	}
	ranks := make([]int, n)
	for i := range ranks {
		ranks[i] = i
	}
	return Job{Ranks: ranks, Traffic: t, Program: s.Program}
}

// Check reports what keeps the pattern from running on n terminals.
func (s Spec) Check(n int) error {
	if _, err := ParseOrder(string(s.Order)); err != nil {
		return &param.Error{Key: "order", Msg: err.Error()}
	}
	if s.Kind == Trace && s.Program != nil && s.Program.Size() != n {
		return &param.Error{Key: "trace", Msg: fmt.Sprintf("the trace %s has %d ranks and a pattern runs on every one of the %d HCAs: replay it as a job of its size (a jobs file's [[job]] with size = %d and pattern = \"trace\")", s.Program.Name(), s.Program.Size(), n, s.Program.Size())}
	}
	return s.Job(n).Check()
}

// uniformDraw returns a uniformly drawn rank of n other than r.
func uniformDraw(r, n int, rng *rand.Rand) int {
	d := rng.IntN(n - 1)
	if d >= r {
		d++
	}
	return d
}

// ExchangeOffset returns the shift of the k-th message (k from 0): +1, −1, +2, −2, …,
// with +n/2 only once when n is even.
func ExchangeOffset(k, n int) int {
	s := k/2 + 1
	if k%2 == 1 {
		s = -s
	}
	return s
}

// newPermutation draws a random derangement of n ranks (none sends to
// itself) by shuffling and then fixing fixed points with their neighbour.
func newPermutation(n int, rng *rand.Rand) []int32 {
	p := make([]int32, n)
	for i := range p {
		p[i] = int32(i)
	}
	rng.Shuffle(n, func(i, j int) { p[i], p[j] = p[j], p[i] })
	for i := range p {
		if int(p[i]) == i {
			j := (i + 1) % n
			p[i], p[j] = p[j], p[i]
		}
	}
	return p
}

// bitReverse returns r with its low log₂ n bits reversed (n a power of two).
func bitReverse(r, n int) int {
	return int(bits.Reverse(uint(r)) >> (bits.UintSize - (bits.Len(uint(n)) - 1)))
}

// Gap returns the idle time before the next message of a terminal that
// offers load (0 < load ≤ 1) of a link: a seeded exponential gap whose mean
// makes busy/(busy+gap) = load, where busy is the message's wire time.
func Gap(load float64, busyPs int64, rng *rand.Rand) int64 {
	if load >= 1 || busyPs <= 0 {
		return 0
	}
	mean := float64(busyPs) * (1 - load) / load
	return int64(rng.ExpFloat64() * mean)
}

// ParseKind checks a pattern name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if k.Kind == s {
			return Kind(s), nil
		}
	}
	return "", fmt.Errorf("unknown traffic kind %q (known: %s)", s, strings.Join(kindNames(), ", "))
}

// ParseBytes reads a size such as 2048, 2KiB, 10MTU (with mtu bytes per MTU).
func ParseBytes(s string, mtu int) (int, error) { return param.ParseSize(s, mtu) }
