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

// With PathVLs a packet keeps VL = SL over its whole path: no SL→VL
// tables, HCAs inject on the SL, the clean paths of an n-dimensional torus
// use all 2^n dateline-bit SLs (a mesh only SL 0), the tables stay
// deadlock-free, and the LFTs are those of per-hop VLs. A 3D torus has no VL
// left for detours around a failed switch; a 2D torus has four.
func TestTorus2QoSPathVLs(t *testing.T) {
	path := DefaultOptions()
	path.PathVLs = true
	for _, tc := range []struct {
		spec string
		vls  int
	}{{"torus:dims=5x5", 4}, {"torus:dims=4x4x3,hcas=192", 8}, {"mesh:dims=4x4", 1}, {"torus:dims=6", 2}} {
		net := build(t, tc.spec)
		hop, err := Compute("torus-2qos", net, DefaultOptions())
		require.NoError(t, err)
		tb, err := Compute("torus-2qos", net, path)
		require.NoError(t, err, tc.spec)
		assert.False(t, tb.HasSL2VL(), tc.spec)
		assert.Equal(t, tc.vls, tb.VLsNeeded, tc.spec)
		assert.Equal(t, tc.vls, tb.VLsUsed, tc.spec)
		for sl := uint8(0); sl < MaxVLs; sl++ {
			assert.Equal(t, sl, tb.InjectVL(sl))
		}
		used := map[uint8]bool{}
		for s := 0; s < net.NumSwitches; s++ {
			for h := net.NumSwitches; h < len(net.Nodes); h++ {
				lid := net.Nodes[h].LID
				require.Equal(t, hop.Port(s, lid), tb.Port(s, lid), "%s: LFT of %s for %s", tc.spec, net.Nodes[s].Name, net.Nodes[h].Name)
				require.Equal(t, hop.SL(s, lid), tb.SL(s, lid))
				used[tb.SL(s, lid)] = true
			}
		}
		assert.Len(t, used, tc.vls, "%s: SLs in use", tc.spec)
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.OK(), "%s: %s", tc.spec, v.Problem)
		assert.True(t, v.DeadlockFree, "%s: cycle %v", tc.spec, v.Cycle)
		assert.Equal(t, tc.vls, v.VLsUsed, tc.spec)
	}
	for _, tc := range []struct {
		spec, fail string
		ok         bool
		base       int // VLs of the clean paths, below the detours'
	}{{"torus:dims=5x5", "switch s-2-2\n", true, 4}, {"mesh:dims=4x4", "switch s-1-1\n", true, 1},
		{"torus:dims=4x4x3,hcas=192", "switch s-1-1-1\n", false, 8}} {
		fx, err := faults.ParseFixed(strings.NewReader(tc.fail), "list")
		require.NoError(t, err)
		net, _, err := faults.Inject(build(t, tc.spec), faults.Spec{Fixed: fx})
		require.NoError(t, err)
		tb, err := Compute("torus-2qos", net, path)
		if !tc.ok {
			var f *Failure
			require.ErrorAs(t, err, &f, tc.spec)
			assert.Greater(t, f.VLsNeeded, path.VLs, tc.spec)
			continue
		}
		require.NoError(t, err, tc.spec)
		assert.Greater(t, tb.VLsNeeded, tc.base, "%s: detours above the clean paths' VLs", tc.spec)
		for u := 0; u < net.NumSwitches; u++ {
			for h := net.NumSwitches; h < len(net.Nodes); h++ {
				assert.Less(t, int(tb.SL(u, net.Nodes[h].LID)), tb.VLsNeeded, "%s: SL = VL within the VLs needed", tc.spec)
			}
		}
		v, err := Verify(net, tb)
		require.NoError(t, err)
		assert.True(t, v.DeadlockFree, "%s: cycle %v", tc.spec, v.Cycle)
	}
}

// Torus-2QoS's SL→VL tables depend on the output port alone; switches
// whose tables are equal share one, counted once, and changing one switch's
// entry (SetVL) copies its table first, leaving the others as they were.
func TestSharedSL2VL(t *testing.T) {
	net := build(t, "torus:dims=4x4x4")
	tb, err := Compute("torus-2qos", net, DefaultOptions())
	require.NoError(t, err)
	r := net.Nodes[0].Radix + 1
	one := r * r * MaxVLs
	require.Less(t, tb.Bytes()-len(tb.lft)-len(tb.sl), 4*one, "64 switches share a few tables")
	// Some switch maps an SL to another VL than its number somewhere.
	s, in, out, sl := -1, 0, 0, uint8(0)
	for x := 0; x < net.NumSwitches && s < 0; x++ {
		for o := 1; o < r && s < 0; o++ {
			for l := uint8(0); l < MaxVLs; l++ {
				if tb.VL(x, 1, o, l) != l {
					s, in, out, sl = x, 1, o, l
					break
				}
			}
		}
	}
	require.GreaterOrEqual(t, s, 0)
	var sharing []int
	for x := 0; x < net.NumSwitches; x++ {
		if x != s && &tb.sl2vl[x][0] == &tb.sl2vl[s][0] {
			sharing = append(sharing, x)
		}
	}
	require.NotEmpty(t, sharing)
	was := tb.VL(s, in, out, sl)
	tb.SetVL(s, in, out, sl, was+1)
	require.Equal(t, was+1, tb.VL(s, in, out, sl))
	for _, x := range sharing {
		require.Equal(t, was, tb.VL(x, in, out, sl), "switch %d shared switch %d's table", x, s)
	}
	for i := 0; i < r; i++ { // every input port maps alike
		require.Equal(t, tb.VL(sharing[0], i, out, sl), was)
	}
}
