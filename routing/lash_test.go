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
