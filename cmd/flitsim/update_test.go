package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SAR rerouting a 4x4 torus for a changed job mix (seeds/001 §5.2.3): each
// state is deadlock-free, but while OpenSM writes the new tables a packet
// can take old hops at some switches and new ones at others, on the VL of
// its old or new SL, and those dependencies close a cycle; under the
// five-phase protocol, with the base states on VLs 0..6, the update is
// property preserving.
func TestRouteUpdate(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.toml"), filepath.Join(dir, "b.toml")
	require.NoError(t, os.WriteFile(a, []byte("seed = 1\n[[job]]\nsize = 6\nplacement = \"random\"\n[[job]]\nsize = 5\nplacement = \"random\"\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("seed = 2\n[[job]]\nsize = 8\nplacement = \"random\"\n[[job]]\nsize = 4\nplacement = \"random\"\n"), 0o644))
	args := []string{"route", "update", "torus:dims=4x4,hcas=16", "--from", "sar", "--to", "sar", "--from-jobs", a, "--to-jobs", b, "--vls", "7"}
	code, out, errs := run(append(args, "--json")...)
	require.Equal(t, 1, code, "not property preserving: %s", errs)
	var rep updateReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	p := rep.Plain
	assert.True(t, p.OldDeadlockFree)
	assert.True(t, p.NewDeadlockFree)
	assert.Equal(t, 16*15, p.Pairs)
	assert.Greater(t, p.ChangedPairs, 0)
	assert.False(t, p.MixedDeadlockFree)
	assert.NotEmpty(t, p.MixedCycle)
	assert.True(t, rep.FivePhase.Holds, rep.FivePhase.Problem)
	assert.LessOrEqual(t, rep.FivePhase.OldVLs, 7)

	// The same state twice is no update at all.
	code, out, errs = run("route", "update", "torus:dims=4x4,hcas=16", "--from", "dfsssp", "--to", "dfsssp")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "0 of 240 HCA pairs change path")
	assert.Contains(t, out, "route them with vls = 7", "DFSSSP takes all eight VLs here")

	for _, bad := range [][]string{{"--from", "sar"}, {"--from", "nosuch", "--to", "sar"}, {"--from", "sar", "--to", "sar", "--to-jobs", filepath.Join(dir, "none.toml")}, {"--from", "updn", "--to", "updn", "--to-roots", "nosuch"}, {"--from", "sar", "--to", "sar", "--data-vls", "0"}} {
		code, _, errs := run(append([]string{"route", "update", "torus:dims=4x4,hcas=16"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
	}
}
