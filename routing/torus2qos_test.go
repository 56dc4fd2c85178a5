package routing

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/faults"
)

func failLinks(t *testing.T, spec, list string) (*Tables, error) {
	t.Helper()
	fx, err := faults.ParseFixed(strings.NewReader(list), "list")
	require.NoError(t, err)
	net, _, err := faults.Inject(build(t, spec), faults.Spec{Fixed: fx})
	require.NoError(t, err)
	tb, rerr := Compute("torus-2qos", net, DefaultOptions())
	if rerr == nil {
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK(), "%s: %s", spec, v.Problem)
		assert.True(t, v.DeadlockFree, "%s with %q: cycle %v", spec, list, v.Cycle)
	}
	return tb, rerr
}

// Deadlock-free on fault-free 2D/3D tori and meshes, with 2 VLs on tori
// (datelines) and 1 on meshes.
func TestTorus2QoS(t *testing.T) {
	for _, tc := range []struct {
		spec string
		vls  int
	}{
		{"torus:dims=5x5,hcas=275,redundancy=6", 2}, {"torus:dims=3x3x3,hcas=270,redundancy=4", 2}, {"torus:dims=4x4x4", 2},
		{"torus:dims=6x5x5,hcas=150", 2}, {"torus:dims=4x4x3,hcas=192", 2}, {"mesh:dims=5x5,hcas=275,redundancy=6", 1},
		{"mesh:dims=3x3x3,hcas=270,redundancy=4", 1}, {"torus:dims=8", 2},
	} {
		tb, err := failLinks(t, tc.spec, "")
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.vls, tb.VLsNeeded, tc.spec)
		if !strings.HasPrefix(tc.spec, "mesh") {
			continue
		}
		assertShortest(t, build(t, tc.spec), tb)
	}
}

// One failed link per ring is routed around (the other way round that
// ring), deadlock-free; a second failure in the same ring fails cleanly.
func TestTorus2QoSFailures(t *testing.T) {
	_, err := failLinks(t, "torus:dims=5x5", "link s-0-0 s-1-0\nlink s-2-2 s-2-3\nlink s-4-4 s-0-4\n")
	require.NoError(t, err)
	_, err = failLinks(t, "torus:dims=4x4x4", "link s-0-0-0 s-1-0-0\nlink s-1-1-1 s-1-1-2\nlink s-3-3-0 s-3-0-0\n")
	require.NoError(t, err)
	_, err = failLinks(t, "torus:dims=5x5", "link s-0-0 s-1-0\nlink s-3-0 s-4-0\n")
	var f *Failure
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Contains(t, f.Reason, "two failed cables in the dimension-0 ring")
	// Parallel cables: losing one of two leaves the ring whole.
	_, err = failLinks(t, "torus:dims=5x5,redundancy=2", "link s-0-0 1\nlink s-1-0 2\n")
	require.NoError(t, err)
	_, err = Compute("torus-2qos", build(t, "kary-ntree:k=4,n=2"), DefaultOptions())
	require.True(t, errors.As(err, &f))
	assert.Contains(t, f.Reason, "mesh or torus")
}
