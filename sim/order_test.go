package sim_test

import (
	"cmp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/sim"
	"flitsim/sim/difftest"
)

// The package doc's claim that no decision at an instant depends on
// another decision at that instant, checked as a metamorphic relation:
// popping the events of equal time and phase in reverse push order may
// change when senders are woken (the event count and the trace), never a
// result. Generated difftest scenarios (every engine, hardware and traffic
// kind the generator draws, per-packet deliveries recorded, compared as
// sets) run both ways.
func TestInstantOrderIndependence(t *testing.T) {
	forScenarios(t, 1500, func(seed uint64, s difftest.Scenario, b *difftest.Built) {
		p := b.Params
		p.Record = true
		fwd, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		rev, err := sim.RunReversedTies(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		require.Equal(t, outcome(fwd), outcome(rev), "seed %d: %s", seed, s)
	})
}

// forScenarios calls fn with the generated difftest scenarios of seeds 1
// to n (100 with -short) that can run; the differential tests report the
// others.
func forScenarios(t *testing.T, n int, fn func(seed uint64, s difftest.Scenario, b *difftest.Built)) {
	if testing.Short() {
		n = 100
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		s, b, err := difftest.Ready(difftest.Generate(seed))
		if err != nil {
			continue
		}
		fn(seed, s, b)
	}
}

// outcome is r without what the order of an instant's events may change:
// the event count, the trace, the domains and wall time, and the order of
// deliveries at one instant (listed as they were processed).
func outcome(r *sim.Result) *sim.Result {
	r.Events, r.TraceHash, r.Domains, r.WallSeconds, r.FlitHopsPerS = 0, "", 0, 0, 0
	slices.SortStableFunc(r.Deliveries, func(a, b sim.Delivery) int {
		return cmp.Or(cmp.Compare(a.DonePs, b.DonePs), cmp.Compare(a.Dst, b.Dst), cmp.Compare(a.Src, b.Src), cmp.Compare(a.Seq, b.Seq))
	})
	return r
}
