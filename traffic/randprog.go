package traffic

import (
	"fmt"
	"math/rand/v2"
)

// RandomProgram draws a correct MPI program of n ranks (n ≥ 2) from seed:
// a sequence of phases every rank runs alike, each a ring exchange of
// non-blocking messages (several per channel, waited for in a drawn
// order), a Sendrecv over a drawn permutation, a probe then a receive, or
// a collective (any of the replay's, on the world or on a half of it,
// with drawn sizes, roots and per-rank counts; a third of them
// nonblocking, waited for some phases later), with drawn computation
// between calls. The differential tests replay it in both simulators;
// its messages all match, so it ends on any network.
func RandomProgram(n int, seed uint64) *MemProgram {
	rng := rand.New(rand.NewPCG(seed, 0x7ace))
	p := &MemProgram{ID: fmt.Sprintf("random(%d,%d)", n, seed), Ranks: make([][]Call, n)}
	world := make([]int32, n)
	var even, odd []int32
	for r := range n {
		world[r] = int32(r)
		if r%2 == 0 {
			even = append(even, int32(r))
		} else {
			odd = append(odd, int32(r))
		}
	}
	p.Members = [][]int32{world, even, odd}
	half := func(r int) (int32, int) { // a rank's half communicator and its rank there
		return int32(1 + r%2), r / 2
	}
	compute := func() int64 {
		if rng.IntN(3) == 0 {
			return 0
		}
		return int64(rng.IntN(5000)) * 1000
	}
	sizes := []int64{0, 1, 8, 100, 1000, 2048, 5000, 20000}
	add := func(r int, c Call) {
		c.Compute = compute()
		p.Ranks[r] = append(p.Ranks[r], c)
	}
	// The requests of nonblocking collectives posted and not yet waited
	// for (every rank alike): waited for before a drawn later phase or at
	// the end, so that phases run beside them.
	var pending []int32
	wait := func() {
		for r := range n {
			add(r, Call{Op: CallWait, Reqs: pending})
		}
		pending = nil
	}
	for ph := range 3 + rng.IntN(6) {
		tag := int32(ph)
		if len(pending) > 0 && rng.IntN(2) == 0 {
			wait()
		}
		switch rng.IntN(5) {
		case 0: // a ring of k messages per channel, waited for in a drawn order
			k := 1 + rng.IntN(3)
			b := sizes[rng.IntN(len(sizes))]
			for r := range n {
				var reqs []int32
				for i := range k {
					add(r, Call{Op: CallIrecv, Peer: int32((r + n - 1) % n), Tag: tag, Bytes: b, Req: int32(2 * i)})
					reqs = append(reqs, int32(2*i))
				}
				for i := range k {
					add(r, Call{Op: CallIsend, Peer: int32((r + 1) % n), Tag: tag, Bytes: b + int64(i), Req: int32(2*i + 1)})
					reqs = append(reqs, int32(2*i+1))
				}
				rng.Shuffle(len(reqs), func(i, j int) { reqs[i], reqs[j] = reqs[j], reqs[i] })
				add(r, Call{Op: CallWait, Reqs: reqs})
			}
		case 1: // Sendrecv over a permutation
			perm := rng.Perm(n)
			inv := make([]int, n)
			for i, x := range perm {
				inv[x] = i
			}
			b := sizes[rng.IntN(len(sizes))]
			for r := range n {
				add(r, Call{Op: CallSendrecv, Peer: int32(perm[r]), Tag: tag, Bytes: b, Peer2: int32(inv[r]), Tag2: tag})
			}
		case 2: // pairs: one sends twice, the other probes, then receives
			b := sizes[rng.IntN(len(sizes))]
			for r := range n {
				switch {
				case r%2 == 0 && r+1 < n:
					add(r, Call{Op: CallSend, Peer: int32(r + 1), Tag: tag, Bytes: b})
					add(r, Call{Op: CallSend, Peer: int32(r + 1), Tag: tag + 100, Bytes: b / 2})
				case r%2 == 1:
					add(r, Call{Op: CallProbe, Peer: int32(r - 1), Tag: tag + 100})
					add(r, Call{Op: CallRecv, Peer: int32(r - 1), Tag: tag + 100})
					add(r, Call{Op: CallRecv, Peer: int32(r - 1), Tag: tag})
				}
			}
		default: // a collective, a third of them nonblocking
			op := CallBarrier + CallOp(rng.IntN(int(numCallOps-CallBarrier)))
			onHalf := n >= 4 && rng.IntN(2) == 0
			async := rng.IntN(3) == 0
			req := int32(1000 + ph)
			b := sizes[rng.IntN(len(sizes))]
			rootDraw := rng.Uint64()
			countSeed := rng.Uint64()
			for r := range n {
				comm, me, size := int32(0), r, n
				if onHalf {
					comm, me = half(r)
					size = len(p.Members[comm])
				}
				root := int32(rootDraw % uint64(size))
				count := func(i, j int) int64 { // bytes from rank i to rank j of the communicator
					h := HashPair(i, j) ^ countSeed
					if h%4 == 0 {
						return 0
					}
					return int64(h%7) * max(b, 1)
				}
				c := Call{Op: op, Comm: comm, Peer: root, Bytes: b}
				switch op {
				case CallAlltoallv:
					c.Counts, c.Counts2 = make([]int64, size), make([]int64, size)
					for j := range size {
						c.Counts[j], c.Counts2[j] = count(me, j), count(j, me)
					}
				case CallReduceScatter, CallAllgatherv:
					c.Counts = make([]int64, size)
					for j := range size {
						c.Counts[j] = count(j, j)
					}
				case CallGatherv:
					c.Bytes = count(me, int(root))
					if int32(me) == root {
						c.Counts2 = make([]int64, size)
						for j := range size {
							c.Counts2[j] = count(j, int(root))
						}
					}
				case CallScatterv:
					c.Bytes = count(int(root), me)
					if int32(me) == root {
						c.Counts = make([]int64, size)
						for j := range size {
							c.Counts[j] = count(int(root), j)
						}
					}
				}
				if async {
					c.Async, c.Req = true, req
				}
				add(r, c)
			}
			if async {
				pending = append(pending, req)
			}
		}
	}
	if len(pending) > 0 {
		wait()
	}
	return p
}
