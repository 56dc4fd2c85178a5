package traffic

import (
	"container/heap"
	"math/rand/v2"
)

// IdealRun is what a source does on an ideal network (Ideal).
type IdealRun struct {
	// Last is each job's last delivery (ps; the whole traffic's when the
	// source has no jobs).
	Last []int64
	// Pairs counts the messages per (source, destination) terminal pair.
	Pairs map[[2]int]int
	// Sent counts the messages sent; Done reports whether every terminal
	// finished (false: some wait for a message that never comes, or limit
	// was reached).
	Sent int
	Done bool
}

// Ideal runs src on an ideal network of n terminals: a message arrives one
// wire time after its terminal starts sending it, a terminal sends its
// messages back to back, and nothing else delays anything (no contention
// in the network, no latency beyond the wire). It stops when every
// terminal is done, nothing more can happen, or limit messages were sent.
// rng gives each terminal's random stream (nil: seeded by terminal). It is
// the lower bound a job's run time on a real fabric is compared with, and
// the driver of the traffic tests.
func Ideal(src Source, n int, wire WireFunc, limit int, rng func(t int) *rand.Rand) IdealRun {
	jobs := Jobs(src)
	run := IdealRun{Last: make([]int64, max(len(jobs), 1)), Pairs: map[[2]int]int{}}
	rs := make([]*rand.Rand, n)
	for i := range rs {
		if rng != nil {
			rs[i] = rng(i)
		} else {
			rs[i] = rand.New(rand.NewPCG(uint64(i), 9))
		}
	}
	free := make([]int64, n)
	done := make([]bool, n)
	var fl flights
	var seq int64
	// poll lists the terminals that may have a message: every one at
	// first, then the destination of each delivery that woke it.
	poll := make([]int, n)
	for i := range poll {
		poll[i] = i
	}
	var now int64 // the instant of the last arrival (or wake-up) taken
	for run.Sent < limit {
		for len(poll) > 0 && run.Sent < limit {
			h := poll[0]
			poll = poll[1:]
			for !done[h] && run.Sent < limit {
				m, st := src.Next(h, now, rs[h])
				if st == Done {
					done[h] = true
				}
				if st == Later {
					heap.Push(&fl, flight{src: h, at: m.At, seq: seq, wake: true})
					seq++
				}
				if st != Ready {
					break
				}
				start := max(m.At, free[h])
				free[h] = start + wire(m.Bytes)
				heap.Push(&fl, flight{src: h, m: m, at: free[h], seq: seq})
				seq++
				run.Pairs[[2]int{h, m.Dst}]++
				run.Sent++
			}
		}
		if fl.Len() == 0 {
			break
		}
		f := heap.Pop(&fl).(flight)
		now = f.at
		if f.wake { // a terminal asked to be asked again
			poll = append(poll, f.src)
			continue
		}
		j := JobOf(src, f.src)
		if j < 0 {
			j = 0
		}
		run.Last[j] = max(run.Last[j], f.at)
		if src.Delivered(f.src, f.m, f.at) {
			poll = append(poll, f.m.Dst)
		}
	}
	run.Done = true
	for _, d := range done {
		run.Done = run.Done && d
	}
	return run
}

type flight struct {
	src  int
	m    Msg
	at   int64
	seq  int64
	wake bool // not a message: terminal src asks again at at
}

// flights is a min-heap of messages by arrival, then by sending order.
type flights []flight

func (f flights) Len() int { return len(f) }
func (f flights) Less(i, j int) bool {
	if f[i].at != f[j].at {
		return f[i].at < f[j].at
	}
	return f[i].seq < f[j].seq
}
func (f flights) Swap(i, j int) { f[i], f[j] = f[j], f[i] }
func (f *flights) Push(x any)   { *f = append(*f, x.(flight)) }
func (f *flights) Pop() any {
	old := *f
	x := old[len(old)-1]
	*f = old[:len(old)-1]
	return x
}
