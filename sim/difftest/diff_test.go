package difftest

import (
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"flitsim/sim"
	"flitsim/sim/reference"
)

// envInt reads an integer setting of the long runs (make difftest).
func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}

// TestDifferential runs generated scenarios (seeds FLITSIM_DIFF_FROM, …,
// 500 by default, FLITSIM_DIFF_N to change) through both simulators and
// requires the same verdict, counters and delivery instant of every
// packet, and no deadlock on tables whose channel dependency graph is
// acyclic. One scenario: go test ./sim/difftest -run 'TestDifferential/seed=17$' -v
func TestDifferential(t *testing.T) {
	from := envInt(t, "FLITSIM_DIFF_FROM", 1)
	n := envInt(t, "FLITSIM_DIFF_N", 500)
	for seed := from; seed < from+n; seed++ {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) {
			t.Parallel()
			s, b, err := Ready(Generate(uint64(seed)))
			if err != nil {
				t.Skipf("%v: %v", s, err)
			}
			check(t, s, b)
		})
	}
}

// check runs one built scenario through both simulators and fails the test
// with every difference.
func check(t *testing.T, s Scenario, b *Built) {
	t.Helper()
	checkWith(t, s, b, true)
}

// checkWith is check, which with workers also requires a run cut into
// domains to give the same result on one goroutine and on one per domain
// (every window handed over: slow under a fuzzer that runs a process per
// processor, which leaves it out).
func checkWith(t *testing.T, s Scenario, b *Built, workers bool) {
	t.Helper()
	fast, err := sim.Run(b.Net, b.Tables, b.Params)
	require.NoError(t, err, "fast: %v", s)
	ref, err := reference.Run(b.Net, b.Tables, b.Params)
	require.NoError(t, err, "reference: %v", s)
	if d := Compare(fast, ref); len(d) > 0 {
		t.Errorf("%v\n(deadlock-free tables: %v)\nfast and reference differ:\n  %s", s, b.DeadlockFree, joinLines(d))
	}
	if workers && fast.Domains > 1 {
		// A cut run's result, its event count and trace included, does not
		// depend on the goroutines that ran its domains.
		p := b.Params
		p.TraceHash, p.Workers = true, 1
		one, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "fast, one worker: %v", s)
		p.Workers = fast.Domains
		all, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "fast, %d workers: %v", fast.Domains, s)
		one.WallSeconds, one.FlitHopsPerS, all.WallSeconds, all.FlitHopsPerS = 0, 0, 0, 0
		require.Equal(t, one, all, "%v: one worker and %d differ", s, fast.Domains)
		require.Equal(t, fast.Events, one.Events, "%v", s)
		// Nor does anything but the event count and the trace depend on
		// the cut: the uncut run reports the same (its deadlock cycle
		// included, which the end of a cut run once read from the wrong
		// domain's credits).
		p.TraceHash, p.Workers, p.Domains = false, 0, 1
		uncut, err := sim.Run(b.Net, b.Tables, p)
		require.NoError(t, err, "fast, uncut: %v", s)
		if d := Compare(fast, uncut); len(d) > 0 {
			t.Errorf("%v: cut into %d domains and uncut differ:\n  %s", s, fast.Domains, joinLines(d))
		}
		require.Equal(t, uncut.DeadlockCycle, fast.DeadlockCycle, "%v: deadlock cycle, uncut and cut", s)
		require.Equal(t, uncut.SimTimeNs, fast.SimTimeNs, "%v: end instant, uncut and cut", s)
	}
	// Tables rewritten while traffic runs may deadlock whatever each
	// state's dependency graph (the mixture's is not checked here).
	if b.DeadlockFree && (b.Params.Timeline == nil || len(b.Params.Timeline.Writes) == 0) {
		for _, r := range []struct {
			name string
			res  *sim.Result
		}{{"fast", fast}, {"reference", ref}} {
			if r.res.Verdict == sim.Deadlock {
				t.Errorf("%v\n%s simulator: deadlock on tables whose channel dependency graph is acyclic (cycle %v)", s, r.name, r.res.DeadlockCycle)
			}
		}
	}
}

func joinLines(d []string) string {
	out := ""
	for i, x := range d {
		if i > 0 {
			out += "\n  "
		}
		out += x
	}
	return out
}

// FuzzDifferential lets the fuzzer steer the scenario generator; every
// scenario it finds must pass check.
func FuzzDifferential(f *testing.F) {
	for _, seed := range [][]byte{{}, {1, 2, 3, 4}, []byte("flitsim reference"), {9, 0, 0, 0, 7, 0, 0, 0, 3}} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, b, err := Ready(FromBytes(data))
		if err != nil {
			t.Skip(err)
		}
		checkWith(t, s, b, false)
	})
}
