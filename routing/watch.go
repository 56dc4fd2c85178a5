package routing

// Watch is told how far a routing has come, for a progress line: what the
// engine is doing (stage, such as "destinations" or "layer 2: cycles
// cut"), and how many of that stage's total units are done (total 0: not
// known beforehand). Engines call it from their own goroutine, every
// watchEvery units and at the last unit of a stage whose total is known,
// so it must be quick; it never changes what an engine computes.
type Watch func(stage string, done, total int)

// watchEvery is how many units (destinations, paths, cuts) an engine
// does between two calls of its Watch.
const watchEvery = 256

// tell tells w, if not nil, that done of total units of stage are done;
// it passes on every watchEvery-th and the last.
func (w Watch) tell(stage string, done, total int) {
	if w != nil && (done%watchEvery == 0 || done == total) {
		w(stage, done, total)
	}
}

// progress tells the graph's watcher how far stage has come (Watch.tell).
func (g *graph) progress(stage string, done, total int) { g.watch.tell(stage, done, total) }
