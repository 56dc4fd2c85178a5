package pipeline

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/sim"
	"flitsim/traffic"
)

// findingsBench is one microbenchmark of seeds/004 §5.1 and what the paper
// finds for it: which of the default mode and high bias is faster, and
// whether application-aware routing comes within tol of the faster or
// fails, as the paper's does on large broadcasts, by oscillating between
// the modes.
type findingsBench struct {
	name       string
	kind       traffic.Kind
	bytes      int
	iter       int
	highWins   bool
	tol        float64 // app-aware within tol of the faster
	oscillates bool    // app-aware misses the faster by a quarter of the gap or more, switching on ≥ 10 % of its decisions
}

// TestAppAwareFindings checks seeds/004's findings in kind on a small
// dragonfly (a=4, p=2, h=2, g=9; 72 nodes), one 16-node job at a fixed
// random placement beside uniform noise at load 0.6 on 48 other nodes
// (routed ugal), three seeds per mode, medians: high bias is faster for
// small ping-pongs and barriers, the default for a large all-to-all,
// broadcast and halo3d; app-aware is within a few percent of the faster
// on the small ones and fails on the large ones as the paper's does on
// large broadcasts and sweep3d: it oscillates between the modes (§5.1;
// docs/validation.md has the measurements). FLITSIM_LONG runs the Fig. 9 setup (64 nodes on the 384-node
// Aries-like network, ten seeds).
func TestAppAwareFindings(t *testing.T) {
	topo, size, noise, seeds := "dragonfly:a=4,p=2,h=2,g=9", 16, 48, 3
	if os.Getenv("FLITSIM_LONG") != "" {
		topo, size, noise, seeds = "aries:groups=3,h=1,hcas=384", 64, 256, 10
	}
	net, err := fabric.Build(topo)
	require.NoError(t, err)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(net.NumHCAs())
	p := sim.DefaultParams()
	p.HW.PCIeGbps, p.HW.HiccupPs = 128, 0 // Aries NICs: x16 PCIe Gen3, no IB-model hiccups
	noiseJob := traffic.Job{ID: "noise", Ranks: perm[size : size+noise], Routing: "ugal",
		Traffic: traffic.JobTraffic{Kind: traffic.Noise, MessageBytes: 4096, Load: 0.6}}
	benches := []findingsBench{
		{"pingpong-8B", traffic.PingPong, 8, 50, true, 0.03, false},
		{"barrier", traffic.Barrier, 8, 20, true, 0.03, false},
		{"alltoall-64KiB", traffic.Exchange, 64 << 10, 1, false, 0, true},
		{"broadcast-1MiB", traffic.Broadcast, 1 << 20, 1, false, 0, true},
		{"halo3d-64KiB", traffic.Halo3D, 64 << 10, 5, false, 0, true},
	}
	for _, b := range benches {
		t.Run(b.name, func(t *testing.T) {
			job := traffic.Job{ID: b.name, Ranks: perm[:size],
				Traffic: traffic.JobTraffic{Kind: b.kind, MessageBytes: b.bytes, Iterations: b.iter}}
			def := sim.AppAwareDefault(b.kind).String()
			m := Modes{Net: net, Jobs: []traffic.Job{job, noiseJob}, Modes: []string{def, "ugal-high", "app-aware"},
				Params: p, Workers: 2}
			for s := 1; s <= seeds; s++ {
				m.Seeds = append(m.Seeds, uint64(s))
			}
			runs, err := m.Run()
			require.NoError(t, err)
			sum := SummarizeModes(runs, m.Modes)
			require.Len(t, sum, 3)
			for _, s := range sum {
				require.Equal(t, seeds, s.Runs, "%s: every run completes", s.Mode)
				sw := 0.0
				if s.SwitchRate != nil {
					sw = *s.SwitchRate
				}
				t.Logf("%-10s median %9.2f µs  %.3f  latency %.3f µs  stalls %.4f  switches %.3f", s.Mode, s.CompletionNs.Median/1000,
					s.Normalized.Median, s.LatencyNs/1000, s.StallsPerFlit, sw)
			}
			dflt, high, aa := sum[0].CompletionNs.Median, sum[1].CompletionNs.Median, sum[2].CompletionNs.Median
			if b.highWins {
				require.Less(t, high, dflt, "high bias faster")
			} else {
				require.Less(t, dflt, high, "the default faster")
			}
			require.NotNil(t, sum[2].DefaultShare)
			if b.tol > 0 {
				require.LessOrEqual(t, aa, (1+b.tol)*min(dflt, high), "app-aware within %.0f %% of the faster", 100*b.tol)
			}
			if b.oscillates {
				lo, hi := min(dflt, high), max(dflt, high)
				require.Greater(t, aa, lo+(hi-lo)/4, "app-aware misses the faster by a quarter of the gap or more")
				require.NotNil(t, sum[2].SwitchRate)
				require.GreaterOrEqual(t, *sum[2].SwitchRate, 0.1, "because it oscillates")
			}
		})
	}
}

// orderStore records the order runs are saved in and holds the runs it
// was given (seed 1 of the second mode).
type orderStore struct {
	held  map[string]ModeRun
	saved []string
}

func (o *orderStore) Load(mode string, seed uint64) (ModeRun, bool, error) {
	r, ok := o.held[fmt.Sprintf("%s/%d", mode, seed)]
	return r, ok, nil
}

func (o *orderStore) Save(r ModeRun) error {
	o.saved = append(o.saved, fmt.Sprintf("%s/%d", r.Mode, r.Seed))
	return nil
}

// A comparison runs seed by seed, every mode of a seed first, so that one
// stopped early compares the modes on the seeds it has; the runs come
// back modes first, as before, the kept one among them.
func TestModesRunSeedBySeed(t *testing.T) {
	net, err := fabric.Build("dragonfly:a=4,p=2,h=2,g=9")
	require.NoError(t, err)
	p := sim.DefaultParams()
	job := traffic.Job{ID: "pp", Ranks: []int{0, 40},
		Traffic: traffic.JobTraffic{Kind: traffic.PingPong, MessageBytes: 64, Iterations: 2}}
	st := &orderStore{held: map[string]ModeRun{"ugal-high/1": {Mode: "ugal-high", Seed: 1, Verdict: "kept"}}}
	m := Modes{Net: net, Jobs: []traffic.Job{job}, Modes: []string{"ugal", "ugal-high", "min"}, Seeds: []uint64{1, 2, 3},
		Params: p, Workers: 1, Store: st}
	runs, err := m.Run()
	require.NoError(t, err)
	assert.Equal(t, []string{"ugal/1", "min/1", "ugal/2", "ugal-high/2", "min/2", "ugal/3", "ugal-high/3", "min/3"}, st.saved)
	var got []string
	for _, r := range runs {
		got = append(got, fmt.Sprintf("%s/%d", r.Mode, r.Seed))
	}
	assert.Equal(t, []string{"ugal/1", "ugal/2", "ugal/3", "ugal-high/1", "ugal-high/2", "ugal-high/3", "min/1", "min/2", "min/3"}, got)
	assert.Equal(t, "kept", runs[3].Verdict)
}
