package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func TestTopoInfoJSON(t *testing.T) {
	code, out, errs := run("topo", "info", "xgft:m=22,w=11,hcas=264", "--json")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for k, v := range map[string]float64{"switches": 33, "hcas": 264, "switch_links": 242, "hca_links": 264,
		"diameter": 2, "vertex_connectivity": 11, "edge_connectivity": 11} {
		assert.Equal(t, v, got[k], k)
	}
}

func TestExitCodes(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"topo", "info", "torus:dims=5x5,bogus=1"}, 2},
		{[]string{"topo", "info", "no-such-file.topo"}, 2},
		{[]string{"topo", "info"}, 2},
		{[]string{"topo", "frobnicate"}, 2},
		{[]string{"nosuchcommand"}, 2},
		{[]string{"topo", "faults", "torus:dims=5,hcas=5", "--links", "40"}, 2},
		{[]string{"topo", "faults", "torus:dims=5x5", "--links", "abc"}, 2},
		{[]string{"topo", "info", "--help"}, 0},
		{[]string{"--help"}, 0},
		{[]string{"topo", "list"}, 0},
	} {
		code, _, errs := run(tc.args...)
		assert.Equal(t, tc.code, code, "%v: %s", tc.args, errs)
	}
}

func TestBadFileNamesLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.topo")
	require.NoError(t, os.WriteFile(path, []byte("Switch 4 \"a\"\n[9]\t\"b\"[1]\n"), 0o644))
	code, _, errs := run("topo", "info", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, path+":2:")
}

func TestGenThenInfoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "df.net")
	code, _, errs := run("topo", "gen", "dragonfly:a=4,p=2,h=2,g=5", "-o", path)
	require.Equal(t, 0, code, errs)
	code, out, errs := run("topo", "info", path, "--json")
	require.Equal(t, 0, code, errs)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, float64(20), got["switches"])
	assert.Equal(t, float64(40), got["hcas"])
}

func TestFaultsJSONDeterministic(t *testing.T) {
	args := []string{"topo", "faults", "kary-ntree:k=16,n=2", "--links", "5", "--fault-seed", "9", "--json"}
	c1, o1, _ := run(args...)
	c2, o2, _ := run(args...)
	require.Equal(t, 0, c1)
	require.Equal(t, 0, c2)
	assert.Equal(t, o1, o2)
	var got struct {
		Faults struct {
			Links []any `json:"links"`
		} `json:"faults"`
	}
	require.NoError(t, json.Unmarshal([]byte(o1), &got))
	assert.Len(t, got.Faults.Links, 12)
}

// An engine that cannot route is named once in its error line, and the
// command ends with exit status 1 after the whole report.
func TestRouteFailureNamesEngineOnce(t *testing.T) {
	code, stdout, stderr := run("route", "torus:dims=4x4x4", "--routing", "lash,dfsssp", "--vls", "1")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "2 of 2 engines could not route the network: lash, dfsssp")
	out := stdout + stderr
	require.Contains(t, out, "\nlash: needs more than 1 VLs")
	require.Contains(t, out, "\ndfsssp: needs 2 VLs, 1 available")
	require.NotContains(t, out, "lash: lash:")
	require.NotContains(t, out, "dfsssp: dfsssp:")
}

// route's exit status: 0 when every engine routes, 1 when one does not
// (the others' rows still printed, in text and in JSON).
func TestRouteExitStatus(t *testing.T) {
	code, _, stderr := run("route", "kary-ntree:k=4,n=2", "--routing", "minhop,updn")
	assert.Equal(t, 0, code, stderr)
	code, stdout, stderr := run("route", "kary-ntree:k=4,n=2", "--routing", "minhop,torus-2qos")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "minhop")
	assert.Contains(t, stderr, "1 of 2 engines could not route the network: torus-2qos")
	code, stdout, _ = run("route", "kary-ntree:k=4,n=2", "--routing", "torus-2qos", "--json")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, `"ok": false`)
}

// FLITSIM_CPUPROFILE and FLITSIM_MEMPROFILE write profiles of the command
// (gzipped protocol buffers); the command's exit status passes through,
// and a profile that cannot be created is bad input.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	t.Setenv("FLITSIM_CPUPROFILE", cpu)
	t.Setenv("FLITSIM_MEMPROFILE", mem)
	assert.Equal(t, 3, profiled(func() int { return 3 }))
	for _, f := range []string{cpu, mem} {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		require.Greater(t, len(b), 2)
		assert.Equal(t, []byte{0x1f, 0x8b}, b[:2], "%s is gzipped", f)
	}
	t.Setenv("FLITSIM_CPUPROFILE", filepath.Join(dir, "no", "such", "dir", "cpu.prof"))
	ran := false
	assert.Equal(t, 2, profiled(func() int { ran = true; return 0 }))
	assert.False(t, ran, "a profile it cannot write stops the command before it runs")
}
