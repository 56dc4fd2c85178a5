package sim_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/sim/difftest"
)

// TestPrefetchChangesNothing runs generated difftest scenarios (every
// engine, hardware and traffic kind, half of them cut into domains, on
// fabrics small enough that the pipeline is normally off) with the
// prefetch pipeline on, and requires the very same run: the whole Result
// with its trace hash. The pipeline only reads; one that wrote or read out
// of bounds would fail here, and with the race detector (cut runs go on a
// goroutine per domain) one that read another domain's state.
func TestPrefetchChangesNothing(t *testing.T) {
	sameRuns(t, func(p sim.Params) sim.Params {
		if p.Domains > 1 {
			p.Workers = p.Domains // every window on its goroutines: the same result
		}
		return p
	}, sim.RunPrefetching)
}

// sameRuns requires run, with the parameters adjust gives, to give what
// sim.Run gives on the first 500 generated difftest scenarios: the whole
// Result, deliveries and trace hash included, but wall time.
func sameRuns(t *testing.T, adjust func(sim.Params) sim.Params, run func(*fabric.Network, *routing.Tables, sim.Params) (*sim.Result, error)) {
	forScenarios(t, 500, func(seed uint64, s difftest.Scenario, b *difftest.Built) {
		p := b.Params
		p.Record, p.TraceHash = true, true
		plain, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		other, err := run(b.Net, b.Tables, adjust(p))
		require.NoError(t, err, "seed %d: %s", seed, s)
		plain.WallSeconds, plain.FlitHopsPerS, other.WallSeconds, other.FlitHopsPerS = 0, 0, 0, 0
		if !reflect.DeepEqual(plain, other) { // require.Equal would print both runs whole
			t.Fatalf("seed %d: %s: not the same run (events %d and %d, trace %s and %s)", seed, s, plain.Events, other.Events, plain.TraceHash, other.TraceHash)
		}
	})
}

// TestHeldArbitrationChangesNothing: an arbitration run at once after the
// arrival that asked for it, when nothing else is queued at that instant
// (holdArb), is the run that queues it: the whole Result, its event count
// and trace hash included, on generated difftest scenarios.
func TestHeldArbitrationChangesNothing(t *testing.T) {
	sameRuns(t, func(p sim.Params) sim.Params { return p }, sim.RunQueuingEveryArbitration)
}
