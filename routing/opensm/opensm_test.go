package opensm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
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
