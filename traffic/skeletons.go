package traffic

// Application skeletons (seeds/004 Fig. 10 in kind): an iteration of CG,
// MILC, a 2D FFT or a BFS level as the sequence of its communication
// phases, each phase starting at a rank once the rank has received the
// last phase's messages (MPI's program order), compute before each
// iteration (the job's compute and compute_noise). The phases are
// schedules (collectives.go) composed one after the other:
//
//	cg    halo on the 3D grid (msg_bytes per face), allreduce 8 B, allreduce 8 B
//	milc  halo on the 4D grid (msg_bytes per neighbour), allreduce 8 B
//	fft   all-to-all within each row of the 2D grid, then within each column
//	      (msg_bytes per pair, every message posted at once)
//	bfs   all-to-all-v (each pair a fixed seeded 1/4..7/4 of msg_bytes,
//	      posted at once), allreduce 8 B
//
// The allreduces run by recursive doubling (MPICH's choice for 8 bytes).

// phase is one phase of a skeleton: a schedule whose rounds start at 0,
// and per rank the round and count of the messages that end it there
// (count 0: the rank receives nothing in it, or with need consumed, what
// it receives its own steps wait for).
type phase struct {
	s   *schedule
	end []schedStep // need, needCount
}

// consumed marks a phase end whose messages the rank's own steps in the
// phase wait for.
const consumed = -2

// newSkeleton returns the schedule of an iteration of skeleton kind on n
// ranks laid on grid g, with messages of b bytes.
func newSkeleton(kind Kind, g []int, n, b int) *schedule {
	var ps []phase
	switch kind {
	case CG:
		ps = []phase{haloPhase(g, n, b), allreducePhase(n), allreducePhase(n)}
	case MILC:
		ps = []phase{haloPhase(g, n, b), allreducePhase(n)}
	case FFT:
		rows, cols := make([][]int, g[1]), make([][]int, g[0])
		for r := range n {
			x, y := r%g[0], r/g[0]
			rows[y] = append(rows[y], r)
			cols[x] = append(cols[x], r)
		}
		ps = []phase{alltoallvPhase(n, rows, func(int, int) int { return b }), alltoallvPhase(n, cols, func(int, int) int { return b })}
	case BFS:
		all := make([]int, n)
		for r := range all {
			all[r] = r
		}
		size := func(src, dst int) int {
			q := int(HashPair(src, dst) % 7) // 0..6: a quarter to seven quarters
			return max(1, b*(q+1)/4)
		}
		ps = []phase{alltoallvPhase(n, [][]int{all}, size), allreducePhase(n)}
	}
	return compose(n, ps)
}

// HashPair is a fixed hash of an ordered pair of ranks (splitmix64's
// finalizer over both).
func HashPair(a, b int) uint64 {
	x := uint64(a)<<32 ^ uint64(b) + 0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// haloPhase: every rank sends b bytes to each distinct neighbour of the
// periodic grid g and ends on receiving one message from each.
func haloPhase(g []int, n, b int) phase {
	nbrs := haloNeighbours(g)
	p := phase{s: &schedule{rounds: 1, ranks: make([][]schedStep, n)}, end: make([]schedStep, n)}
	for r := range n {
		for _, nb := range nbrs[r] {
			p.s.add(r, schedStep{dst: int32(nb), bytes: int32(b), need: -1})
		}
		p.end[r] = schedStep{need: 0, needCount: int32(len(nbrs[r]))}
	}
	return p
}

// allreducePhase: an 8-byte allreduce by recursive doubling; a rank ends
// on the message its first step waits for in the next iteration (the
// schedule's prev need).
func allreducePhase(n int) phase {
	s := &schedule{ranks: make([][]schedStep, n)}
	s.folded(AlgRecursiveDoubling, n, 8)
	p := phaseOf(s)
	for r := range p.end {
		if p.end[r].needCount == 0 {
			// An odd rank that takes a folded one's vector: its own last
			// step (handing the result back) waits for its last message.
			p.end[r] = schedStep{need: consumed}
		}
	}
	return p
}

// alltoallvPhase: within each group of ranks every member sends size(src,
// dst) bytes to every other member at once, in the order r+1, r+2, ...
// of the group, and ends on the group's other members' messages.
func alltoallvPhase(n int, groups [][]int, size func(src, dst int) int) phase {
	p := phase{s: &schedule{rounds: 1, ranks: make([][]schedStep, n)}, end: make([]schedStep, n)}
	for _, gr := range groups {
		m := len(gr)
		for i, r := range gr {
			for k := 1; k < m; k++ {
				d := gr[(i+k)%m]
				p.s.add(r, schedStep{dst: int32(d), bytes: int32(size(r, d)), need: -1})
			}
			p.end[r] = schedStep{need: 0, needCount: int32(m - 1)}
		}
	}
	return p
}

// phaseOf makes a phase of a collective's schedule, whose first step of
// every rank waits (prev) for the message that ends its last iteration.
func phaseOf(s *schedule) phase {
	p := phase{s: s, end: make([]schedStep, len(s.ranks))}
	for r, st := range s.ranks {
		if len(st) > 0 && st[0].prev {
			p.end[r] = schedStep{need: st[0].need, needCount: st[0].needCount}
			s.ranks[r][0].need, s.ranks[r][0].prev, s.ranks[r][0].needCount = -1, false, 0
		}
	}
	return p
}

// compose lays the phases one after the other: their rounds offset, the
// first step of each phase at a rank waiting also for the rank's end of
// the phase before (of the last phase of the iteration before, for the
// first phase).
func compose(n int, ps []phase) *schedule {
	out := &schedule{ranks: make([][]schedStep, n)}
	offs := make([]int16, len(ps))
	for i, p := range ps {
		offs[i] = int16(out.rounds)
		out.rounds += p.s.rounds
	}
	for r := range n {
		for i, p := range ps {
			before, prev := len(ps)-1, true
			if i > 0 {
				before, prev = i-1, false
			}
			// The end of the phase before at r, as a need (the last
			// phase before the one that has messages for r).
			endNeed, endCount := int16(-1), int32(0)
			for j, pv := 0, prev; j < len(ps); j++ {
				e := ps[before].end[r]
				if e.needCount > 0 {
					endNeed, endCount, prev = e.need+offs[before], e.needCount, pv
					break
				}
				if e.need == consumed {
					break
				}
				if before == 0 {
					before, pv = len(ps)-1, true
				} else {
					before--
				}
			}
			for k, st := range p.s.ranks[r] {
				st.round += offs[i]
				if st.need >= 0 {
					st.need += offs[i]
				}
				st.need2 = -1
				if k == 0 && endCount > 0 {
					if st.need < 0 {
						st.need, st.needCount, st.prev = endNeed, endCount, prev
					} else if !prev {
						st.need2, st.needCount2 = endNeed, endCount
					}
					// A phase starting on a need of its own in the first
					// phase needs the last iteration's end by that need's
					// chain already (it follows the others' last phase).
				}
				out.ranks[r] = append(out.ranks[r], st)
			}
		}
	}
	return out
}
