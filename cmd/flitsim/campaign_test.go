package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/results"
	"flitsim/routing/opensm"
)

// TestMain lets the test binary act as the flitsim CLI for child-process
// tests (FLITSIM_TEST_MAIN=1).
func TestMain(m *testing.M) {
	if os.Getenv("FLITSIM_TEST_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const testCampaign = `
name = "ci"
fault_seeds = [1, 2]
[[topology]]
spec = "kary-ntree:k=8,n=2"
label = "tree"
[[topology]]
spec = "torus:dims=3x3,hcas=18"
label = "torus"
[faults]
kind = "links"
percent = [0, 10, 20]
[[routing]]
engine = "dfsssp"
[[routing]]
engine = "updn"
[[traffic]]
kind = "exchange"
msg_bytes = "%MSG%"
`

func writeCampaign(t *testing.T, msg string) string {
	path := filepath.Join(t.TempDir(), "ci.toml")
	require.NoError(t, os.WriteFile(path, []byte(strings.ReplaceAll(testCampaign, "%MSG%", msg)), 0o644))
	return path
}

// -j 1 and -j 2 give byte-identical results and tables, also when every
// point is cut into domains (with -j at GOMAXPROCS each point then runs on
// one goroutine, with -j 1 on as many as it has domains).
func TestRunDeterministicAcrossWorkers(t *testing.T) {
	for _, extra := range []string{"", "[sim]\ndomains = 2\n"} {
		camp := writeCampaign(t, "2MTU")
		if extra != "" {
			text, err := os.ReadFile(camp)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(camp, append(text, extra...), 0o644))
		}
		var files [2]map[string][]byte
		for i, j := range []string{"1", "2"} {
			dir := filepath.Join(t.TempDir(), "out")
			code, out, errs := run("run", camp, "-j", j, "-o", dir, "-q")
			require.Equal(t, 0, code, errs)
			assert.Contains(t, out, "## Throughput degradation")
			files[i] = map[string][]byte{}
			for _, f := range []string{"results.jsonl", "table.md", "table.csv", "levels.csv", "report.json", "throughput-tree-exchange.svg"} {
				data, err := os.ReadFile(filepath.Join(dir, f))
				require.NoError(t, err, f)
				files[i][f] = data
			}
		}
		for f, data := range files[0] {
			assert.True(t, bytes.Equal(data, files[1][f]), "%q: %s differs between -j 1 and -j 2", extra, f)
		}
	}
}

// The embedded fig6-2 campaign reproduces what seeds/001 says of Fig. 6.2
// (4x4x3 torus, one failed switch, 4 VLs, exchange of 2 KiB): Torus-2QoS
// gives the highest throughput within the VL limit of the engines the
// thesis compares with Nue; DFSSSP needs more than 4 VLs; Up*/Down* falls
// well behind Torus-2QoS and LASH behind it ("inefficient in comparison";
// with its layers evened out as OpenSM's, 76 % of Torus-2QoS, above
// DFSSSP on 8 VLs, where the thesis has DFSSSP in between: not
// reproduced, docs/validation.md); Nue gains with layers, and on one
// layer it ties with Up*/Down* (the thesis has Up*/Down* slightly ahead).
// Nue's layers hold about equal numbers of destinations since 2026-11-30
// (before, its partitioning dealt them unevenly and Nue on four layers
// passed Torus-2QoS); it stays below Torus-2QoS but competitive, and gains
// from one layer to two and from two to three or four (three and four
// within 10 % of each other, either ahead as the cables vary:
// docs/validation.md). The campaign runs the thesis' Nue (relieve =
// false).
func TestFig62(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := run("run", "fig6-2", "-j", "2", "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	recs, err := results.ReadDir(dir)
	require.NoError(t, err)
	thr := map[string]float64{}
	for _, r := range recs {
		require.Equal(t, 188, r.HCAs, "one switch and its four HCAs failed")
		if r.Verdict == "completed" {
			thr[r.Routing] = r.ThroughputGBs
		}
		if r.Routing == "dfsssp-4vl" {
			assert.False(t, r.RoutingOK)
			assert.Greater(t, r.VLsNeeded, 4)
		}
	}
	for name, x := range thr {
		if name != "dfsssp-8vl" && name != "torus-2qos-4vl" {
			assert.Less(t, x, thr["torus-2qos-4vl"], name)
		}
	}
	assert.Greater(t, thr["nue-4vl-no-relieve"], 0.85*thr["torus-2qos-4vl"], "Nue competitive")
	assert.Less(t, thr["updn"], 0.7*thr["torus-2qos-4vl"])
	assert.Less(t, thr["lash-4vl"], 0.85*thr["torus-2qos-4vl"])
	assert.InEpsilon(t, thr["updn"], thr["nue-1vl-no-relieve"], 0.05, "a tie on one layer")
	assert.Greater(t, thr["nue-2vl-no-relieve"], 1.3*thr["nue-1vl-no-relieve"])
	assert.Greater(t, thr["nue-3vl-no-relieve"], 1.1*thr["nue-2vl-no-relieve"])
	assert.Greater(t, thr["nue-4vl-no-relieve"], 1.1*thr["nue-2vl-no-relieve"])
	assert.InEpsilon(t, thr["nue-3vl-no-relieve"], thr["nue-4vl-no-relieve"], 0.1)
}

// Killing a run with SIGKILL and running it again completes the campaign
// with every point exactly once, and the result equals an uninterrupted run.
func TestRunSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	camp := writeCampaign(t, "10MTU")
	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(os.Args[0], "run", camp, "-j", "1", "-o", dir)
	cmd.Env = append(os.Environ(), "FLITSIM_TEST_MAIN=1")
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	killedAt := 0
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
		if n := bytes.Count(data, []byte("\n")); n >= 4 {
			killedAt = n
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()
	require.Positive(t, killedAt, "the run produced no records in time")
	recs, err := results.ReadDir(dir)
	require.NoError(t, err)
	require.Less(t, len(recs), 24, "killed before the end")

	code, _, errs := run("run", camp, "-j", "2", "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	recs, err = results.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, recs, 24)
	for i, r := range recs {
		assert.Equal(t, i, r.Point, "every point exactly once, in order")
	}
	clean := filepath.Join(t.TempDir(), "clean")
	code, _, errs = run("run", camp, "-j", "1", "-o", clean, "-q")
	require.Equal(t, 0, code, errs)
	a, _ := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	b, _ := os.ReadFile(filepath.Join(clean, "results.jsonl"))
	assert.True(t, bytes.Equal(a, b), "resumed run equals an uninterrupted one")
	t.Logf("killed after %d records; resumed to 24", killedAt)
}

func TestCheckAndBadCampaign(t *testing.T) {
	camp := writeCampaign(t, "2MTU")
	code, out, errs := run("check", camp)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "24 points")
	bad := filepath.Join(t.TempDir(), "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("name = \"x\"\nfoo = 1\n"), 0o644))
	code, _, errs = run("check", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, bad+":2: foo: unknown key")
	code, _, errs = run("run", bad)
	assert.Equal(t, 2, code, errs)
	code, out, _ = run("run", "--list")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "quickstart")
	for _, name := range []string{"quickstart", "usability", "small", "large", "tsubame2", "deimos"} {
		code, _, errs = run("check", name)
		assert.Equal(t, 0, code, "%s: %s", name, errs)
	}
}

// opensm:<engine> works inside a campaign file.
func TestCampaignWithOpenSM(t *testing.T) {
	if err := opensm.Available(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	path := filepath.Join(t.TempDir(), "osm.toml")
	require.NoError(t, os.WriteFile(path, []byte(`
name = "osm"
[[topology]]
spec = "kary-ntree:k=4,n=2"
[faults]
percent = [0, 10]
[[routing]]
engine = "opensm:dfsssp"
[[routing]]
engine = "opensm:updn"
[[routing]]
engine = "dfsssp"
[[traffic]]
kind = "exchange"
`), 0o644))
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := run("run", path, "-o", dir, "-q", "-j", "1")
	require.Equal(t, 0, code, errs)
	recs, err := results.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, recs, 6)
	for _, r := range recs {
		assert.True(t, r.RoutingOK, "%s: %s", r.Key, r.RoutingError)
		assert.Equal(t, results.Completed, r.Verdict, r.Key)
	}
	assert.Equal(t, "opensm:dfsssp", recs[0].Routing)
}

// A results directory resumed by another flitsim than the one that ran
// its points says so on stderr and in the report: the two builds' results
// differ wherever the model changed between them.
func TestResumeByAnotherBuildWarns(t *testing.T) {
	camp := writeCampaign(t, "2MTU")
	dir := filepath.Join(t.TempDir(), "out")
	code, _, errs := run("run", camp, "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, errs, "warning")

	// Another build ran them; one point is left to run.
	recs, err := os.ReadFile(filepath.Join(dir, "results.jsonl"))
	require.NoError(t, err)
	lines := strings.SplitAfter(strings.TrimSuffix(string(recs), "\n"), "\n")
	require.Greater(t, len(lines), 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "results.jsonl"), []byte(strings.Join(lines[:len(lines)-1], "")), 0o644))
	walls, err := os.ReadFile(filepath.Join(dir, "wall.jsonl"))
	require.NoError(t, err)
	require.Contains(t, string(walls), `"build":"`+version()+`"`)
	other := strings.ReplaceAll(string(walls), `"build":"`+version()+`"`, `"build":"0.1.0 0123456789ab (go1.22)"`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wall.jsonl"), []byte(other), 0o644))

	code, _, errs = run("run", camp, "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, errs, "warning: "+dir)
	assert.Contains(t, errs, fmt.Sprintf("%d by flitsim 0.1.0 0123456789ab (go1.22)", len(lines)))
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	require.NoError(t, err)
	assert.Contains(t, string(page), "several builds: 0.1.0 0123456789ab (go1.22): ")
}
