package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The quickstart campaign as a 2-task Slurm job array plus the merge job,
// on a one-node cluster brought up on localhost, gives the table of a local
// -j 1 run byte for byte; a failing array makes the wait fail. Runs in CI
// (CI is set by .ci/run) or with FLITSIM_SLURM=1, as root: it starts
// slurmctld and slurmd of its own (slurmCluster) and munged if none runs,
// and stops its daemons at the end.
func TestSlurmEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	if os.Getenv("CI") == "" && os.Getenv("FLITSIM_SLURM") == "" {
		t.Skip("brings up a Slurm cluster on this machine: set FLITSIM_SLURM=1 (root) to run it; CI runs it")
	}
	if os.Getuid() != 0 {
		t.Fatal("the Slurm end-to-end test needs root (it starts slurmctld, slurmd and munged)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	startSlurm(t, ctx)

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "flitsim")
	// Without the profile: the packages are then those the test binary was
	// built from (make test), in the build cache, where a build with it
	// compiles the standard library and every import again.
	build := exec.CommandContext(ctx, "go", "build", "-pgo=off", "-o", bin, ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	// On the cluster: 2 shards and the merge, waited for.
	dir := filepath.Join(tmp, "slurm-run")
	cmd := exec.CommandContext(ctx, bin, "slurm", "quickstart", "--tasks", "2", "--time", "0:20:00", "-o", dir, "--submit", "--wait")
	cmd.Dir = tmp
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	require.NoError(t, err, "flitsim slurm: %s\n%s", stdout.String(), stderr.String())
	t.Logf("flitsim slurm --submit --wait:\n%s", stderr.String())
	got, err := os.ReadFile(filepath.Join(dir, "table.md"))
	require.NoError(t, err)
	assert.Contains(t, stdout.String(), string(got), "--wait prints the merged table")

	// Locally, one worker.
	local := filepath.Join(tmp, "local")
	code, _, errs := run("run", "quickstart", "-j", "1", "-q", "-o", local)
	require.Equal(t, 0, code, errs)
	for _, f := range []string{"table.md", "results.jsonl", "report.json"} {
		want, err := os.ReadFile(filepath.Join(local, f))
		require.NoError(t, err)
		have, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(have), "%s: Slurm run differs from the local -j 1 run", f)
	}

	// Submitting again with everything finished runs only the merge.
	cmd = exec.CommandContext(ctx, bin, "slurm", "quickstart", "--tasks", "2", "-o", dir, "--submit", "--wait")
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "submitting only the merge")

	// from-slurm against the real cluster: a running job on this host,
	// mapped to an HCA of a fabric, becomes a jobs file that routes.
	id, err := exec.CommandContext(ctx, "sbatch", "--parsable", "-J", "flitsim-probe", "-o", filepath.Join(tmp, "probe-%j.out"), "--wrap", "sleep 600").Output()
	require.NoError(t, err)
	jobID := string(bytes.TrimSpace(id))
	defer exec.Command("scancel", jobID).Run()
	for i := 0; ; i++ {
		st, err := exec.CommandContext(ctx, "squeue", "-h", "-j", jobID, "-o", "%T").Output()
		require.NoError(t, err)
		if string(bytes.TrimSpace(st)) == "RUNNING" {
			break
		}
		require.Less(t, i, 600, "job %s never ran: %s", jobID, st)
		time.Sleep(100 * time.Millisecond)
	}
	host, err := os.Hostname()
	require.NoError(t, err)
	host, _, _ = strings.Cut(host, ".")
	hostMap := filepath.Join(tmp, "hosts.map")
	require.NoError(t, os.WriteFile(hostMap, []byte(host+" h-l0-0-0\n"), 0o644))
	jobsFile := filepath.Join(tmp, "slurm-jobs.toml")
	out, err = exec.CommandContext(ctx, bin, "jobs", "from-slurm", "--map", hostMap, "--fabric", "kary-ntree:k=4,n=2", "-o", jobsFile).CombinedOutput()
	require.NoError(t, err, "%s", out)
	data, err := os.ReadFile(jobsFile)
	require.NoError(t, err)
	assert.Contains(t, string(data), "id = \"slurm-"+jobID+"\"\nnodes = [\"h-l0-0-0\"]")
	out, err = exec.CommandContext(ctx, bin, "route", "kary-ntree:k=4,n=2", "--routing", "sar", "--jobs", jobsFile).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.NoError(t, exec.Command("scancel", jobID).Run())

	// A failing task: the merge job can never run and --wait says so.
	fail := filepath.Join(tmp, "fail")
	require.NoError(t, os.WriteFile(fail, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	cmd = exec.CommandContext(ctx, bin, "slurm", "quickstart", "--tasks", "2", "-o", filepath.Join(tmp, "failing"), "--binary", fail, "--submit", "--wait")
	out, err = cmd.CombinedOutput()
	require.Error(t, err, "%s", out)
	assert.Regexp(t, `ended CANCELLED|can never start|ended FAILED`, string(out))
}
