package sim

import (
	"flitsim/fabric"
	"flitsim/routing"
)

// Progress is how far a run has come: the instant it has simulated up
// to, its time limit (Params.MaxTime) and the events it has handled.
type Progress struct {
	Now, MaxTime int64 // ps
	Events       int64
}

// Watch is told a run's progress, for a progress line: about every
// watchEvents events (each window of a run cut into domains), from the
// run's own goroutine, so it must be quick. It never changes the run.
type Watch func(Progress)

// watchEvents is how many events a run handles between two calls of its
// Watch: about half a second of a Table 4.4 run.
const watchEvents = 1 << 22

// RunWatched is Run telling w how far the run has come.
func RunWatched(net *fabric.Network, t *routing.Tables, p Params, w Watch) (*Result, error) {
	if w == nil {
		return Run(net, t, p)
	}
	return run(net, t, p, func(s *simulator) { s.watch, s.watchAt, s.watchEvery = w, watchEvents, watchEvents })
}

// tell calls the run's watch, whose events (events so far) have reached
// watchAt, and sets the count of the next call.
func (s *simulator) tell(events int64) {
	s.watchAt = events + s.watchEvery
	s.watch(Progress{Now: s.k.now, MaxTime: s.p.MaxTime, Events: events})
}
