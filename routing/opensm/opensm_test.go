package opensm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
	"flitsim/sim"
	"flitsim/traffic"
)

// needTools skips when the InfiniBand tools are missing, except in CI,
// where .ci/run installs them and their absence is a failure.
func needTools(t *testing.T) {
	t.Helper()
	if err := Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (CI must install them)", err)
		}
		t.Skip(err)
	}
}

func build(t *testing.T, spec string) *fabric.Network {
	t.Helper()
	net, err := fabric.Build(spec)
	require.NoError(t, err)
	return net
}

// flitsim's netlists load into the real ibsim, and the real ibnetdiscover
// finds exactly the generated network (names, GUIDs, LIDs, every cable).
func TestIBSimLoadsOurNetlist(t *testing.T) {
	needTools(t)
	for _, spec := range []string{"kary-ntree:k=4,n=2", "torus:dims=3x3,redundancy=2", "dragonfly:a=3,p=2,h=1,g=4"} {
		net := build(t, spec)
		got, out, err := Discover(context.Background(), net)
		require.NoError(t, err, out)
		assert.Empty(t, fabric.Diff(net, got), "%s\n%s", spec, out)
	}
}

// A dump written by flitsim loads into OpenSM's own file engine
// (-R file -U), and OpenSM then programs and dumps the same tables.
func TestOpenSMFileEngineLoadsOurDump(t *testing.T) {
	needTools(t)
	for _, spec := range []string{"kary-ntree:k=4,n=2", "torus:dims=3x3,hcas=18"} {
		net := build(t, spec)
		ours, err := routing.Compute("sssp", net, routing.DefaultOptions())
		require.NoError(t, err)
		var buf bytes.Buffer
		require.NoError(t, routing.WriteLFTs(&buf, net, ours))
		path := filepath.Join(t.TempDir(), "ours.lfts")
		require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
		res, err := Run(context.Background(), net, Config{Engine: "file", Args: []string{"-U", path}})
		require.NoError(t, err, res.Log)
		var back bytes.Buffer
		require.NoError(t, routing.WriteLFTs(&back, net, res.Tables))
		assert.Equal(t, buf.String(), back.String(), spec)
	}
}

func TestOpenSMEngineFailureIsReported(t *testing.T) {
	needTools(t)
	// Fat-tree routing cannot route a ring.
	net := build(t, "torus:dims=5,hcas=5")
	res, err := Run(context.Background(), net, Config{Engine: "ftree", Timeout: 30e9})
	require.Error(t, err)
	var f *routing.Failure
	require.True(t, errors.As(err, &f), "%v", err)
	assert.NotEmpty(t, f.Reason)
	_ = res
}

// Issue 12: flitsim's Nue balances no worse than OpenSM's own Nue. On this
// sparse random fabric flitsim's max EFI with 2 layers was 5,080 against
// OpenSM's 4,752 before Nue tried every island, spliced islands and
// routed in rounds (now 2,912); both sides stay deadlock-free.
func TestNueNoWorseThanOpenSM(t *testing.T) {
	needTools(t)
	net := build(t, "random:switches=64,hcas=512,links=192,seed=3")
	for _, k := range []int{1, 2, 8} {
		cmp, err := Compare(net, []string{"nue"}, routing.Options{VLs: k})
		require.NoError(t, err)
		c := cmp[0]
		require.True(t, c.Flitsim.OK && c.OpenSM.OK, "k=%d: flitsim %q, OpenSM %q", k, c.Flitsim.Error, c.OpenSM.Error)
		assert.True(t, c.Flitsim.DeadlockFree && c.OpenSM.DeadlockFree, "k=%d", k)
		assert.LessOrEqual(t, c.Flitsim.EFIMax, c.OpenSM.EFIMax, "k=%d", k)
	}
}

// The cross-check of issue 7 on a small fat tree, a 3×3 torus, a 4×4×4
// torus and a random 32-switch fabric: every engine succeeds or fails on
// both sides alike; engines that are the same algorithm with the same tie
// rules give identical tables; every OpenSM table that exists loads,
// verifies and simulates.
func TestCompareWithOpenSM(t *testing.T) {
	needTools(t)
	identical := map[string]bool{"minhop": true, "dor": true, "lash": true, "updn": true}
	for _, spec := range []string{"kary-ntree:k=4,n=3", "torus:dims=3x3", "torus:dims=4x4x4", "random:switches=32,hcas=128,links=64,seed=1"} {
		net := build(t, spec)
		cmp, err := Compare(net, Engines(), routing.DefaultOptions())
		require.NoError(t, err)
		require.Len(t, cmp, 10)
		for _, c := range cmp {
			assert.Equal(t, c.Flitsim.OK, c.OpenSM.OK, "%s %s: flitsim %q, OpenSM %q", spec, c.Engine, c.Flitsim.Error, c.OpenSM.Error)
			if !c.OpenSM.OK {
				continue
			}
			if identical[c.Engine] {
				assert.Equal(t, 1.0, c.SameLFT, "%s %s: identical LFTs", spec, c.Engine)
				assert.Equal(t, c.Flitsim.EFIMax, c.OpenSM.EFIMax)
			}
			// OpenSM's LASH layers the paths between all switch pairs;
			// flitsim's those that carry HCA traffic. Where every switch has
			// HCAs the two path sets coincide, and placed alike (a pair's
			// two directions together, pairs in switch order) they need the
			// same layers.
			if c.Engine == "lash" && allSwitchesHaveHCAs(net) {
				assert.Equal(t, c.Flitsim.VLsNeeded, c.OpenSM.VLsNeeded, "%s lash VLs", spec)
			}
			// DFSSSP's and Nue's VLs are OpenSM's own, read from its log,
			// and verified deadlock-free by flitsim.
			if c.Engine == "dfsssp" || c.Engine == "nue" {
				assert.Equal(t, routing.SLsFromLog, c.OpenSM.SLSource, "%s %s", spec, c.Engine)
				assert.True(t, c.OpenSM.DeadlockFree, "%s opensm:%s with OpenSM's VLs", spec, c.Engine)
			}
			// OpenSM's tables simulate (exchange, completes or deadlocks).
			tb := c.OpenSM.tables
			p := sim.DefaultParams()
			p.Traffic = traffic.Spec{Kind: traffic.Exchange, JobTraffic: traffic.JobTraffic{MessageBytes: 256}}
			res, err := sim.Run(net, tb, p)
			require.NoError(t, err, "%s %s", spec, c.Engine)
			if c.OpenSM.DeadlockFree {
				assert.Equal(t, sim.Completed, res.Verdict, "%s opensm:%s", spec, c.Engine)
			}
		}
	}
	// OpenSM's quirk behind the dnup differences: it ranks from the
	// HCA-carrying switches and treats every channel out of a rank-0 switch
	// as down, so where every switch carries HCAs every shortest path is
	// legal and its dnup is exactly MinHop (and as cyclic on tori).
	for _, spec := range []string{"torus:dims=4x4x4", "random:switches=32,hcas=128,links=64,seed=1"} {
		net := build(t, spec)
		dnup, err := Route(context.Background(), net, "dnup", routing.DefaultOptions())
		require.NoError(t, err)
		minhop, err := routing.Compute("minhop", net, routing.DefaultOptions())
		require.NoError(t, err)
		for s := 0; s < net.NumSwitches; s++ {
			for h := net.NumSwitches; h < len(net.Nodes); h++ {
				require.Equal(t, minhop.Port(s, net.Nodes[h].LID), dnup.Port(s, net.Nodes[h].LID), "%s: opensm:dnup = minhop", spec)
			}
		}
	}
	// DFSSSP and SSSP agree within 10 % on the random fabric, VLs within one.
	net := build(t, "random:switches=32,hcas=128,links=64,seed=1")
	cmp, err := Compare(net, []string{"dfsssp", "sssp"}, routing.DefaultOptions())
	require.NoError(t, err)
	for _, c := range cmp {
		assert.InEpsilon(t, c.OpenSM.EFIMax, c.Flitsim.EFIMax, 0.1, c.Engine)
	}
	assert.InDelta(t, cmp[0].OpenSM.VLsNeeded, cmp[0].Flitsim.VLsNeeded, 1, "dfsssp VLs")
}

// OpenSM's DFSSSP on a 4×4×4 torus needs 8 VLs (ibsim offers 8); flitsim
// takes the VL of every path from its debug log, and the SLs it sets are
// the majority VL of each source switch's HCAs.
func TestOpenSMDFSSSPVLsFromLog(t *testing.T) {
	needTools(t)
	net := build(t, "torus:dims=4x4x4")
	res, err := Run(context.Background(), net, Config{Engine: "dfsssp", Args: []string{"-Q"}, Debug: true})
	require.NoError(t, err)
	// 64 switches + 64 HCAs: every ordered pair of endpoints has a VL.
	require.Len(t, res.PathVLs, 128*127)
	tb, err := Route(context.Background(), net, "dfsssp", routing.DefaultOptions())
	require.NoError(t, err)
	assert.Equal(t, routing.SLsFromLog, tb.SLSource)
	assert.Equal(t, 8, tb.VLsNeeded)
	for s := 0; s < net.NumSwitches; s++ {
		for _, h := range net.HCAsOf(s) { // one HCA per switch: no majority to take
			for d := net.NumSwitches; d < len(net.Nodes); d++ {
				if d != h {
					assert.Equal(t, res.PathVLs[[2]uint16{net.Nodes[h].LID, net.Nodes[d].LID}], tb.SL(s, net.Nodes[d].LID))
				}
			}
		}
	}
	v, err := routing.Verify(net, tb)
	require.NoError(t, err)
	assert.True(t, v.OK() && v.DeadlockFree, v.Problem)
}

func allSwitchesHaveHCAs(net *fabric.Network) bool {
	for s := 0; s < net.NumSwitches; s++ {
		if len(net.HCAsOf(s)) == 0 {
			return false
		}
	}
	return true
}

// OpenSM's Up*/Down* takes its roots through fabric.Resolver, as flitsim's
// engines and `check` do: a switch's GUID, its LID and its name give the
// same tables, and an HCA is refused as a root (issue 47: a GUID passed
// check and failed the run).
func TestOpenSMRootsByAnyReference(t *testing.T) {
	needTools(t)
	net := build(t, "kary-ntree:k=4,n=2")
	root := net.Nodes[0]
	var dumps []string
	for _, ref := range []string{root.Name, fmt.Sprintf("0x%016x", root.GUID), fmt.Sprintf("lid:%d", root.LID)} {
		o := routing.DefaultOptions()
		o.Roots = []string{ref}
		tb, err := Route(context.Background(), net, "updn", o)
		require.NoError(t, err, ref)
		var b bytes.Buffer
		require.NoError(t, routing.WriteLFTs(&b, net, tb))
		dumps = append(dumps, b.String())
	}
	assert.Equal(t, dumps[0], dumps[1], "by GUID")
	assert.Equal(t, dumps[0], dumps[2], "by LID")
	o := routing.DefaultOptions()
	o.Roots = []string{net.Nodes[net.NumSwitches].Name}
	_, err := Route(context.Background(), net, "updn", o)
	assert.ErrorContains(t, err, "is an HCA")
}
