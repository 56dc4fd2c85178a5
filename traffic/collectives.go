package traffic

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// The algorithms of the collectives (JobTraffic.Algorithm). flitsim's own,
// the default, are one per collective: the ring allreduce (a reduce-scatter
// and an allgather, 2(n−1) steps of a chunk), the binomial-tree broadcast,
// the pairwise all-to-all and the dissemination barrier. "mpich" chooses
// by size and job size as MPICH 3/4 does by default (its CVAR defaults):
//
//	allreduce  ≤ 2,048 B: recursive doubling; else Rabenseifner (recursive-
//	           halving reduce-scatter, recursive-doubling allgather)
//	broadcast  < 12,288 B or < 8 ranks: binomial; < 524,288 B on a power of
//	           two: binomial scatter + recursive-doubling allgather
//	           (scatter-rd); else binomial scatter + ring allgather
//	           (scatter-ring)
//	alltoall   ≤ 256 B and ≥ 8 ranks: Bruck; ≤ 32,768 B: the messages
//	           posted in batches of 32 with a wait for each batch's
//	           receives (scattered, MPIR_CVAR_ALLTOALL_THROTTLE); else
//	           pairwise, which MPICH runs as r XOR k on a power of two
//	           (pairwise-xor)
//	barrier    dissemination
//
// Each may also be named; "tree" (allreduce only, NCCL's for AI traces)
// is a double binary tree (doubleTree). Recursive doubling and Rabenseifner fold the
// ranks beyond the largest power of two p as MPICH does: of the first
// 2(n−p) ranks each even one hands its vector to the odd one above it and
// waits for the result, the others run the algorithm on p ranks.

// The algorithm names.
const (
	AlgDefault           = ""
	AlgMPICH             = "mpich"
	AlgRing              = "ring"
	AlgRecursiveDoubling = "recursive-doubling"
	AlgRabenseifner      = "rabenseifner"
	AlgBinomial          = "binomial"
	AlgScatterRD         = "scatter-rd"
	AlgScatterRing       = "scatter-ring"
	AlgPairwise          = "pairwise"
	AlgPairwiseXOR       = "pairwise-xor"
	AlgBruck             = "bruck"
	AlgIsend             = "isend"
	AlgScattered         = "scattered"
	AlgDissemination     = "dissemination"
	AlgTree              = "tree"
)

// algorithms lists, per collective, the algorithms that may be named for
// it, flitsim's own first.
var algorithms = map[Kind][]string{
	Allreduce: {AlgRing, AlgRecursiveDoubling, AlgRabenseifner, AlgTree},
	Broadcast: {AlgBinomial, AlgScatterRD, AlgScatterRing},
	Alltoall:  {AlgPairwise, AlgPairwiseXOR, AlgBruck, AlgIsend, AlgScattered},
	Barrier:   {AlgDissemination},
}

// Algorithms lists the algorithms that may be named for collective kind,
// flitsim's own first (none for other patterns).
func Algorithms(kind Kind) []string { return slices.Clone(algorithms[kind]) }

// algorithmNames lists every value of the algorithm key.
func algorithmNames() []string {
	out := []string{AlgMPICH}
	for _, k := range []Kind{Allreduce, Broadcast, Alltoall, Barrier} {
		out = append(out, algorithms[k]...)
	}
	return out
}

// checkAlgorithm reports an algorithm a job's pattern has not.
func checkAlgorithm(t JobTraffic) error {
	if t.Algorithm == AlgDefault || t.Kind == Trace { // a trace's: checkTrace
		return nil
	}
	own, ok := algorithms[t.Kind]
	if !ok {
		return fmt.Errorf("an algorithm applies to allreduce, broadcast, alltoall and barrier jobs, not %s", t.Kind)
	}
	if t.Algorithm != AlgMPICH && !slices.Contains(own, t.Algorithm) {
		return fmt.Errorf("%s has no algorithm %q (%s, or mpich)", t.Kind, t.Algorithm, strings.Join(own, ", "))
	}
	return nil
}

// algorithm returns the algorithm a job of n ranks runs: flitsim's own for
// the default, MPICH's choice for "mpich".
func (t JobTraffic) algorithm(n int) string {
	switch {
	case t.Algorithm == AlgDefault:
		if own, ok := algorithms[t.Kind]; ok {
			return own[0]
		}
		return ""
	case t.Algorithm != AlgMPICH:
		return t.Algorithm
	}
	b, pof2 := t.MessageBytes, n&(n-1) == 0
	switch t.Kind {
	case Allreduce:
		if b <= 2048 {
			return AlgRecursiveDoubling
		}
		return AlgRabenseifner
	case Broadcast:
		switch {
		case b < 12288 || n < 8:
			return AlgBinomial
		case b < 524288 && pof2:
			return AlgScatterRD
		}
		return AlgScatterRing
	case Alltoall:
		switch {
		case b <= 256 && n >= 8:
			return AlgBruck
		case b <= 32768:
			return AlgScattered
		}
		return AlgPairwiseXOR
	case Barrier:
		return AlgDissemination
	}
	return ""
}

// scheduled reports whether algorithm alg runs from a schedule (the ones
// flitsim's own patterns do not compute step by step).
func scheduled(alg string) bool {
	switch alg {
	case AlgRecursiveDoubling, AlgRabenseifner, AlgScatterRD, AlgScatterRing, AlgBruck, AlgIsend, AlgScattered, AlgTree:
		return true
	}
	return false
}

// schedStep is one message of a rank's schedule in one iteration: to
// rank dst, of bytes, in round; before it the rank needs needCount
// messages of round need of this iteration (or, with prev, of the last
// one; need −1: nothing).
type schedStep struct {
	dst, bytes int32
	round      int16
	need       int16
	prev       bool
	needCount  int32
	// need2 is a second need of this iteration (−1: none): a skeleton
	// phase's first step waits for the last phase's end as well.
	need2      int16
	needCount2 int32
}

// schedule is a scheduled job's rounds per iteration and each rank's
// steps.
type schedule struct {
	rounds int64
	ranks  [][]schedStep
}

// newSchedule returns the schedule of algorithm alg for n ranks and
// messages of b bytes.
func newSchedule(alg string, n, b int) *schedule {
	s := &schedule{ranks: make([][]schedStep, n)}
	switch alg {
	case AlgRecursiveDoubling, AlgRabenseifner:
		s.folded(alg, n, b)
	case AlgScatterRD, AlgScatterRing:
		s.scatterAllgather(alg, n, b)
	case AlgBruck:
		s.bruck(n, b)
	case AlgTree:
		s.doubleTree(n, b)
	case AlgIsend:
		s.rounds = 1
		for r := range n {
			for k := 1; k < n; k++ {
				st := schedStep{dst: int32((r + k) % n), bytes: int32(b), need: -1}
				if k == 1 {
					st.need, st.prev, st.needCount = 0, true, int32(n-1) // the last iteration's all
				}
				s.add(r, st)
			}
		}
	case AlgScattered:
		s.scattered(n, b)
	}
	return s
}

// alltoallThrottle is how many sends and receives MPICH's scattered
// all-to-all posts at a time (MPIR_CVAR_ALLTOALL_THROTTLE's default).
const alltoallThrottle = 32

// scattered builds MPICH's MPIR_Alltoall_intra_scattered: in batch k of
// alltoallThrottle ranks (from ii = 32k) rank r posts its receives from
// r+ii+i and its sends to r−ii−i (i < 32, itself left out: a local copy)
// and waits for all of them before the next batch. A batch is a round;
// its first send needs the last batch's receives (the first batch's, the
// last iteration's last batch's). The wait for the batch's own sends is
// not modelled: an eager send completes once its data is handed to the NIC.
func (s *schedule) scattered(n, b int) {
	batches := ceilDiv(n, alltoallThrottle)
	s.rounds = int64(batches)
	got := func(k int) int32 { // the messages a rank receives in batch k
		c := int32(min(alltoallThrottle, n-k*alltoallThrottle))
		if k == 0 {
			c-- // its own
		}
		return c
	}
	for r := range n {
		for k := range batches {
			ii := k * alltoallThrottle
			first := true
			for i := range min(alltoallThrottle, n-ii) {
				dst := ((r-ii-i)%n + n) % n
				if dst == r {
					continue
				}
				st := schedStep{dst: int32(dst), bytes: int32(b), round: int16(k), need: -1}
				if first {
					if k > 0 {
						st.need, st.needCount = int16(k-1), got(k-1)
					} else {
						st.need, st.prev, st.needCount = int16(batches-1), true, got(batches-1)
					}
					first = false
				}
				s.add(r, st)
			}
		}
	}
}

// add appends st to rank r's steps (without a second need).
func (s *schedule) add(r int, st schedStep) {
	st.need2 = -1
	s.ranks[r] = append(s.ranks[r], st)
}

// folded builds recursive doubling and Rabenseifner on n ranks with MPICH's
// folding of the ranks beyond the largest power of two p: round 0 hands an
// even rank's vector up, rounds 1.. run the algorithm on p ranks, the last
// round hands the result back down.
func (s *schedule) folded(alg string, n, b int) {
	L := bits.Len(uint(n)) - 1
	p := 1 << L
	rem := n - p
	real := func(nr int) int { // the rank of new rank nr
		if nr < rem {
			return 2*nr + 1
		}
		return nr + rem
	}
	type round struct {
		partner func(nr int) int
		bytes   int
	}
	var main []round
	if alg == AlgRecursiveDoubling {
		for k := range L {
			main = append(main, round{func(nr int) int { return nr ^ 1<<k }, b})
		}
	} else {
		for k := 1; k <= L; k++ { // reduce-scatter by recursive halving
			main = append(main, round{func(nr int) int { return nr ^ p>>k }, ceilDiv(b, 1<<k)})
		}
		for k := range L { // allgather by recursive doubling
			main = append(main, round{func(nr int) int { return nr ^ 1<<k }, ceilDiv(b<<k, p)})
		}
	}
	post := int16(len(main) + 1)
	s.rounds = int64(post) + 1
	last := int16(len(main)) // the round a rank of the algorithm gets last
	for r := range n {
		if r < 2*rem && r%2 == 0 { // folded: hand over, wait for the result
			s.add(r, schedStep{dst: int32(r + 1), bytes: int32(b), round: 0, need: post, prev: true, needCount: 1})
			continue
		}
		nr := r - rem
		if r < 2*rem {
			nr = r / 2
		}
		for i, rd := range main {
			st := schedStep{dst: int32(real(rd.partner(nr))), bytes: int32(rd.bytes), round: int16(i + 1), need: int16(i), needCount: 1}
			if i == 0 {
				if r < 2*rem {
					st.need = 0 // the folded rank's vector
				} else {
					st.need, st.prev = last, true
				}
			}
			s.add(r, st)
		}
		if r < 2*rem {
			s.add(r, schedStep{dst: int32(r - 1), bytes: int32(b), round: post, need: last, needCount: 1})
		}
	}
}

// scatterAllgather builds MPICH's long broadcast from rank 0: a binomial
// scatter of the vector in n chunks (round 0: each rank gets its subtree's
// chunks from its parent) and an allgather of the chunks, by recursive
// doubling (rounds 1..log n, n a power of two) or around the ring (rounds
// 1..n−1, each chunk passed on to the next rank).
func (s *schedule) scatterAllgather(alg string, n, b int) {
	c := ceilDiv(b, n)
	var last int16
	if alg == AlgScatterRD {
		last = int16(bits.Len(uint(n)) - 1)
	} else {
		last = int16(n - 1)
	}
	s.rounds = int64(last) + 1
	for r := range n {
		needed := false // this iteration's scatter chunk consumed
		first := func(st *schedStep) {
			switch {
			case r == 0 && len(s.ranks[r]) == 0:
				st.need, st.prev, st.needCount = last, true, 1
			case r > 0 && !needed:
				st.need, st.needCount, needed = 0, 1, true
			}
		}
		for m := broadcastFirst(r, n); m > 0; m >>= 1 {
			st := schedStep{dst: int32(r + m), bytes: int32(c * min(m, n-r-m)), round: 0, need: -1}
			first(&st)
			s.add(r, st)
		}
		for k := int16(1); k <= last; k++ {
			st := schedStep{round: k, bytes: int32(c), need: k - 1, needCount: 1}
			if alg == AlgScatterRD {
				st.dst, st.bytes = int32(r^1<<(k-1)), int32(c<<(k-1))
			} else {
				st.dst = int32((r + 1) % n)
			}
			if k == 1 {
				st.need = -1
				first(&st)
			}
			s.add(r, st)
		}
	}
}

// bruck builds the Bruck all-to-all: in round k every rank sends to rank
// r+2^k the blocks whose index has bit k set, after the previous round's
// message from r−2^(k−1).
func (s *schedule) bruck(n, b int) {
	rounds := bits.Len(uint(n - 1))
	s.rounds = int64(rounds)
	for r := range n {
		for k := range rounds {
			blocks := 0
			for i := 1; i < n; i++ {
				if i>>k&1 == 1 {
					blocks++
				}
			}
			st := schedStep{dst: int32((r + 1<<k) % n), bytes: int32(b * blocks), round: int16(k), need: int16(k - 1), needCount: 1}
			if k == 0 {
				st.need, st.prev = int16(rounds-1), true
			}
			s.add(r, st)
		}
	}
}

// pairwiseDst returns whom rank r of n sends to in step k (from 1) of a
// pairwise all-to-all: r+k (flitsim's pairwise, and MPICH's when n is not
// a power of two), or with xor on a power of two r XOR k, the pairs
// swapping blocks as MPICH's MPIR_Alltoall_pairwise does. Either way r
// receives one message a step (from r−k, or r XOR k), so a step waits for
// the last step's message.
func pairwiseDst(r, k, n int, xor bool) int {
	if xor && n&(n-1) == 0 {
		return r ^ k
	}
	return (r + k) % n
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Chunks of the tree allreduce: NCCL pipelines its trees in steps of its
// buffer (4 MiB in 8 steps by default, NCCL_BUFFSIZE and NCCL_STEPS), so
// a half-vector goes in chunks of at most treeChunk bytes, and at most
// maxTreeChunks of them (the rounds are numbered in 16 bits).
const (
	treeChunk     = 512 << 10
	maxTreeChunks = 64
)

// doubleTree builds the tree allreduce as NCCL runs it on n ranks: two
// binary trees, each reducing half of the vector up to its root and
// broadcasting it back down, chunk by chunk. Tree 0 is the heap-ordered
// binary tree over the ranks (parent (p−1)/2), tree 1 the same over the
// ranks in reverse, so that the ranks inner in one are mostly leaves in
// the other and both halves move at once. A rank sends a chunk up once
// its children's parts of it arrived, and down to each child once the
// result arrived from its parent (at the root: once its children's
// parts did). Its steps are in the order an uncongested run takes them
// (a chunk time apart: up at c + height − depth, down at c + height +
// depth), since a rank's schedule runs in order and NCCL's progresses
// both directions at once. A leaf's first chunk of an iteration waits
// for the last iteration's result.
func (s *schedule) doubleTree(n, b int) {
	half := [2]int{max(1, ceilDiv(b, 2)), max(1, b/2)} // a message has at least a byte
	k := min(maxTreeChunks, max(1, ceilDiv(half[0], treeChunk)))
	s.rounds = int64(4 * k)
	height := bits.Len(uint(n)) - 1 // of a heap-ordered tree of n nodes
	type timed struct {
		at   int
		tree int
		st   schedStep
	}
	for r := range n {
		var steps []timed
		for t := range 2 {
			pos := r
			if t == 1 {
				pos = n - 1 - r
			}
			rank := func(p int) int32 {
				if t == 1 {
					return int32(n - 1 - p)
				}
				return int32(p)
			}
			var kids []int32
			for _, c := range []int{2*pos + 1, 2*pos + 2} {
				if c < n {
					kids = append(kids, rank(c))
				}
			}
			depth := bits.Len(uint(pos+1)) - 1
			cs := ceilDiv(half[t], k)
			for c := range k {
				bytes := int32(max(1, min(cs, half[t]-c*cs)))
				up, down := int16(2*(t*k+c)), int16(2*(t*k+c)+1)
				fromKids := schedStep{need: -1}
				switch {
				case len(kids) > 0:
					fromKids.need, fromKids.needCount = up, int32(len(kids))
				case c == 0:
					// A leaf starts the next iteration once it has the last
					// one's result (its parent's last chunk); inner ranks
					// wait for their children, which waited for it.
					fromKids.need, fromKids.prev, fromKids.needCount = int16(2*(t*k+k-1)+1), true, 1
				}
				if pos > 0 {
					st := fromKids
					st.dst, st.bytes, st.round = rank((pos-1)/2), bytes, up
					steps = append(steps, timed{c + height - depth, t, st})
				}
				for i, kid := range kids {
					st := schedStep{dst: kid, bytes: bytes, round: down, need: down, needCount: 1}
					switch {
					case i > 0:
						st.need, st.needCount = -1, 0 // right after the first child's: its need is met
					case pos == 0:
						st.need, st.needCount = fromKids.need, fromKids.needCount
					}
					steps = append(steps, timed{c + height + depth, t, st})
				}
			}
		}
		slices.SortStableFunc(steps, func(a, b timed) int {
			if a.at != b.at {
				return a.at - b.at
			}
			return a.tree - b.tree
		})
		for _, x := range steps {
			s.add(r, x.st)
		}
	}
}

// step returns rank r's step k of iteration it as the workload runs it.
func (s *schedule) step(r, k int, it int64) step {
	ss := s.ranks[r][k]
	st := step{dst: int(ss.dst), bytes: int(ss.bytes), needTag: -1, needTag2: -1}
	if ss.need2 >= 0 {
		st.needTag2, st.needCount2 = it*s.rounds+int64(ss.need2), ss.needCount2
	}
	switch {
	case ss.need < 0:
	case !ss.prev:
		st.needTag, st.needCount = it*s.rounds+int64(ss.need), ss.needCount
	case it > 0:
		st.needTag, st.needCount = (it-1)*s.rounds+int64(ss.need), ss.needCount
	}
	return st
}

// tag is the tag of rank r's step k of iteration it.
func (s *schedule) tag(r, k int, it int64) int64 { return it*s.rounds + int64(s.ranks[r][k].round) }
