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

// ftree routes fat trees that lost cables or switches, where OpenSM's
// refuses them: complete, up then down (deadlock-free on one VL), and with
// the EFI of the full tree's optimum where no failure interferes.
func TestFatTreeWithFaults(t *testing.T) {
	for _, tc := range []struct {
		spec string
		f    faults.Spec
	}{
		{"kary-ntree:k=16,n=2", faults.Spec{LinkPercent: 1}},
		{"kary-ntree:k=16,n=2", faults.Spec{LinkPercent: 10}},
		{"kary-ntree:k=16,n=2", faults.Spec{LinkPercent: 40}},
		{"kary-ntree:k=4,n=3", faults.Spec{LinkPercent: 5}},
		{"kary-ntree:k=4,n=3", faults.Spec{SwitchPercent: 10}},
		{"tsubame2", faults.Spec{LinkPercent: 4}},
		{"tsubame2", faults.Spec{MixedPercent: 4, RatioSwitches: 1, RatioLinks: 13}},
	} {
		base := build(t, tc.spec)
		for seed := uint64(1); seed <= 5; seed++ {
			f := tc.f
			f.Seed = seed
			net, _, err := faults.Inject(base, f)
			require.NoError(t, err)
			tb, err := Compute("ftree", net, Options{VLs: 1})
			require.NoError(t, err, "%s %+v", tc.spec, f)
			v, err := Verify(net, tb)
			require.NoError(t, err)
			require.True(t, v.OK(), "%s %+v: %s", tc.spec, f, v.Problem)
			require.True(t, v.DeadlockFree, "%s %+v: cycle %v", tc.spec, f, v.Cycle)
		}
	}
	// Two failed cables of 256. A leaf with 15 up-links sends 3,840 paths,
	// 256 per link at best: the leaves cut off from a destination's main
	// spine go up the least loaded of the others, so no leaf up-link carries
	// more than one 16-path destination bundle above that (OpenSM's way, up
	// the first secondary spine, piles them onto one link: 480). Down into
	// the leaf that lost a spine, 16 destinations share 15 spines, and
	// destination-based routing sends all 240 sources of a destination down
	// one spine: one link carries two bundles, 480 (SSSP: 448).
	net, _, err := faults.Inject(build(t, "kary-ntree:k=16,n=2"), faults.Spec{LinkPercent: 1, Seed: 1})
	require.NoError(t, err)
	tb, err := Compute("ftree", net, DefaultOptions())
	require.NoError(t, err)
	loads, err := ChannelLoads(net, tb)
	require.NoError(t, err)
	upMax, maxLoad := int64(0), int64(0)
	for l, lk := range net.Links {
		a, b := int(lk.A.Node), int(lk.B.Node)
		if a >= net.NumSwitches || b >= net.NumSwitches {
			continue
		}
		for dir, from := range []int{a, b} {
			maxLoad = max(maxLoad, loads[2*l+dir])
			if len(net.HCAsOf(from)) > 0 {
				upMax = max(upMax, loads[2*l+dir])
			}
		}
	}
	assert.LessOrEqual(t, upMax, int64(256+16), "leaf up-links")
	assert.Equal(t, int64(480), maxLoad, "the leaf that lost a spine")
}
