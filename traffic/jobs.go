package traffic

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"flitsim/fabric/param"
)

// JobTraffic is the traffic of one job; its numeric knobs declare
// themselves in param tags (the keys of a jobs file's [[job]] tables).
type JobTraffic struct {
	Kind Kind `json:"pattern" param:"pattern" unset:"exchange" help:"the job's pattern"`
	// MessageBytes is the payload of a message (allreduce: of the whole
	// vector, cut into n chunks).
	MessageBytes int `json:"msg_bytes" param:"msg_bytes" kind:"size" range:"[1,1073741824]" unset:"1MTU" help:"payload of a message (allreduce: of the whole vector): bytes, or with a unit (4KiB, 10MTU)"`
	// Start is when the job's ranks create their first messages.
	Start int64 `json:"start_ps,omitempty" param:"start" unit:"ps" range:"[0,1000s]" default:"0" help:"instant the job starts sending"`
	// End, when set, is when an infinite job's ranks stop: they create
	// no message at or after it.
	End int64 `json:"end_ps,omitempty" param:"end" unit:"ps" range:"[0,1000s]" default:"0" help:"instant an infinite job stops: its ranks create no message at or after it (0: never)"`
	// Iterations repeats the pattern; 0 is infinite.
	Iterations int `json:"iterations" param:"iterations" range:"[0,1073741824]" help:"repetitions of the pattern (0: infinite; default 1 for exchange, halo, pingpong, allreduce, barrier and broadcast, infinite for the streams)"`
	// Load is the offered load per rank of the open-loop patterns.
	Load float64 `json:"load,omitempty" param:"load" range:"(0,1]" default:"1" help:"offered load per rank of the open-loop patterns, a fraction of the link rate"`
	// Distance is the shift of Shift.
	Distance int `json:"distance,omitempty" param:"distance" range:"[-1073741824,1073741824]" default:"1" help:"shift: rank r sends to r+distance (not a multiple of the job size)"`
	// BurstOn and BurstOff are the mean on and off periods of bursty
	// noise (seeded exponential); BurstOn 0 sends without pause.
	BurstOn  int64 `json:"burst_on_ps,omitempty" param:"burst_on" unit:"ps" range:"[0,1000s]" default:"0" help:"noise: mean length of an on period (0: no bursts, always on)"`
	BurstOff int64 `json:"burst_off_ps,omitempty" param:"burst_off" unit:"ps" range:"[0,1000s]" default:"0" help:"noise: mean length of an off period (with burst_on; 0: as long as burst_on)"`
	// HotFraction is the share of a hot spot's messages to rank 0.
	HotFraction float64 `json:"hot_fraction,omitempty" param:"hot_fraction" range:"(0,1]" default:"0.1" help:"hotspot: the share of messages to rank 0"`
	// Grid shapes the ranks of the gridded patterns (product = job
	// size); nil: the most square 2D grid (halo), the most cubic 3D one
	// (halo3d, sweep3d).
	Grid []int `json:"grid,omitempty" param:"grid" unset:"the most square 2D grid (halo3d, sweep3d, cg: 3D; milc: 4D)" help:"halo, halo3d, sweep3d and the skeletons cg, milc, fft: the rank grid, e.g. [4, 4] (its product is the job's size; periodic for the halos)"`
	// Compute is the time a rank computes before each iteration's
	// messages, after the messages the iteration waits for have arrived;
	// ComputeNoise adds a seeded exponential draw of that mean to each
	// iteration's (operating-system noise, which a rank absorbs while it
	// waits and passes on when it does not).
	Compute      int64 `json:"compute_ps,omitempty" param:"compute" unit:"ps" range:"[0,1000s]" default:"0" help:"dependent patterns: compute time before each iteration's messages"`
	ComputeNoise int64 `json:"compute_noise_ps,omitempty" param:"compute_noise" unit:"ps" range:"[0,1000s]" default:"0" help:"dependent patterns: each iteration's compute grows by a seeded exponential draw of this mean (OS noise)"`
	// Algorithm is how a collective runs (collectives.go): "" flitsim's
	// own, "mpich" MPICH's choice by size, or one named.
	Algorithm string `json:"algorithm,omitempty" param:"algorithm" unset:"flitsim's: ring allreduce, binomial broadcast, pairwise alltoall, dissemination barrier" help:"collectives: mpich (chosen by size as MPICH does) or an algorithm by name"`
	// Rendezvous is the size from which a message goes as MPI's
	// rendezvous over RDMA GET (seeds/004 §2.1): the sender's NIC sends a
	// request to send, the receiver's NIC reads the data with one-flit GET
	// requests and the sender's NIC answers each with the data (sim/doc.go,
	// "Rendezvous"). Smaller messages are PUTs: the data travels in the
	// requests. 0: every message is a PUT. Cray MPICH on Aries switches at
	// 8 KiB (MPICH_GNI_MAX_EAGER_MSG_SIZE's default).
	Rendezvous int `json:"rendezvous,omitempty" param:"rendezvous" kind:"size" range:"[0,1073741824]" default:"0" help:"messages of at least this many bytes go as MPI rendezvous over RDMA GET (request to send, one-flit GET requests, the data in the responses; Cray MPICH on Aries: 8KiB); 0: every message is a PUT"`
	// Trace is a trace job's trace: a DUMPI trace's directory or .meta
	// file (the caller loads it into Job.Program).
	Trace string `json:"trace,omitempty" param:"trace" kind:"path" help:"pattern trace: the trace to replay, a DUMPI trace's directory or its .meta file"`
	// ComputeScale scales the computation a trace times between calls;
	// DropCompute drops it (the network alone).
	ComputeScale float64 `json:"compute_scale,omitempty" param:"compute_scale" range:"(0,1000]" default:"1" help:"pattern trace: the traced computation between calls is scaled by this factor"`
	DropCompute  bool    `json:"drop_compute,omitempty" param:"drop_compute" default:"false" help:"pattern trace: replay without the traced computation (the messages and their dependencies alone)"`
}

// ParamValues lists the patterns a job may run (param.Valuer).
func (*JobTraffic) ParamValues(key string) []string {
	switch key {
	case "pattern":
		return kindNames()
	case "algorithm":
		return algorithmNames()
	}
	return nil
}

// ParamAccepts takes, for the algorithm key, a trace job's list of
// collective=algorithm beside the names (param.Acceptor); checkTrace
// refuses it on other patterns.
func (*JobTraffic) ParamAccepts(key string) func(string) error {
	if key != "algorithm" {
		return nil
	}
	return func(s string) error {
		if !strings.Contains(s, "=") {
			return fmt.Errorf("or a trace job's list of collective=algorithm (allreduce=ring,alltoall=bruck)")
		}
		_, err := parsePolicy(s)
		return err
	}
}

// Ranks returns every job's ranks (terminal ordinals), in job order: the
// job map of scheduling-aware routing and of the job metrics.
func Ranks(jobs []Job) [][]int {
	out := make([][]int, len(jobs))
	for i, j := range jobs {
		out[i] = j.Ranks
	}
	return out
}

// Job is one job of a workload: its ranks' terminals and its traffic.
type Job struct {
	ID      string `json:"id"`
	Ranks   []int  `json:"-"` // terminal of each rank
	Traffic JobTraffic
	// Routing is the job's own adaptive routing mode (a routing.Mode
	// name, e.g. "ugal-high"; "": the network's engine's), as an Aries job
	// sets MPICH_GNI_ROUTING_MODE (seeds/004 §2.2).
	Routing string `json:"routing,omitempty"`
	// Program is a trace job's program (Traffic.Trace, loaded).
	Program Program `json:"-"`
}

// Finite reports whether the job ends by itself.
func (j Job) Finite() bool { return j.Traffic.Iterations > 0 }

// step is one message of a rank's program: where it goes, how big it is,
// and which delivery it waits for.
type step struct {
	dst       int
	bytes     int
	needTag   int64 // -1: none
	needCount int32
	// A second need (a skeleton's phase that starts on a need of its own
	// after the last phase's end): -1 none.
	needTag2   int64
	needCount2 int32
}

// rankState is a terminal's place in its job's program.
type rankState struct {
	job, rank int32
	step      int64 // next step, counted over iterations
	nextT     int64 // the earliest creation instant of the next message
	onUntil   int64 // bursty noise: the current on period ends; -1 not started
	waiting   bool
	ended     bool              // its job's end has come
	recv      map[int64]recvTag // deliveries by tag, dependent patterns only
}

type recvTag struct {
	n    int32
	last int64
}

// workload is the Source of a set of jobs.
type workload struct {
	jobs  []Job
	state []rankState // by terminal; job -1 for terminals in no job
	perm  [][]int32   // permutation jobs' π
	nbrs  [][][]int   // gridded jobs' destinations by rank (a sweep's downstream)
	ups   [][]int32   // a sweep's upstream count by rank
	wire  WireFunc
	// wireOf is each job's message wire time (an allreduce's chunk's):
	// every step of a job sends the same size, but a scheduled one's.
	wireOf []int64
	// sched is a job's schedule when its collective's algorithm has one
	// (collectives.go), nil otherwise.
	sched []*schedule
	// xor marks the all-to-all jobs that pair ranks by XOR
	// (AlgPairwiseXOR; pairwiseDst).
	xor []bool
	// whole marks the one job of a [[traffic]] pattern over every
	// terminal: a run of it reports no jobs (Jobs, JobOf, JobMessages).
	whole bool
	// replay is a trace job's state, nil for the other patterns.
	replay []*replay
}

// NewWorkload returns the source of jobs on n terminals. A terminal is in
// at most one job; terminals in none send nothing. stream returns the
// random stream of a job by its id (a permutation job draws its
// derangement from it), so a job draws the same alone as beside others.
func NewWorkload(jobs []Job, n int, stream func(id string) *rand.Rand, wire WireFunc) (Source, error) {
	w, err := newWorkload(jobs, n, stream, wire)
	if err != nil {
		return nil, err
	}
	return w, nil
}

func newWorkload(jobs []Job, n int, stream func(id string) *rand.Rand, wire WireFunc) (*workload, error) {
	w := &workload{jobs: jobs, state: make([]rankState, n), perm: make([][]int32, len(jobs)), nbrs: make([][][]int, len(jobs)), ups: make([][]int32, len(jobs)), wire: wire, wireOf: make([]int64, len(jobs)), sched: make([]*schedule, len(jobs)), xor: make([]bool, len(jobs)), replay: make([]*replay, len(jobs))}
	for t := range w.state {
		w.state[t].job = -1
	}
	ids := map[string]bool{}
	for j, job := range jobs {
		if err := job.Check(); err != nil {
			return nil, err
		}
		if ids[job.ID] {
			return nil, fmt.Errorf("job %s given twice", job.ID)
		}
		ids[job.ID] = true
		if job.Traffic.Kind == Trace {
			rp, err := newReplay(&jobs[j])
			if err != nil {
				return nil, err
			}
			w.replay[j] = rp
		}
		if alg := job.Traffic.algorithm(len(job.Ranks)); scheduled(alg) {
			w.sched[j] = newSchedule(alg, len(job.Ranks), job.Traffic.MessageBytes)
		} else {
			w.xor[j] = alg == AlgPairwiseXOR
		}
		if job.Traffic.Kind.Skeleton() {
			w.sched[j] = newSkeleton(job.Traffic.Kind, job.grid(), len(job.Ranks), job.Traffic.MessageBytes)
		}
		switch job.Traffic.Kind {
		case Halo, Halo3D:
			w.nbrs[j] = haloNeighbours(job.grid())
		case Sweep3D:
			w.nbrs[j], w.ups[j] = sweepNeighbours(job.grid())
		}
		for r, t := range job.Ranks {
			if t < 0 || t >= n {
				return nil, fmt.Errorf("job %s: rank %d on terminal %d, have %d", job.ID, r, t, n)
			}
			if w.state[t].job >= 0 {
				return nil, fmt.Errorf("job %s: terminal %d is also in job %s", job.ID, t, jobs[w.state[t].job].ID)
			}
			st := rankState{job: int32(j), rank: int32(r), nextT: job.Traffic.Start, onUntil: -1}
			if rp := w.replay[j]; rp != nil {
				rp.start(r, job.Traffic.Start)
			} else if job.Traffic.Kind.Dependent() && w.stepsPerIteration(j, r) > 0 {
				// A rank that never sends waits for nothing (a broadcast's
				// leaves, a sweep's last corner): it keeps no count of what
				// it receives.
				st.recv = map[int64]recvTag{}
			}
			w.state[t] = st
		}
		if wire != nil {
			w.wireOf[j] = wire(job.Traffic.stepBytes(len(job.Ranks)))
		}
		if job.Traffic.Kind == Permutation {
			w.perm[j] = newPermutation(len(job.Ranks), stream(job.ID))
		}
	}
	return w, nil
}

// Check reports a job its pattern cannot run on.
func (j Job) Check() error {
	n, t := len(j.Ranks), j.Traffic
	bad := func(key, format string, v ...any) error {
		msg := fmt.Sprintf(format, v...)
		if j.ID != "" {
			msg = fmt.Sprintf("job %s: ", j.ID) + msg
		}
		return &param.Error{Key: key, Msg: msg}
	}
	if n < 2 {
		return bad("", "%d ranks, traffic needs at least 2", n)
	}
	if t.MessageBytes < 1 {
		return bad("msg_bytes", "message size %d bytes", t.MessageBytes)
	}
	if !(t.Load > 0 && t.Load <= 1) {
		return bad("load", "load %g outside (0, 1]", t.Load)
	}
	if t.Iterations < 0 {
		return bad("iterations", "%d iterations", t.Iterations)
	}
	if t.Load < 1 && t.Kind.Dependent() {
		return bad("load", "%s traffic waits for its messages, a load below 1 does not apply", t.Kind)
	}
	if (t.BurstOn > 0 || t.BurstOff > 0) && t.Kind != Noise {
		return bad("burst_on", "bursts apply to noise jobs, not %s", t.Kind)
	}
	if err := checkAlgorithm(t); err != nil {
		return bad("algorithm", "%v", err)
	}
	if t.Algorithm == AlgScatterRD && n&(n-1) != 0 {
		return bad("algorithm", "%s needs a power-of-two job size, not %d ranks (scatter-ring runs on any)", AlgScatterRD, n)
	}
	if len(t.Grid) > 0 && !t.Kind.Shaped() {
		return bad("grid", "a grid shapes halo, halo3d, sweep3d, cg, milc, fft, tornado and transpose jobs, not %s", t.Kind)
	}
	if t.Kind == Trace {
		if err := j.checkTrace(); err != nil {
			return err
		}
	} else if t.Trace != "" || t.ComputeScale != 0 && t.ComputeScale != 1 || t.DropCompute {
		key := map[bool]string{true: "trace", false: "compute_scale"}[t.Trace != ""]
		if t.DropCompute && t.Trace == "" && (t.ComputeScale == 0 || t.ComputeScale == 1) {
			key = "drop_compute"
		}
		return bad(key, "%s applies to trace jobs, not %s", key, t.Kind)
	}
	if (t.Compute > 0 || t.ComputeNoise > 0) && !t.Kind.Dependent() {
		return bad("compute", "compute applies to the dependent patterns, whose iterations wait for messages, not %s", t.Kind)
	}
	if t.Distance != 0 && t.Kind != Shift {
		return bad("distance", "a distance applies to shift jobs, not %s", t.Kind)
	}
	if t.HotFraction != 0 && t.Kind != HotSpot {
		return bad("hot_fraction", "a hot fraction applies to hotspot jobs, not %s", t.Kind)
	}
	if t.BurstOff > 0 && t.BurstOn == 0 {
		return bad("burst_off", "burst_off needs burst_on")
	}
	if t.End > 0 && j.Finite() {
		return bad("end", "a job of %d iterations ends by itself; end applies to infinite jobs (iterations = 0)", t.Iterations)
	}
	if t.End > 0 && t.End <= t.Start {
		return bad("end", "the job ends (%d ps) before it starts (%d ps)", t.End, t.Start)
	}
	switch t.Kind {
	case Shift:
		if ((t.Distance%n)+n)%n == 0 {
			return bad("distance", "shift distance %d maps every rank onto itself (%d ranks)", t.Distance, n)
		}
	case Halo, Halo3D, Sweep3D, CG, MILC, FFT, Tornado, Transpose:
		if want := map[Kind]int{MILC: 4, FFT: 2, CG: 3}[t.Kind]; want > 0 && len(t.Grid) > 0 && len(t.Grid) != want {
			return bad("grid", "%s lays its ranks on a %dD grid, not %v", t.Kind, want, t.Grid)
		}
		if len(t.Grid) > 0 {
			p := 1
			for _, d := range t.Grid {
				if d < 1 {
					return bad("grid", "grid %v has a dimension below 1", t.Grid)
				}
				p *= d
			}
			if p != n {
				return bad("grid", "grid %v holds %d ranks, the job has %d", t.Grid, p, n)
			}
		}
		if t.Kind == Transpose {
			if g := (Job{Ranks: make([]int, n), Traffic: t}).grid(); len(g) != 2 || g[0] != g[1] {
				return bad("grid", "transpose needs a square 2D grid of ranks (k × k), not %v for %d ranks", g, n)
			}
		}
	case BitReversal:
		if n&(n-1) != 0 {
			return bad("pattern", "bit reversal needs a power-of-two number of ranks, have %d", n)
		}
	case HotSpot:
		if !(t.HotFraction > 0 && t.HotFraction <= 1) {
			return bad("hot_fraction", "hot fraction %g outside (0, 1]", t.HotFraction)
		}
	case Exchange, Uniform, Permutation, PingPong, Allreduce, Barrier, Broadcast, Noise, Alltoall, BFS, Trace:
	default:
		_, err := ParseKind(string(t.Kind))
		return bad("pattern", "%v", err)
	}
	return nil
}

// grid is a gridded job's rank grid: the given one, else the most square
// 2D factorization of the job size (halo), the most cubic 3D one (halo3d,
// sweep3d).
func (j Job) grid() []int {
	if len(j.Traffic.Grid) > 0 {
		return j.Traffic.Grid
	}
	n := len(j.Ranks)
	switch j.Traffic.Kind {
	case Tornado:
		return []int{n}
	case Halo, FFT, Transpose:
		a := squarest(n)
		return []int{n / a, a}
	case MILC: // the most hypercubic: the largest w with w⁴ ≤ n dividing n, then the most cubic rest
		w := 1
		for d := 1; d*d*d*d <= n; d++ {
			if n%d == 0 {
				w = d
			}
		}
		rest := Job{Ranks: j.Ranks[:n/w], Traffic: JobTraffic{Kind: Halo3D}}.grid()
		return append(rest, w)
	}
	// The most cubic x ≥ y ≥ z: the largest z with z³ ≤ n dividing n,
	// then the squarest split of the rest.
	z := 1
	for d := 1; d*d*d <= n; d++ {
		if n%d == 0 {
			z = d
		}
	}
	y := squarest(n / z)
	return []int{n / z / y, y, z}
}

// shapedDst is rank r's destination in tornado or transpose on grid g
// (coordinate 0 varies fastest, as the halos lay ranks).
func shapedDst(k Kind, g []int, r int) int {
	if k == Transpose {
		x, y := r%g[0], r/g[0]
		return x*g[0] + y
	}
	dst, stride := 0, 1
	for _, d := range g {
		c := (r / stride) % d
		dst += ((c + (d+1)/2 - 1) % d) * stride
		stride *= d
	}
	return dst
}

// squarest returns the largest divisor a of n with a² ≤ n.
func squarest(n int) int {
	a := 1
	for d := 1; d*d <= n; d++ {
		if n%d == 0 {
			a = d
		}
	}
	return a
}

// haloNeighbours lists every rank's distinct neighbours on the periodic
// grid (dimension 0 varies fastest), ±1 in each dimension of size > 1.
func haloNeighbours(g []int) [][]int {
	n := 1
	for _, d := range g {
		n *= d
	}
	out := make([][]int, n)
	for r := range out {
		seen := map[int]bool{r: true}
		stride := 1
		for _, d := range g {
			c := (r / stride) % d
			for _, dc := range []int{1, -1} {
				nb := r + (((c+dc)%d+d)%d-c)*stride
				if !seen[nb] {
					seen[nb] = true
					out[r] = append(out[r], nb)
				}
			}
			stride *= d
		}
	}
	return out
}

// sweepNeighbours lists every rank's downstream neighbours of a wavefront
// from rank 0 on the (not periodic) grid g, dimension 0 varying fastest:
// +1 in each dimension where the rank is not on the far face; and how many
// upstream neighbours (−1) it waits for.
func sweepNeighbours(g []int) ([][]int, []int32) {
	n := 1
	for _, d := range g {
		n *= d
	}
	down, ups := make([][]int, n), make([]int32, n)
	for r := range down {
		stride := 1
		for _, d := range g {
			c := (r / stride) % d
			if c+1 < d {
				down[r] = append(down[r], r+stride)
			}
			if c > 0 {
				ups[r]++
			}
			stride *= d
		}
	}
	return down, ups
}

// stepsPerIteration returns how many messages rank r of job j sends per
// iteration.
func (w *workload) stepsPerIteration(j int, r int) int {
	job := &w.jobs[j]
	n := len(job.Ranks)
	if sc := w.sched[j]; sc != nil {
		return len(sc.ranks[r])
	}
	switch job.Traffic.Kind {
	case Exchange, Alltoall:
		return n - 1
	case Halo, Halo3D, Sweep3D:
		return len(w.nbrs[j][r])
	case PingPong:
		if r < 2 {
			return 1
		}
		return 0
	case Allreduce:
		return 2 * (n - 1)
	case Barrier:
		return bits.Len(uint(n - 1))
	case Broadcast:
		return bits.Len(uint(broadcastFirst(r, n)))
	}
	return 1
}

// broadcastFirst returns the distance to the first rank rank r sends to in
// a binomial-tree broadcast over n ranks from rank 0 (MPICH's), 0 when r
// sends to none: r sends to r+m for every power of two m below r's lowest
// set bit (every m < n for rank 0) with r+m < n, largest first, so its
// k-th message goes to r + broadcastFirst(r, n)>>k.
func broadcastFirst(r, n int) int {
	low := 1 << bits.Len(uint(n-1)) // rank 0: above every child
	if r > 0 {
		low = r & -r
	}
	room := n - 1 - r
	if room <= 0 {
		return 0
	}
	return min(low>>1, 1<<(bits.Len(uint(room))-1))
}

// stepBytes is the payload of every message of the traffic over n ranks:
// the message size, an allreduce's chunk of it.
func (t JobTraffic) stepBytes(n int) int {
	if t.Kind == Allreduce {
		return (t.MessageBytes + n - 1) / n
	}
	return t.MessageBytes
}

// program returns rank r's step s (counted over iterations) of job j; it
// draws from rng only for random destinations.
func (w *workload) program(j, r int, s int64, rng *rand.Rand) step {
	job := &w.jobs[j]
	n := len(job.Ranks)
	t := job.Traffic
	per := int64(w.stepsPerIteration(j, r))
	k := int(s % per)
	if sc := w.sched[j]; sc != nil {
		return sc.step(r, k, s/per)
	}
	st := step{bytes: t.stepBytes(n), needTag: -1, needTag2: -1}
	switch t.Kind {
	case Exchange:
		st.dst = ((r+ExchangeOffset(k, n))%n + n) % n
	case Shift:
		st.dst = ((r+t.Distance)%n + n) % n
	case Uniform, Noise:
		st.dst = uniformDraw(r, n, rng)
	case BitReversal:
		if st.dst = bitReverse(r, n); st.dst == r { // palindromes send uniformly instead of to themselves
			st.dst = uniformDraw(r, n, rng)
		}
	case HotSpot:
		if r != 0 && rng.Float64() < t.HotFraction {
			st.dst = 0
		} else {
			st.dst = uniformDraw(r, n, rng)
		}
	case Permutation:
		st.dst = int(w.perm[j][r])
	case Tornado, Transpose:
		if st.dst = shapedDst(t.Kind, job.grid(), r); st.dst == r { // sends uniformly rather than to itself
			st.dst = uniformDraw(r, n, rng)
		}
	case Halo, Halo3D:
		nb := w.nbrs[j][r]
		st.dst = nb[k]
		if it := s / per; k == 0 && it > 0 {
			st.needTag, st.needCount = it-1, int32(len(nb))
		}
	case Sweep3D:
		st.dst = w.nbrs[j][r][k]
		if up := w.ups[j][r]; k == 0 && up > 0 {
			st.needTag, st.needCount = s/per, up // this iteration's wave from upstream
		}
	case PingPong:
		st.dst = 1 - r
		switch {
		case r == 1:
			st.needTag, st.needCount = s, 1
		case s > 0:
			st.needTag, st.needCount = s-1, 1
		}
	case Allreduce:
		st.dst = (r + 1) % n
		if s > 0 {
			st.needTag, st.needCount = s-1, 1
		}
	case Alltoall:
		st.dst = pairwiseDst(r, k+1, n, w.xor[j])
		if s > 0 {
			st.needTag, st.needCount = s-1, 1
		}
	case Barrier:
		st.dst = (r + 1<<k) % n
		if s > 0 {
			st.needTag, st.needCount = s-1, 1
		}
	case Broadcast:
		st.dst = r + broadcastFirst(r, n)>>k
		if r > 0 && k == 0 {
			st.needTag, st.needCount = s/per, 1 // this iteration's message from the parent
		}
	}
	return st
}

// tag is what a message of step s carries: the gridded patterns and the
// broadcast match by iteration, the other dependent patterns by step.
func (w *workload) tag(j, r int, s int64) int64 {
	if sc := w.sched[j]; sc != nil {
		per := int64(len(sc.ranks[r]))
		return sc.tag(r, int(s%per), s/per)
	}
	if k := w.jobs[j].Traffic.Kind; k.Gridded() || k == Broadcast {
		return s / int64(w.stepsPerIteration(j, r))
	}
	return s
}

func (w *workload) Next(src int, now int64, rng *rand.Rand) (Msg, Status) {
	st := &w.state[src]
	if st.job < 0 {
		return Msg{}, Done
	}
	j, r := int(st.job), int(st.rank)
	job := &w.jobs[j]
	per := int64(w.stepsPerIteration(j, r))
	if rp := w.replay[j]; rp != nil {
		dst, bytes, at, tag, s := rp.next(r, now)
		if s == Later {
			return Msg{At: at}, Later
		}
		if s != Ready {
			return Msg{}, s
		}
		m := Msg{Dst: job.Ranks[dst], Bytes: int(bytes), At: at, Tag: tag}
		m.Get = job.Traffic.Rendezvous > 0 && m.Bytes >= job.Traffic.Rendezvous
		return m, Ready
	}
	if per == 0 || st.ended || (job.Finite() && st.step >= per*int64(job.Traffic.Iterations)) {
		return Msg{}, Done
	}
	// Check the dependency before drawing: a waiting rank draws nothing.
	if job.Traffic.Kind.Dependent() {
		need := w.program(j, r, st.step, nil)
		if need.needTag >= 0 && st.recv[need.needTag].n < need.needCount ||
			need.needTag2 >= 0 && st.recv[need.needTag2].n < need.needCount2 {
			st.waiting = true
			return Msg{}, Waiting
		}
		for _, tag := range [2]int64{need.needTag, need.needTag2} {
			if tag >= 0 {
				st.nextT = max(st.nextT, st.recv[tag].last)
				delete(st.recv, tag)
			}
		}
	}
	st.waiting = false
	at := st.nextT
	if t := &job.Traffic; (t.Compute > 0 || t.ComputeNoise > 0) && st.step%per == 0 {
		at += t.Compute // an iteration begins: the rank computes first
		if t.ComputeNoise > 0 {
			at += int64(rng.ExpFloat64() * float64(t.ComputeNoise))
		}
	}
	p := w.program(j, r, st.step, rng)
	if t := &job.Traffic; t.BurstOn > 0 {
		off := t.BurstOff
		if off == 0 {
			off = t.BurstOn
		}
		if st.onUntil < 0 {
			st.onUntil = at + int64(rng.ExpFloat64()*float64(t.BurstOn))
		}
		for at >= st.onUntil {
			at = st.onUntil + int64(rng.ExpFloat64()*float64(off))
			st.onUntil = at + int64(rng.ExpFloat64()*float64(t.BurstOn))
		}
	}
	if e := job.Traffic.End; e > 0 && at >= e {
		st.ended = true
		return Msg{}, Done
	}
	m := Msg{Dst: job.Ranks[p.dst], Bytes: p.bytes, At: at, Tag: w.tag(j, r, st.step)}
	m.Get = job.Traffic.Rendezvous > 0 && p.bytes >= job.Traffic.Rendezvous
	wire := w.wireOf[j]
	if w.sched[j] != nil && w.wire != nil {
		wire = w.wire(p.bytes)
	}
	st.nextT = at + wire + Gap(job.Traffic.Load, wire, rng)
	st.step++
	return m, Ready
}

func (w *workload) Delivered(src int, m Msg, t int64) bool {
	st := &w.state[m.Dst]
	if st.job >= 0 && w.replay[st.job] != nil {
		return w.replay[st.job].delivered(int(w.state[src].rank), int(st.rank), m.Tag, t)
	}
	if st.recv == nil {
		return false
	}
	got := st.recv[m.Tag]
	got.n++
	got.last = max(got.last, t)
	st.recv[m.Tag] = got
	return st.waiting
}

func (w *workload) Counted(src int) bool {
	st := w.state[src]
	return st.job >= 0 && w.jobs[st.job].Finite()
}

func (w *workload) Total() (int64, bool) {
	var n int64
	inf := false
	for j, m := range w.messages() {
		n += m
		inf = inf || !w.jobs[j].Finite()
	}
	return n, inf
}

// Jobs returns the jobs of a source made by NewWorkload, nil otherwise.
func Jobs(s Source) []Job {
	if w, ok := s.(*workload); ok && !w.whole {
		return w.jobs
	}
	return nil
}

// JobOf returns the index of terminal t's job in a workload source, -1
// when t is in none (or s is not a workload).
func JobOf(s Source, t int) int {
	if w, ok := s.(*workload); ok && !w.whole {
		return int(w.state[t].job)
	}
	return -1
}

// JobMessages returns, per job of a workload source, how many messages
// its ranks send in all (0 for an infinite job); nil when s is not a
// workload.
func JobMessages(s Source) []int64 {
	w, ok := s.(*workload)
	if !ok || w.whole {
		return nil
	}
	return w.messages()
}

// messages returns, per job, how many messages its ranks send in all (0
// for an infinite job).
func (w *workload) messages() []int64 {
	out := make([]int64, len(w.jobs))
	for j, job := range w.jobs {
		if !job.Finite() {
			continue
		}
		if rp := w.replay[j]; rp != nil {
			out[j] = rp.total
			continue
		}
		for r := range job.Ranks {
			out[j] += int64(w.stepsPerIteration(j, r)) * int64(job.Traffic.Iterations)
		}
	}
	return out
}
