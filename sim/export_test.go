package sim

import (
	"flitsim/fabric"
	"flitsim/routing"
)

// RunReversedTies is Run with the events of equal time and phase popped in
// reverse push order, for the external tests.
func RunReversedTies(net *fabric.Network, t *routing.Tables, p Params) (*Result, error) {
	return run(net, t, p, func(s *simulator) { s.k.q.reverseTies = true })
}

// RunPrefetching is Run with the prefetch pipeline on whatever the
// fabric's size, for the external tests.
func RunPrefetching(net *fabric.Network, t *routing.Tables, p Params) (*Result, error) {
	return run(net, t, p, func(s *simulator) { s.prefetching = true })
}

// RunQueuingEveryArbitration is Run with every arbitration queued as an
// event, none run at once after its arrival (holdArb), for the external
// tests.
func RunQueuingEveryArbitration(net *fabric.Network, t *routing.Tables, p Params) (*Result, error) {
	return run(net, t, p, func(s *simulator) { s.queueAll = true })
}
