package angara

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/faults"
)

func torus(t testing.TB, dims string) *Torus {
	t.Helper()
	net, err := fabric.Build("torus:dims=" + dims)
	require.NoError(t, err)
	tor, err := NewTorus(net)
	require.NoError(t, err)
	return tor
}

// Desmos is the 4×2×2×2 torus of Table 1: X a ring of 4, the other three
// dimensions lines of 2 (one cable each).
func TestDesmosGeometry(t *testing.T) {
	tor := torus(t, "4x2x2x2")
	assert.Equal(t, 32, tor.N)
	assert.Equal(t, 32*2+32*3, tor.Channels(), "X: + and − per switch; Y, Z, K: one cable per switch")
	assert.Equal(t, 1, tor.Next(0, 0))  // +X
	assert.Equal(t, 3, tor.Next(0, 4))  // −X wraps
	assert.Equal(t, 4, tor.Next(0, 1))  // +Y from y = 0
	assert.Equal(t, -1, tor.Next(0, 5)) // no −Y from y = 0
	assert.Equal(t, -1, tor.Next(4, 1)) // no +Y from y = 1
	assert.Equal(t, 0, tor.Next(4, 5))  // −Y from y = 1
	assert.Equal(t, 5, tor.Distance(0, 2+4+8+16))
	assert.Equal(t, "-K", tor.DirName(7))
}

// In a 4×4 torus every out-of-order turn would close a cycle (every
// direction is reachable from every channel), so only direction order with direction
// bits routes, and a pair has two minimal routes exactly when it is half
// way round a ring in some dimension: from each switch 8 of the 15 others
// (offsets in {0, 1, 3}² but not (0, 0)) have one.
func TestUniqueShareByHand(t *testing.T) {
	tor := torus(t, "4x4")
	x := tor.Augment(UsableTurns)
	assert.Equal(t, 0, x.Added)
	share, unrouted := UniqueShare(NewGraph(tor, x, true))
	assert.Zero(t, unrouted)
	assert.InDelta(t, 8.0/15, share, 1e-12)
}

// On a torus without lines (every dimension larger than 2) Theorem 2 admits
// no out-of-order turn, however many it is asked about: channel (v, b)
// leads to a switch with a channel in every direction, and b→a is in order
// when a > b, so a ∈ B(v, b). A pair then has one minimal route unless it
// is half way round an even ring in some dimension: from each switch
// Π (d_k − [d_k even]) − 1 of the N − 1 others. This is the premise of
// docs/validation.md's floor under the paper's §4.3 figures; a torus with
// a line does admit turns.
func TestNoTurnsOnToriWithoutLines(t *testing.T) {
	for _, tc := range []struct {
		dims  string
		turns bool
	}{
		{"3x3x3", false}, {"3x4x5", false}, {"4x4x4", false}, {"8x3x6", false},
		{"3x3x3x3", false}, {"4x3x5x3", false},
		{"5x2", true}, {"5x5x2", true}, {"4x2x2x2", true},
	} {
		t.Run(tc.dims, func(t *testing.T) {
			tor := torus(t, tc.dims)
			for _, set := range []TurnSet{UsableTurns, AllTurns} {
				x := tor.Augment(set)
				if tc.turns {
					assert.Positive(t, x.Added, "set %d", set)
					continue
				}
				assert.Zero(t, x.Added, "set %d", set)
				share, unrouted := UniqueShare(NewGraph(tor, x, true))
				require.Zero(t, unrouted)
				unique := 1
				for _, f := range strings.Split(tc.dims, "x") {
					var d int
					_, err := fmt.Sscan(f, &d)
					require.NoError(t, err)
					unique *= d - (1 - d%2)
				}
				assert.InDelta(t, float64(unique-1)/float64(tor.N-1), share, 1e-12)
			}
		})
	}
}

// §4.3: over the 49 2D tori with every dimension in [2, 8], 81.6 % of the
// node pairs have a single minimal route under the Angara rules.
func TestUniqueShare2D(t *testing.T) {
	sum := 0.0
	for a := 2; a <= 8; a++ {
		for b := 2; b <= 8; b++ {
			tor := torus(t, fmt.Sprintf("%dx%d", a, b))
			share, unrouted := UniqueShare(NewGraph(tor, tor.Augment(UsableTurns), true))
			require.Zero(t, unrouted)
			sum += share
		}
	}
	assert.InDelta(t, 81.6, 100*sum/49, 0.15)
}

// TestUniqueShareLong measures the 3D and 4D averages of §4.3 (every torus
// with dimensions in [2, 8] of at most 447 switches: 339 in 3D as in the
// paper, 1,189 in 4D against its 1,173). FLITSIM_LONG=1; minutes.
func TestUniqueShareLong(t *testing.T) {
	if os.Getenv("FLITSIM_LONG") == "" {
		t.Skip("FLITSIM_LONG=1 measures the 3D and 4D shares (minutes)")
	}
	for _, nd := range []int{2, 3, 4} {
		sum, count := 0.0, 0
		dims := make([]int, nd)
		var walk func(k, prod int)
		walk = func(k, prod int) {
			if prod > 447 {
				return
			}
			if k == nd {
				s := make([]string, nd)
				for i, d := range dims {
					s[i] = fmt.Sprint(d)
				}
				tor := torus(t, strings.Join(s, "x"))
				share, unrouted := UniqueShare(NewGraph(tor, tor.Augment(UsableTurns), true))
				require.Zero(t, unrouted)
				sum += share
				count++
				return
			}
			for d := 2; d <= 8; d++ {
				dims[k] = d
				walk(k+1, prod*d)
			}
		}
		walk(0, 1)
		t.Logf("%dD: %d tori, %.1f %% of pairs with a single minimal route", nd, count, 100*sum/float64(count))
	}
}

// Every engine's routes are legal Angara routes, minimal on a torus
// without failures, and their dependencies cycle only within rings.
func TestRoutesLegalMinimalRingCycles(t *testing.T) {
	engines := map[string]func(*Torus, Options) *Routes{"dor": DOR, "bfs": BFS, "sssp": SSSP}
	for _, dims := range []string{"4x2x2x2", "3x5", "2x2x2", "4x4x3", "6x2x3"} {
		tor := torus(t, dims)
		for name, route := range engines {
			r := route(tor, Options{})
			require.Empty(t, r.Unrouted(), "%s on %s", name, dims)
			x := tor.Augment(UsableTurns)
			if name == "dor" {
				x = tor.Augment(NoTurns)
			}
			require.NoError(t, r.Verify(x), "%s on %s", name, dims)
			require.NoError(t, r.RingCycles(), "%s on %s", name, dims)
			for s := 0; s < tor.N; s++ {
				for w := 0; w < tor.N; w++ {
					h, _ := r.Hops(s, w)
					require.Equal(t, tor.Distance(s, w), len(h), "%s on %s: %d→%d %s", name, dims, s, w, r.Header(s, w))
				}
			}
		}
	}
}

// Verify and RingCycles catch what they are for.
func TestVerifyCatches(t *testing.T) {
	tor := torus(t, "4x4")
	r := DOR(tor, Options{})
	x := tor.Augment(NoTurns)
	// 0 → 5 is +X +Y; spell it +Y +X without a first step.
	r.set(0, 5, []Dir{1, 0}, false, false)
	assert.ErrorContains(t, r.Verify(x), "not allowed")
	// Routes all the way round the X rings, each +X channel followed by
	// the next: the ring's cycle is allowed …
	ring := DOR(tor, Options{})
	for s := 0; s < tor.N; s++ {
		ring.set(s, tor.Next(tor.Next(s, 0), 0), []Dir{0, 0}, false, false)
	}
	assert.NoError(t, ring.RingCycles())
	// … a cycle over two dimensions is not.
	sq := DOR(tor, Options{})
	sq.set(0, tor.Next(tor.Next(0, 0), 1), []Dir{0, 1}, false, false) // +X then +Y at 1
	sq.set(1, tor.Next(tor.Next(1, 1), 4), []Dir{1, 4}, false, false) // +Y then −X at 5
	sq.set(5, tor.Next(tor.Next(5, 4), 5), []Dir{4, 5}, false, false) // −X then −Y at 4
	sq.set(4, tor.Next(tor.Next(4, 5), 0), []Dir{5, 0}, false, false) // −Y then +X at 0
	assert.ErrorContains(t, sq.RingCycles(), "not within one ring")
}

// Table 2 of seeds/003 on the Desmos torus. The paper does not name its
// node subsets; the 2-node set is two neighbours on the X ring, the 4-node
// set the X ring at y = z = k = 0.
func TestTable2Desmos(t *testing.T) {
	tor := torus(t, "4x2x2x2")
	genetic := func(tor *Torus, o Options) *Routes {
		g := DefaultGenetic()
		g.Options, g.Seed = o, 1
		return Genetic(tor, g)
	}
	for name, route := range map[string]func(*Torus, Options) *Routes{"bfs": BFS, "sssp": SSSP, "dor": DOR, "genetic": genetic} {
		m := route(tor, Options{Nodes: []int{0, 1}}).Measure()
		assert.Equal(t, Metrics{MaxLoad: 1, MinLoad: 1, Perfect: 1, MaxHops: 1, Channels: 2}, m, name)
	}
	for name, route := range map[string]func(*Torus, Options) *Routes{"sssp": SSSP, "genetic": genetic} {
		m := route(tor, Options{Nodes: []int{0, 1, 2, 3}}).Measure()
		assert.Equal(t, Metrics{MaxLoad: 2, MinLoad: 2, Perfect: 2, MaxHops: 2, Channels: 8}, m, name+", 4 nodes")
	}
	// The paper's 8-node genetic row, 4 / 4 / 0 / 3, on x ∈ 0…3, y ∈ 0…1:
	// every one of the 24 channels carries 4 of the 56 routes' 96 hops.
	m := genetic(tor, Options{Nodes: []int{0, 1, 2, 3, 4, 5, 6, 7}}).Measure()
	assert.Equal(t, Metrics{MaxLoad: 4, MinLoad: 4, Perfect: 4, MaxHops: 3, Channels: 24}, m, "genetic, 8 nodes")

	all := SSSP(tor, Options{}).Measure()
	t.Logf("SSSP, 32 nodes: %v (paper: max γ 28, min γ 8, σ(4) 6.298, max D 5)", all)
	assert.InEpsilon(t, 28, all.MaxLoad, 0.10)
	assert.InEpsilon(t, 6.298, all.Sigma4, 0.10)
	assert.Equal(t, 5, all.MaxHops)
	assert.Equal(t, 16.0, all.Perfect, "Σ route lengths 2,560 over 160 channels")

	bfs := BFS(tor, Options{}).Measure()
	t.Logf("BFS, 32 nodes: %v (paper: max γ 48, min γ 3, σ(4) 12.254)", bfs)
	assert.Greater(t, bfs.Sigma4, all.Sigma4, "BFS balances worse than SSSP")
	dor := DOR(tor, Options{}).Measure()
	assert.Greater(t, dor.MaxLoad, all.MaxLoad, "direction order alone balances worse than SSSP")
}

// On tori with failed cables and switches the engines route every pair
// the paper's routing graph connects (detours by a first step that the
// route later turns back from included), with legal routes whose
// dependencies cycle only within rings; direction order alone routes no
// more.
func TestFaultyTori(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		net, err := fabric.Build("torus:dims=4x3x2")
		require.NoError(t, err)
		net, _, err = faults.Inject(net, faults.Spec{LinkPercent: 10, SwitchPercent: 5, TakeHCAs: true, Seed: seed})
		require.NoError(t, err)
		tor, err := NewTorus(net)
		require.NoError(t, err)
		x := tor.Augment(UsableTurns)
		c := NewCounter(NewGraph(tor, x, false))
		reachable := 0
		for s := 0; s < tor.N; s++ {
			c.From(s)
			for w := 0; w < tor.N; w++ {
				if h, _ := c.Paths(w); w != s && h >= 0 {
					reachable++
				}
			}
		}
		all := tor.N * (tor.N - 1)
		dor := DOR(tor, Options{})
		require.NoError(t, dor.Verify(tor.Augment(NoTurns)))
		for name, r := range map[string]*Routes{"bfs": BFS(tor, Options{}), "sssp": SSSP(tor, Options{}), "genetic": Genetic(tor, GeneticOptions{Seed: seed})} {
			require.NoError(t, r.Verify(x), "%s, seed %d", name, seed)
			require.NoError(t, r.RingCycles(), "%s, seed %d", name, seed)
			assert.Equal(t, all-reachable, len(r.Unrouted()), "%s, seed %d", name, seed)
		}
		assert.GreaterOrEqual(t, len(dor.Unrouted()), all-reachable, "seed %d", seed)
	}
}

// §4.2's genetic algorithm on the Desmos torus: legal routes, seeded, and
// within 10 % of Table 2's 32-node row (max γ 27, σ(4) 6.274).
func TestGeneticDesmos(t *testing.T) {
	tor := torus(t, "4x2x2x2")
	o := DefaultGenetic()
	o.Seed = 1
	r := Genetic(tor, o)
	require.Empty(t, r.Unrouted())
	require.NoError(t, r.Verify(tor.Augment(UsableTurns)))
	require.NoError(t, r.RingCycles())
	m := r.Measure()
	t.Logf("Genetic, 32 nodes: %v (paper: max γ 27, min γ 8, σ(4) 6.274, max D 5)", m)
	assert.Equal(t, 5, m.MaxHops)
	assert.InEpsilon(t, 27, m.MaxLoad, 0.10)
	assert.InEpsilon(t, 6.274, m.Sigma4, 0.10)
	again := Genetic(tor, o)
	for s := 0; s < tor.N; s++ {
		for w := 0; w < tor.N; w++ {
			require.Equal(t, r.Header(s, w), again.Header(s, w))
		}
	}
}

// The paper's second stopping rule (MinGain) ends the search at the first
// small gain: on the 2×2×8 torus it stops with a busiest channel of 71
// routes where 30 generations without gain reach SSSP's 54 (seed 1).
func TestGeneticMinGain(t *testing.T) {
	tor := torus(t, "2x2x8")
	o := DefaultGenetic()
	o.Seed = 1
	patient := Genetic(tor, o).Measure()
	o.MinGain = 0.05
	early := Genetic(tor, o).Measure()
	sssp := SSSP(tor, Options{}).Measure()
	assert.Equal(t, sssp.MaxLoad, patient.MaxLoad)
	assert.Greater(t, early.MaxLoad, patient.MaxLoad)
	assert.Greater(t, early.Sigma4, patient.Sigma4)
}
