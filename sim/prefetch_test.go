package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

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
	forScenarios(t, 500, func(seed uint64, s difftest.Scenario, b *difftest.Built) {
		p := b.Params
		p.Record, p.TraceHash = true, true
		plain, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		if p.Domains > 1 {
			p.Workers = p.Domains // every window on its goroutines: the same result
		}
		pf, err := sim.RunPrefetching(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		plain.WallSeconds, plain.FlitHopsPerS, pf.WallSeconds, pf.FlitHopsPerS = 0, 0, 0, 0
		require.Equal(t, plain, pf, "seed %d: %s", seed, s)
	})
}

// TestHeldArbitrationChangesNothing: an arbitration run at once after the
// arrival that asked for it, when nothing else is queued at that instant
// (holdArb), is the run that queues it: the whole Result, its event count
// and trace hash included, on generated difftest scenarios.
func TestHeldArbitrationChangesNothing(t *testing.T) {
	forScenarios(t, 500, func(seed uint64, s difftest.Scenario, b *difftest.Built) {
		p := b.Params
		p.Record, p.TraceHash = true, true
		held, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		queued, err := sim.RunQueuingEveryArbitration(b.Net, b.Tables, p)
		require.NoError(t, err, "seed %d: %s", seed, s)
		held.WallSeconds, held.FlitHopsPerS, queued.WallSeconds, queued.FlitHopsPerS = 0, 0, 0, 0
		require.Equal(t, queued, held, "seed %d: %s", seed, s)
	})
}
