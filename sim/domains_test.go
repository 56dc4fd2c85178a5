package sim_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/sim"
	"flitsim/sim/difftest"
)

// Cutting a run into domains (sim/domains.go) defers what one domain's
// events do to another's nodes to the window's end, which changes which
// events are queued and so the event count and trace, never a result:
// generated difftest scenarios (every engine, hardware and traffic kind
// the generator draws that a cut allows, deliveries and counters
// recorded) run uncut and cut in two and in three, one worker each, and
// agree on everything else. The differential test checks the cut runs
// against the reference and one worker against several.
func TestCutAgreesWithUncut(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	cut := 0
	forScenarios(t, n, func(seed uint64, s difftest.Scenario, b *difftest.Built) {
		var base *sim.Result
		for _, d := range []int{1, 2, 3} {
			p := b.Params
			p.Record, p.Counters, p.Domains, p.Workers = true, true, d, 1
			r, err := sim.Run(b.Net, b.Tables, p)
			require.NoError(t, err, "seed %d: %s", seed, s)
			if d > 1 && r.Domains == 0 {
				break // jobs or adaptive routing: never cut
			}
			outcome(r)
			if base == nil {
				base = r
				continue
			}
			cut++
			require.Equal(t, base, r, "seed %d, %d domains: %s", seed, d, s)
		}
	})
	require.Greater(t, cut, n/3, "cut runs")
}
