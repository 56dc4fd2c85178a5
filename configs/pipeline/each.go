package pipeline

import "sync"

// each calls f(i) for every i in [0, n) on workers goroutines (at least
// one), handing the indices out in order, and tells progress (if set) of
// every call done. f writes its result into a slot of its own, so the
// outcome does not depend on the worker count.
func each(n, workers int, progress func(done, total int), f func(i int)) {
	next := make(chan int)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		done int
	)
	for range max(1, workers) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				f(i)
				mu.Lock()
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
