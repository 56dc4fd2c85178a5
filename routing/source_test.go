package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/faults"
	"flitsim/routing/angara"
)

// The Angara engines' source-routed tables measure as the angara package
// measures its routes (Table 2's figures on the Desmos torus, one HCA per
// switch), and σ(k) with k = 4 is Metrics.Sigma4.
func TestSourceTablesMeasure(t *testing.T) {
	net := build(t, "torus:dims=4x2x2x2,hcas=32")
	tor, err := angara.NewTorus(net)
	require.NoError(t, err)
	for _, tc := range []struct {
		engine string
		routes *angara.Routes
	}{
		{"angara-dor", angara.DOR(tor, angara.Options{})},
		{"angara-bfs", angara.BFS(tor, angara.Options{})},
		{"angara-sssp", angara.SSSP(tor, angara.Options{})},
	} {
		t.Run(tc.engine, func(t *testing.T) {
			tb, err := Compute(tc.engine, net, Options{})
			require.NoError(t, err)
			v, err := Verify(net, tb)
			require.NoError(t, err)
			assert.True(t, v.OK(), v.Problem)
			assert.False(t, v.DeadlockFree)
			assert.True(t, v.RingCyclesOnly, "cycle %v", v.Cycle)
			assert.Equal(t, 1, v.RingVLs)
			assert.True(t, v.DeadlockFreeWith(1))
			assert.False(t, v.DeadlockFreeWith(2))
			m, err := Measure(net, tb)
			require.NoError(t, err)
			want := tc.routes.Measure()
			assert.Equal(t, want.MaxLoad, m.EFIMax)
			assert.Equal(t, want.MinLoad, m.EFIMin)
			assert.InDelta(t, want.Sigma4, m.Sigma4, 1e-9)
			assert.Equal(t, want.MaxHops, m.PathLenMax-2, "max D is the longest path's switch hops")
			s4, err := Sigma(net, tb, 4)
			require.NoError(t, err)
			assert.InDelta(t, m.Sigma4, s4, 1e-9)
			s1, err := Sigma(net, tb, 1)
			require.NoError(t, err)
			assert.Less(t, s1, s4, "the 1-norm weighs the worst channels less")
			_, err = Sigma(net, tb, 0.5)
			assert.Error(t, err)
		})
	}
}

// Verification follows the source routes: a route that ends at the wrong
// switch, or a pair without one, is reported; a route that closes a cycle
// across rings is no longer ring-only.
func TestVerifySourceRoutes(t *testing.T) {
	net := build(t, "torus:dims=4x4,hcas=16")
	tb, err := Compute("angara-dor", net, Options{})
	require.NoError(t, err)
	v, err := Verify(net, tb)
	require.NoError(t, err)
	require.True(t, v.OK())
	require.True(t, v.RingCyclesOnly)

	// s-0-0 → s-1-1 is "+X +Y"; cut it short, then remove it.
	a, b := 0, 5
	r, ok := tb.Source.Route(a, b)
	require.True(t, ok)
	require.Len(t, r, 2)
	tb.Source.Set(a, b, r[:1], "")
	v, err = Verify(net, tb)
	require.NoError(t, err)
	assert.False(t, v.Complete)
	assert.Equal(t, 1, v.Unreachable)
	assert.Contains(t, v.Problem, "has no route")

	src := NewSourceRoutes(net.NumSwitches)
	for x := 0; x < net.NumSwitches; x++ {
		for y := 0; y < net.NumSwitches; y++ {
			if r, ok := tb.Source.Route(x, y); ok && x != y && !(x == a && y == b) {
				src.Set(x, y, r, tb.Source.Header(x, y))
			}
		}
	}
	tb.Source = src
	v, err = Verify(net, tb)
	require.NoError(t, err)
	assert.Equal(t, 1, v.Unreachable)
	assert.Equal(t, 1, src.Unrouted())

	// Y before X on every route of the X = 0 column to X = 1: "+Y +X"
	// together with "+X +Y" elsewhere closes cycles across the rings.
	tb2, err := Compute("angara-dor", net, Options{})
	require.NoError(t, err)
	tor, err := angara.NewTorus(net)
	require.NoError(t, err)
	for y := 0; y < 4; y++ {
		x := y * 4 // s-0-y
		to := tor.Next(tor.Next(x, 1), 0)
		tb2.Source.Set(x, to, []uint8{tor.Ports(x, 1)[0], tor.Ports(tor.Next(x, 1), 0)[0]}, "+Y +X")
	}
	v, err = Verify(net, tb2)
	require.NoError(t, err)
	assert.True(t, v.OK(), v.Problem)
	assert.False(t, v.RingCyclesOnly, "a cycle across rings")
	assert.NotEmpty(t, v.Cycle)
}

// On a faulty torus the engines report the pairs Angara's rules cannot
// route, and verification counts the same pairs.
func TestAngaraUnroutedReported(t *testing.T) {
	base := build(t, "mesh:dims=4x4")
	for seed := uint64(1); seed <= 20; seed++ {
		net, _, err := faults.Inject(base, faults.Spec{LinkPercent: 15, Seed: seed})
		require.NoError(t, err)
		tb, err := Compute("angara-dor", net, Options{})
		require.NoError(t, err)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		if v.Complete {
			assert.Zero(t, tb.Source.Unrouted())
			continue
		}
		require.NotEmpty(t, tb.Notes)
		assert.Contains(t, tb.Notes[0], "no route under Angara's rules")
		return
	}
	t.Fatal("no faulty mesh left a pair unrouted: the test proves nothing")
}
