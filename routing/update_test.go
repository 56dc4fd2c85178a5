package routing

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A plain update between two Up*/Down* routings of a ring of four
// switches, rooted at opposite switches: each is deadlock-free on one VL
// (no packet passes its bottom switch), but while both are in the
// switches a packet may pass either, and the dependencies close round
// the ring. The same tables as both states change nothing.
func TestCheckUpdate(t *testing.T) {
	net := build(t, "torus:dims=4,hcas=4")
	root := func(r string) *Tables {
		o := DefaultOptions()
		o.Roots = []string{r}
		tb, err := Compute("updn", net, o)
		require.NoError(t, err)
		return tb
	}
	a, b := root(net.Nodes[0].Name), root(net.Nodes[2].Name)
	r, err := CheckUpdate(net, a, b)
	require.NoError(t, err)
	assert.True(t, r.OldDeadlockFree)
	assert.True(t, r.NewDeadlockFree)
	assert.Equal(t, 12, r.Pairs)
	assert.Greater(t, r.ChangedPairs, 0)
	assert.False(t, r.MixedDeadlockFree, "%+v", r)
	assert.Len(t, r.MixedCycle, 4, "round the ring: %v", r.MixedCycle)
	assert.False(t, r.PropertyPreserving())

	same, err := CheckUpdate(net, a, a)
	require.NoError(t, err)
	assert.Zero(t, same.ChangedPairs)
	assert.Zero(t, same.LoopDests)
	assert.True(t, same.MixedDeadlockFree)
	assert.True(t, same.PropertyPreserving())
}

// The five-phase protocol holds for the same update, whose base states
// use one VL of eight, and refuses when the base needs every VL.
func TestCheckFivePhase(t *testing.T) {
	net := build(t, "torus:dims=4,hcas=4")
	o := DefaultOptions()
	o.Roots = []string{net.Nodes[0].Name}
	a, err := Compute("updn", net, o)
	require.NoError(t, err)
	o.Roots = []string{net.Nodes[2].Name}
	b, err := Compute("updn", net, o)
	require.NoError(t, err)
	r, err := CheckUpdate(net, a, b)
	require.NoError(t, err)
	f, err := CheckFivePhase(net, a, b, 8, r)
	require.NoError(t, err)
	assert.True(t, f.Holds, f.Problem)
	assert.Equal(t, 1, f.OldVLs)
	f, err = CheckFivePhase(net, a, b, 1, r)
	require.NoError(t, err)
	assert.False(t, f.Holds)
	assert.Contains(t, f.Problem, "vls ≥ 2")
}
