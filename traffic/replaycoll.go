package traffic

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// How a trace job's collectives become messages. Each collective call is
// one instance on its communicator (MPI has every member call a
// communicator's collectives in one order, so the k-th on a communicator
// is the same instance at every member); its messages are numbered by
// instance and round, and a rank leaves the call once it has sent its
// part and received every message its part receives.
//
// The algorithm of each call is the job's policy (JobTraffic.Algorithm):
// MPICH's choice by size, the default for traces (collectives.go gives its
// switch points), with per-collective overrides, "allreduce=ring,
// alltoall=bruck". Beyond the four collectives flitsim's patterns run,
// the trace's are built here: reduce, gather and scatter on MPICH's
// binomial tree; allgather by recursive doubling (a power-of-two
// communicator and less than 512 KiB in all; MPICH's Bruck for short
// messages on other sizes is taken as the ring) or around the ring;
// reduce_scatter pairwise; alltoallv with every message posted at once;
// gatherv and scatterv linear, as MPICH runs them; allgatherv around the
// ring.

// collStep is one message of a rank's part of a collective instance: to
// the communicator's rank dst, in round; before it, the rank needs
// needCount messages of round need (−1: none) of the same instance.
type collStep struct {
	dst       int32
	bytes     int64
	round     int16
	need      int16
	needCount int32
}

// collPart is a rank's part of a collective: its messages and, per round,
// how many it receives.
type collPart struct {
	steps []collStep
	recv  []roundCount
}

type roundCount struct {
	round int16
	count int32
}

// The trace algorithms not in collectives.go.
const (
	AlgLinear = "linear"
)

// traceAlgs lists, per collective call, the algorithms a trace job may
// name for it, MPICH's default choice decided in traceAlgorithm.
var traceAlgs = map[CallOp][]string{
	CallAllreduce:     {AlgRing, AlgRecursiveDoubling, AlgRabenseifner, AlgTree},
	CallBcast:         {AlgBinomial, AlgScatterRD, AlgScatterRing},
	CallAlltoall:      {AlgPairwise, AlgPairwiseXOR, AlgBruck, AlgIsend, AlgScattered},
	CallBarrier:       {AlgDissemination},
	CallReduce:        {AlgBinomial},
	CallGather:        {AlgBinomial},
	CallScatter:       {AlgBinomial},
	CallAllgather:     {AlgRing, AlgRecursiveDoubling},
	CallReduceScatter: {AlgPairwise, AlgRing},
	CallAlltoallv:     {AlgIsend},
	CallGatherv:       {AlgLinear},
	CallScatterv:      {AlgLinear},
	CallAllgatherv:    {AlgRing},
}

// collPolicy is a trace job's algorithm per collective (missing: MPICH's).
type collPolicy map[CallOp]string

// parsePolicy reads a trace job's algorithm key: "" or "mpich" (MPICH's
// choice for every collective), or "op=alg,..." overriding it per
// collective.
func parsePolicy(s string) (collPolicy, error) {
	p := collPolicy{}
	if s == "" || s == AlgMPICH {
		return p, nil
	}
	for _, kv := range strings.Split(s, ",") {
		op, alg, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok {
			return nil, fmt.Errorf("%q: a trace job's algorithm is mpich or a list of collective=algorithm (allreduce=ring,alltoall=bruck)", kv)
		}
		c := callByName(op)
		algs, known := traceAlgs[c]
		if !known {
			var names []string
			for o := CallBarrier; o < numCallOps; o++ {
				names = append(names, o.String())
			}
			return nil, fmt.Errorf("%q is not a collective (%s)", op, strings.Join(names, ", "))
		}
		if !slices.Contains(algs, alg) {
			return nil, fmt.Errorf("%s has no algorithm %q (%s)", op, alg, strings.Join(algs, ", "))
		}
		p[c] = alg
	}
	return p, nil
}

// String writes the policy as its key reads, collectives in order.
func (p collPolicy) String() string {
	var b strings.Builder
	for op := CallBarrier; op < numCallOps; op++ {
		if a, ok := p[op]; ok {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(op.String() + "=" + a)
		}
	}
	return b.String()
}

func callByName(s string) CallOp {
	for i, n := range callNames {
		if n == s {
			return CallOp(i)
		}
	}
	return numCallOps
}

// algorithm returns the algorithm of collective op over n ranks with b
// bytes (the call's Bytes): the policy's, else MPICH's choice.
func (p collPolicy) algorithm(op CallOp, n int, b int64) string {
	if a, ok := p[op]; ok {
		if op == CallAllgather && a == AlgRecursiveDoubling && n&(n-1) != 0 {
			return AlgRing // recursive doubling needs a power of two
		}
		if op == CallBcast && a == AlgScatterRD && n&(n-1) != 0 {
			return AlgScatterRing
		}
		return a
	}
	pof2 := n&(n-1) == 0
	switch op {
	case CallAllreduce, CallBcast, CallAlltoall:
		kind := map[CallOp]Kind{CallAllreduce: Allreduce, CallBcast: Broadcast, CallAlltoall: Alltoall}[op]
		return JobTraffic{Kind: kind, Algorithm: AlgMPICH, MessageBytes: int(min(b, 1<<30))}.algorithm(n)
	case CallAllgather:
		if pof2 && int64(n)*b < 524288 {
			return AlgRecursiveDoubling
		}
		return AlgRing
	}
	return traceAlgs[op][0]
}

// collKey names a cached global schedule.
type collKey struct {
	op    CallOp
	alg   string
	n     int
	bytes int64
}

// collCache holds the parts of every rank of the global schedules built.
type collCache map[collKey][]collPart

// part returns rank r's part (r a rank of the communicator of n ranks) of
// collective call c, which runs algorithm alg.
func (cc collCache) part(c *Call, alg string, n, r int) (collPart, error) {
	root := 0
	switch c.Op {
	case CallBcast, CallReduce, CallGather, CallScatter, CallGatherv, CallScatterv:
		root = int(c.Peer)
		if root < 0 || root >= n {
			return collPart{}, fmt.Errorf("%s: root %d outside the communicator's %d ranks", c.Op, root, n)
		}
	}
	switch c.Op {
	case CallAlltoallv, CallGatherv, CallScatterv:
		return localPart(c, n, r, root)
	case CallReduceScatter, CallAllgatherv:
		if len(c.Counts) != n {
			return collPart{}, fmt.Errorf("%s: %d counts for %d ranks", c.Op, len(c.Counts), n)
		}
		return countedPart(c.Op, alg, c.Counts, r), nil
	}
	most := c.Bytes // the largest message the schedule may send
	if c.Op == CallGather || c.Op == CallScatter || c.Op == CallAllgather {
		most *= int64(n)
	}
	if c.Bytes < 0 || most > 1<<30 {
		return collPart{}, fmt.Errorf("%s of %d bytes on %d ranks: messages beyond 1 GiB", c.Op, c.Bytes, n)
	}
	k := collKey{c.Op, alg, n, c.Bytes}
	parts, ok := cc[k]
	if !ok {
		parts = globalParts(c.Op, alg, n, int(c.Bytes))
		cc[k] = parts
	}
	rel := (r - root + n) % n
	p := parts[rel]
	if root != 0 {
		p.steps = slices.Clone(p.steps)
		for i := range p.steps {
			p.steps[i].dst = int32((int(p.steps[i].dst) + root) % n)
		}
	}
	return p, nil
}

// globalParts builds every rank's part of a collective whose schedule all
// ranks know alike (the root rank 0).
func globalParts(op CallOp, alg string, n, b int) []collPart {
	var s *schedule
	switch op {
	case CallAllreduce, CallBcast, CallAlltoall, CallBarrier:
		if scheduled(alg) {
			s = newSchedule(alg, n, b)
		} else {
			s = ownSchedule(op, n, b, alg == AlgPairwiseXOR)
		}
	default:
		s = treeSchedule(op, alg, n, b)
	}
	parts := make([]collPart, n)
	recv := make([]map[int16]int32, n)
	for r := range n {
		for _, st := range s.ranks[r] {
			cs := collStep{dst: st.dst, bytes: int64(st.bytes), round: st.round, need: st.need, needCount: st.needCount}
			if st.prev { // a need of the last iteration: the last instance has ended
				cs.need, cs.needCount = -1, 0
			}
			parts[r].steps = append(parts[r].steps, cs)
			if recv[st.dst] == nil {
				recv[st.dst] = map[int16]int32{}
			}
			recv[st.dst][st.round]++
		}
	}
	for r := range n {
		parts[r].recv = sortedCounts(recv[r])
	}
	return parts
}

func sortedCounts(m map[int16]int32) []roundCount {
	var out []roundCount
	for rd, c := range m {
		out = append(out, roundCount{rd, c})
	}
	slices.SortFunc(out, func(a, b roundCount) int { return int(a.round) - int(b.round) })
	return out
}

// ownSchedule writes flitsim's own algorithms of the four collective
// patterns (ring allreduce, binomial broadcast, pairwise all-to-all,
// dissemination barrier) as schedules, the messages workload.program
// computes step by step; xor pairs the all-to-all's ranks as MPICH does
// (AlgPairwiseXOR).
func ownSchedule(op CallOp, n, b int, xor bool) *schedule {
	s := &schedule{ranks: make([][]schedStep, n)}
	chain := func(r, steps int, dst func(k int) int, bytes int) {
		for k := range steps {
			st := schedStep{dst: int32(dst(k)), bytes: int32(bytes), round: int16(k), need: int16(k - 1), needCount: 1}
			if k == 0 {
				st.needCount = 0
			}
			s.add(r, st)
		}
	}
	for r := range n {
		switch op {
		case CallAllreduce:
			s.rounds = int64(2 * (n - 1))
			chain(r, 2*(n-1), func(int) int { return (r + 1) % n }, ceilDiv(b, n))
		case CallAlltoall:
			s.rounds = int64(n - 1)
			chain(r, n-1, func(k int) int { return pairwiseDst(r, k+1, n, xor) }, b)
		case CallBarrier:
			s.rounds = int64(bits.Len(uint(n - 1)))
			chain(r, bits.Len(uint(n-1)), func(k int) int { return (r + 1<<k) % n }, b)
		case CallBcast:
			s.rounds = 1
			first := true
			for m := broadcastFirst(r, n); m > 0; m >>= 1 {
				st := schedStep{dst: int32(r + m), bytes: int32(b), need: -1}
				if r > 0 && first {
					st.need, st.needCount = 0, 1
				}
				first = false
				s.add(r, st)
			}
		}
	}
	return s
}

// treeSchedule builds the trace's other collectives from rank 0:
// reduce, gather and scatter on the binomial tree of the broadcast
// (broadcastFirst), allgather by recursive doubling or around the ring.
func treeSchedule(op CallOp, alg string, n, b int) *schedule {
	s := &schedule{ranks: make([][]schedStep, n), rounds: 1}
	subtree := func(r int) int { // ranks in r's subtree, r included
		if r == 0 {
			return n
		}
		return min(r&-r, n-r)
	}
	for r := range n {
		switch op {
		case CallReduce, CallGather:
			if r == 0 {
				continue
			}
			children := int32(bits.Len(uint(broadcastFirst(r, n))))
			bytes := b
			if op == CallGather {
				bytes = b * subtree(r)
			}
			st := schedStep{dst: int32(r - r&-r), bytes: int32(bytes), need: -1}
			if children > 0 {
				st.need, st.needCount = 0, children
			}
			s.add(r, st)
		case CallScatter:
			first := true
			for m := broadcastFirst(r, n); m > 0; m >>= 1 {
				st := schedStep{dst: int32(r + m), bytes: int32(b * subtree(r+m)), need: -1}
				if r > 0 && first {
					st.need, st.needCount = 0, 1
				}
				first = false
				s.add(r, st)
			}
		case CallAllgather:
			if alg == AlgRecursiveDoubling {
				L := bits.Len(uint(n)) - 1
				s.rounds = int64(L)
				for k := range L {
					st := schedStep{dst: int32(r ^ 1<<k), bytes: int32(b << k), round: int16(k), need: int16(k - 1), needCount: 1}
					if k == 0 {
						st.needCount = 0
					}
					s.add(r, st)
				}
				continue
			}
			s.rounds = int64(n - 1)
			for k := range n - 1 {
				st := schedStep{dst: int32((r + 1) % n), bytes: int32(b), round: int16(k), need: int16(k - 1), needCount: 1}
				if k == 0 {
					st.needCount = 0
				}
				s.add(r, st)
			}
		}
	}
	return s
}

// countedPart builds rank r's part of a reduce_scatter (pairwise: in step
// k it sends rank r+k+1 that rank's block, after step k−1's block from
// r−k arrived; ring, as NCCL: in step k it sends its right neighbour the
// partial block of rank r−k−1) or an allgatherv (around the ring: in step
// k it passes on the part of rank r−k).
func countedPart(op CallOp, alg string, counts []int64, r int) collPart {
	n := len(counts)
	var p collPart
	for k := range n - 1 {
		st := collStep{round: int16(k), need: int16(k - 1), needCount: 1}
		if k == 0 {
			st.need, st.needCount = -1, 0
		}
		switch {
		case op == CallReduceScatter && alg == AlgRing:
			st.dst = int32((r + 1) % n)
			st.bytes = counts[((r-k-1)%n+n)%n]
		case op == CallReduceScatter:
			st.dst = int32((r + k + 1) % n)
			st.bytes = counts[st.dst]
		default:
			st.dst = int32((r + 1) % n)
			st.bytes = counts[((r-k)%n+n)%n]
		}
		p.steps = append(p.steps, st)
		p.recv = append(p.recv, roundCount{int16(k), 1})
	}
	return p
}

// localPart builds the collectives whose sizes each rank knows only for
// itself: alltoallv (every nonzero message posted at once, round 0, the
// rank waits for every nonzero one it receives), gatherv and scatterv
// (linear, to and from the root). Zero-byte parts send nothing, as MPICH.
func localPart(c *Call, n, r, root int) (collPart, error) {
	var p collPart
	var got int32
	switch c.Op {
	case CallAlltoallv:
		if len(c.Counts) != n || len(c.Counts2) != n {
			return p, fmt.Errorf("alltoallv: %d send and %d receive counts for %d ranks", len(c.Counts), len(c.Counts2), n)
		}
		for k := 1; k < n; k++ {
			d := (r + k) % n
			if c.Counts[d] > 0 {
				p.steps = append(p.steps, collStep{dst: int32(d), bytes: c.Counts[d], need: -1})
			}
			if c.Counts2[(r-k+n)%n] > 0 {
				got++
			}
		}
	case CallGatherv:
		if r != root {
			if c.Bytes > 0 {
				p.steps = append(p.steps, collStep{dst: int32(root), bytes: c.Bytes, need: -1})
			}
			break
		}
		if len(c.Counts2) != n {
			return p, fmt.Errorf("gatherv: %d receive counts at the root for %d ranks", len(c.Counts2), n)
		}
		for d, b := range c.Counts2 {
			if d != root && b > 0 {
				got++
			}
		}
	case CallScatterv:
		if r != root {
			if c.Bytes > 0 {
				got = 1
			}
			break
		}
		if len(c.Counts) != n {
			return p, fmt.Errorf("scatterv: %d send counts at the root for %d ranks", len(c.Counts), n)
		}
		for k := 1; k < n; k++ {
			if d := (root + k) % n; c.Counts[d] > 0 {
				p.steps = append(p.steps, collStep{dst: int32(d), bytes: c.Counts[d], need: -1})
			}
		}
	}
	if got > 0 {
		p.recv = []roundCount{{0, got}}
	}
	return p, nil
}
