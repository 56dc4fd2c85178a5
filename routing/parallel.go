package routing

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// workers returns how many goroutines share jobs units of work: one per
// processor, at most one per unit, at least one.
func workers(jobs int) int { return max(1, min(runtime.GOMAXPROCS(0), jobs)) }

// eachBlock cuts [0, n) into blocks of size block and shares them among
// w goroutines: fn(worker, lo, hi) runs for every block, blocks of one
// worker in ascending order. Callers keep per-worker state indexed by
// worker and merge it in an order-free way (sums, minima, unions), so the
// outcome does not depend on the schedule.
func eachBlock(n, block, w int, fn func(worker, lo, hi int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for worker := 0; worker < w; worker++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo := (int(next.Add(1)) - 1) * block
				if lo >= n {
					return
				}
				fn(worker, lo, min(lo+block, n))
			}
		}()
	}
	wg.Wait()
}
