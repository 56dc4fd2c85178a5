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
)

// cleanRun runs campaign camp uninterrupted into a fresh directory and
// returns its results file and table.
func cleanRun(t *testing.T, camp string) (recs, table []byte) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "clean")
	code, _, errs := run("run", camp, "-j", "1", "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	recs, err := os.ReadFile(filepath.Join(dir, results.ResultsFile))
	require.NoError(t, err)
	table, err = os.ReadFile(filepath.Join(dir, "table.md"))
	require.NoError(t, err)
	return recs, table
}

// requireSameAsClean checks that dir holds every point exactly once and
// the same records and table as an uninterrupted run.
func requireSameAsClean(t *testing.T, dir string, clean, cleanTable []byte) {
	t.Helper()
	recs, err := results.ReadDir(dir)
	require.NoError(t, err)
	for i, r := range recs {
		require.Equal(t, i, r.Point, "every point exactly once, in order")
	}
	got, err := os.ReadFile(filepath.Join(dir, results.ResultsFile))
	require.NoError(t, err)
	require.True(t, bytes.Equal(clean, got), "records differ from an uninterrupted run")
	table, err := os.ReadFile(filepath.Join(dir, "table.md"))
	require.NoError(t, err)
	require.Equal(t, string(cleanTable), string(table))
}

// startRun starts `flitsim run` as a child process.
func startRun(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"run"}, args...)...)
	cmd.Env = append(os.Environ(), "FLITSIM_TEST_MAIN=1")
	require.NoError(t, cmd.Start())
	return cmd
}

// waitRecords waits until dir holds at least n records (or the run ends).
func waitRecords(dir string, n int, cmd *exec.Cmd) int {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		data, _ := os.ReadFile(filepath.Join(dir, results.ResultsFile))
		if got := bytes.Count(data, []byte("\n")); got >= n {
			return got
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	return -1
}

// SIGKILL at several points of one campaign, each followed by a resume
// that is killed again, until a last resume finishes: every point exactly
// once, and records and table byte-identical to an uninterrupted run.
func TestCrashKillAndResumeRepeatedly(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	camp := writeCampaign(t, "4MTU")
	clean, cleanTable := cleanRun(t, camp)
	dir := filepath.Join(t.TempDir(), "out")
	for round, at := range []int{1, 5, 9, 14, 20} {
		jobs := fmt.Sprint(1 + round%2)
		cmd := startRun(t, camp, "-j", jobs, "-o", dir, "-q")
		got := waitRecords(dir, at, cmd)
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		t.Logf("round %d: killed with -j %s at %d records", round, jobs, got)
	}
	code, _, errs := run("run", camp, "-j", "2", "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	requireSameAsClean(t, dir, clean, cleanTable)
}

// The results file cut at every byte of its last records (a write cut
// short, or a power cut before a record's newline) resumes to exactly the
// uninterrupted run.
func TestCrashTornRecords(t *testing.T) {
	camp := writeCampaign(t, "2MTU")
	clean, cleanTable := cleanRun(t, camp)
	// Cut inside the last three records, at every 41st byte and at both
	// ends of each newline.
	start := len(clean)
	for k := 0; k < 3; k++ {
		start = bytes.LastIndexByte(clean[:start-1], '\n') + 1
	}
	var cuts []int
	for c := start; c < len(clean); c += 41 {
		cuts = append(cuts, c)
	}
	for i := start; i < len(clean); i++ {
		if clean[i] == '\n' {
			cuts = append(cuts, i, i+1)
		}
	}
	for _, c := range cuts {
		dir := filepath.Join(t.TempDir(), "cut")
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, results.ResultsFile), clean[:c], 0o644))
		code, _, errs := run("run", camp, "-j", "2", "-o", dir, "-q")
		require.Equal(t, 0, code, "cut at byte %d: %s", c, errs)
		requireSameAsClean(t, dir, clean, cleanTable)
	}
	t.Logf("%d cuts resumed to the uninterrupted run", len(cuts))
}

// Two runs never write into one directory: while one runs, another is
// refused with exit status 2 and told who holds the directory; the first
// finishes as if alone.
func TestCrashConcurrentRuns(t *testing.T) {
	camp := writeCampaign(t, "4MTU")
	clean, cleanTable := cleanRun(t, camp)
	dir := filepath.Join(t.TempDir(), "out")
	first := startRun(t, camp, "-j", "1", "-o", dir, "-q")
	require.Positive(t, waitRecords(dir, 1, first), "the first run produced no record")
	code, _, errs := run("run", camp, "-j", "2", "-o", dir, "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "in use by pid")
	assert.Contains(t, errs, fmt.Sprintf("pid %d", first.Process.Pid))
	require.NoError(t, first.Wait())
	requireSameAsClean(t, dir, clean, cleanTable)
	// Once the first has finished, the directory is free again.
	code, _, errs = run("run", camp, "-j", "2", "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	requireSameAsClean(t, dir, clean, cleanTable)
}

// Editing a file the campaign reads makes another campaign: its identity
// covers the file's contents, so old records are never mixed with new.
func TestCrashEditedInputs(t *testing.T) {
	tmp := t.TempDir()
	fabricFile := filepath.Join(tmp, "ring.net")
	code, _, errs := run("topo", "gen", "torus:dims=4,hcas=8", "-o", fabricFile)
	require.Equal(t, 0, code, errs)
	camp := filepath.Join(tmp, "edit.toml")
	require.NoError(t, os.WriteFile(camp, []byte(`
name = "edit"
fault_seeds = [1]
[[topology]]
spec = "file:ring.net"
[faults]
kind = "links"
percent = [0]
[[routing]]
engine = "dfsssp"
[[traffic]]
kind = "exchange"
`), 0o644))
	dir := filepath.Join(tmp, "out")
	code, _, errs = run("run", camp, "-o", dir, "-q")
	require.Equal(t, 0, code, errs)
	// Rename a node: the same file name, other contents.
	data, err := os.ReadFile(fabricFile)
	require.NoError(t, err)
	edited := strings.Replace(string(data), `"s-0"`, `"s-zero"`, -1)
	require.NotEqual(t, string(data), edited, "the generated netlist names its switches s-0, …")
	require.NoError(t, os.WriteFile(fabricFile, []byte(edited), 0o644))
	code, _, errs = run("run", camp, "-o", dir, "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "another campaign")
}
