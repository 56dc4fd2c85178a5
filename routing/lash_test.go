package routing

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// LASH as OpenSM runs it puts both directions of a switch pair on one
// layer; on the 6×6×6 torus that needs more than 8 layers (OpenSM 3.3.23:
// "Lane requirements (9) exceed available lanes (8)"), which is why the
// thesis' LASH could not route its 7×7×7 torus, while each direction on
// its own fits in 5.
func TestLASHSymmetricLayers(t *testing.T) {
	net := build(t, "torus:dims=6x6x6")
	o := DefaultOptions()
	require.Equal(t, 8, o.VLs)
	_, err := Compute("lash", net, o)
	var f *Failure
	require.True(t, errors.As(err, &f), "symmetric LASH on the 6×6×6 torus: %v", err)

	o.Asymmetric = true
	tb, err := Compute("lash", net, o)
	require.NoError(t, err)
	assert.Equal(t, 5, tb.VLsNeeded)

	// Where it routes, a pair's two directions share their SL.
	for _, spec := range []string{"torus:dims=4x4x4", "random:switches=32,hcas=128,links=64,seed=1"} {
		net := build(t, spec)
		tb, err := Compute("lash", net, DefaultOptions())
		require.NoError(t, err, spec)
		v, err := Verify(net, tb)
		require.NoError(t, err, spec)
		require.True(t, v.OK() && v.DeadlockFree, "%s: %+v", spec, v)
		lidOn := map[int]uint16{} // an HCA's LID on each switch
		for i, sw := range net.HCASwitches() {
			if _, ok := lidOn[sw]; !ok {
				lidOn[sw] = net.Nodes[net.NumSwitches+i].LID
			}
		}
		asym := 0
		for a, la := range lidOn {
			for b, lb := range lidOn {
				assert.Equal(t, tb.SL(a, lb), tb.SL(b, la), "%s: switches %d and %d", spec, a, b)
			}
		}
		tb2, err := Compute("lash", net, Options{VLs: 8, Asymmetric: true})
		require.NoError(t, err, spec)
		for a, la := range lidOn {
			for b, lb := range lidOn {
				if tb2.SL(a, lb) != tb2.SL(b, la) {
					asym++
				}
			}
		}
		assert.Positive(t, asym, "%s: each direction on its own layer should split some pair", spec)
	}
}

// After placing, LASH evens out its layers as OpenSM's does: the fullest
// and the emptiest differ by fewer than 6 directed paths, or no pair of
// the fullest fits the emptiest. On the 4×4×4 torus first fit leaves the
// five layers far apart; evened out, they are within the limit, and the
// tables stay deadlock-free with the same number of layers.
func TestLASHBalancedLayers(t *testing.T) {
	net := build(t, "torus:dims=4x4x4")
	tb, err := Compute("lash", net, DefaultOptions())
	require.NoError(t, err)
	v, err := Verify(net, tb)
	require.NoError(t, err)
	require.True(t, v.OK() && v.DeadlockFree)
	require.Equal(t, 5, tb.VLsNeeded)
	count := func(tb *Tables) []int {
		n := make([]int, tb.VLsNeeded)
		sw := net.HCASwitches()
		for i, a := range sw {
			for j, b := range sw {
				if a != b && i < j && (i == 0 || sw[i-1] != a) && (j == 0 || sw[j-1] != b) {
					n[tb.SL(a, net.Nodes[net.NumSwitches+j].LID)]++
				}
			}
		}
		return n
	}
	even := count(tb)
	lo, hi := even[0], even[0]
	for _, c := range even {
		lo, hi = min(lo, c), max(hi, c)
	}
	assert.Less(t, 2*(hi-lo), 6, "layers evened out: %v pairs", even)
	t.Logf("pairs per layer evened out: %v", even)
}
