package routing

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/faults"
)

// ftree routes every fat tree of Tables 4.2/6.1 deadlock-free and fails
// cleanly (a *Failure with a reason) on everything else.
func TestFatTreeRouting(t *testing.T) {
	for _, spec := range []string{"kary-ntree:k=16,n=2", "kary-ntree:k=16,n=2,hcas=270", "xgft:m=22,w=11,hcas=264",
		"xgft:m=22,w=11,hcas=256", "kary-ntree:k=10,n=3,hcas=1100", "kary-ntree:k=4,n=3", "xgft:m=4x3,w=2x2", "tsubame2:rail=2", "taurus"} {
		net := build(t, spec)
		tb, err := Compute("ftree", net, DefaultOptions())
		require.NoError(t, err, spec)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK() && v.DeadlockFree, "%s: %s %v", spec, v.Problem, v.Cycle)
	}
	for _, spec := range []string{"torus:dims=5x5,hcas=275,redundancy=6", "mesh:dims=3x3x3", "kautz:d=2,k=4", "dragonfly:a=4,p=2,h=2,g=5",
		"random:switches=32,hcas=256,links=256,seed=1", "deimos"} {
		_, err := Compute("ftree", build(t, spec), DefaultOptions())
		var f *Failure
		require.True(t, errors.As(err, &f), "%s: want a routing failure, got %v", spec, err)
		assert.Contains(t, f.Reason, "fat tree", spec)
	}
}

// On a full 16-ary 2-tree each leaf's 16 HCAs send 16·240 = 3,840 paths to
// HCAs on other leaves over 16 up-links, so no routing can keep the maximum
// edge forwarding index below 240; ftree reaches that optimum, on every
// up- and down-link.
func TestFatTreeOptimalEFI(t *testing.T) {
	net := build(t, "kary-ntree:k=16,n=2")
	tb, err := Compute("ftree", net, DefaultOptions())
	require.NoError(t, err)
	m, err := Measure(net, tb)
	require.NoError(t, err)
	assert.Equal(t, 240, m.EFIMax)
	assert.Equal(t, 240, m.EFIMin)
}

// ftree needs one VL; with more it deals its paths over all of them and
// stays deadlock-free, and vls = 1 keeps every path on VL 0.
func TestFatTreeSpreadsVLs(t *testing.T) {
	net := build(t, "kary-ntree:k=8,n=3")
	for _, vls := range []int{1, 4, 8} {
		tb, err := Compute("ftree", net, Options{VLs: vls})
		require.NoError(t, err)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK() && v.DeadlockFree, "vls=%d: %s", vls, v.Problem)
		assert.Equal(t, 1, tb.VLsNeeded)
		assert.Equal(t, vls, tb.VLsUsed)
		assert.Equal(t, vls, v.VLsUsed)
	}
}

// ftree survives link failures that keep the tree a tree.
func TestFatTreeWithFaults(t *testing.T) {
	base := build(t, "kary-ntree:k=4,n=3")
	for seed := uint64(1); seed <= 10; seed++ {
		net, _, err := faults.Inject(base, faults.Spec{LinkPercent: 5, Seed: seed})
		require.NoError(t, err)
		tb, err := Compute("ftree", net, DefaultOptions())
		if err != nil {
			var f *Failure
			require.True(t, errors.As(err, &f))
			continue
		}
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK() && v.DeadlockFree, "seed %d: %s", seed, v.Problem)
	}
}

// DOR is deadlock-free on meshes and cyclic on tori of 5×5 and more.
func TestDOR(t *testing.T) {
	for _, spec := range []string{"mesh:dims=5x5,hcas=275,redundancy=6", "mesh:dims=3x3x3,hcas=270,redundancy=4", "mesh:dims=4x3x2"} {
		net := build(t, spec)
		tb, err := Compute("dor", net, DefaultOptions())
		require.NoError(t, err)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK() && v.DeadlockFree, "%s: %v", spec, v.Cycle)
		assertShortest(t, net, tb)
	}
	for _, spec := range []string{"torus:dims=5x5,hcas=275,redundancy=6", "torus:dims=6x6", "torus:dims=5x5x5"} {
		net := build(t, spec)
		tb, err := Compute("dor", net, DefaultOptions())
		require.NoError(t, err)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK(), spec)
		assert.False(t, v.DeadlockFree, "%s: DOR on a torus has cyclic dependencies", spec)
		assert.NotEmpty(t, v.Cycle)
	}
}
