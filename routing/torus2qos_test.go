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

// Every single failed switch of these tori and meshes is routed around:
// complete, deadlock-free tables, the detoured paths on VLs above the
// dateline pair, and every path that did not meet the failed switch keeps
// the SL it has in the fault-free network (Torus-2QoS's promise).
func TestTorus2QoSFailedSwitch(t *testing.T) {
	for _, spec := range []string{"torus:dims=5x5", "torus:dims=4x4x3,hcas=192", "torus:dims=7x7", "mesh:dims=4x4"} {
		base := build(t, spec)
		pristine, err := Compute("torus-2qos", base, DefaultOptions())
		require.NoError(t, err)
		for s := 0; s < base.NumSwitches; s++ {
			name := base.Nodes[s].Name
			tb, err := failLinks(t, spec, "switch "+name+"\n")
			require.NoError(t, err, "%s without %s", spec, name)
			assert.LessOrEqual(t, tb.VLsNeeded, 4, "%s without %s", spec, name)
			fx, err := faults.ParseFixed(strings.NewReader("switch "+name+"\n"), "list")
			require.NoError(t, err)
			net, _, err := faults.Inject(base, faults.Spec{Fixed: fx})
			require.NoError(t, err)
			byName := base.ByName()
			firstDetour := uint8(1 << len(base.Dims))
			for u := 0; u < net.NumSwitches; u++ {
				for h := net.NumSwitches; h < len(net.Nodes); h++ {
					lid := net.Nodes[h].LID
					if sl := tb.SL(u, lid); sl < firstDetour && len(net.HCAsOf(u)) > 0 {
						assert.Equal(t, pristine.SL(byName[net.Nodes[u].Name], lid), sl, "%s without %s: SL %s → %s", spec, name, net.Nodes[u].Name, net.Nodes[h].Name)
					}
				}
			}
		}
	}
	// Two failed switches in one ring, or a failed switch and a failed
	// cable in one ring, fail cleanly; in different rings they are routed.
	_, err := failLinks(t, "torus:dims=5x5", "switch s-1-1\nswitch s-3-1\n")
	var f *Failure
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Contains(t, f.Reason, "two failed switches in the dimension-0 ring")
	_, err = failLinks(t, "torus:dims=5x5", "switch s-1-1\nlink s-3-1 s-4-1\n")
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Contains(t, f.Reason, "a failed cable")
	_, err = failLinks(t, "torus:dims=5x5", "switch s-1-1\nswitch s-3-3\n")
	require.NoError(t, err)
	_, err = failLinks(t, "torus:dims=5x5x5", "switch s-1-1-1\nlink s-3-3-3 s-4-3-3\n")
	require.NoError(t, err)
	// With too few VLs for the detours the engine says how many it needs.
	fx, err := faults.ParseFixed(strings.NewReader("switch s-1-1\n"), "list")
	require.NoError(t, err)
	net, _, err := faults.Inject(build(t, "torus:dims=7x7"), faults.Spec{Fixed: fx})
	require.NoError(t, err)
	_, err = Compute("torus-2qos", net, Options{VLs: 2})
	require.True(t, errors.As(err, &f), "%v", err)
	assert.Equal(t, 4, f.VLsNeeded)
}
