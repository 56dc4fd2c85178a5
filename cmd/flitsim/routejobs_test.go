package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRouteJobs(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.toml")
	require.NoError(t, os.WriteFile(jobs, []byte("[[job]]\nid = \"a\"\nnodes = [\"h-l0-0-0\", \"h-l0-3-0\"]\n[[job]]\nsize = 12\nplacement = \"round-robin\"\n[fragmentation]\nmax_size = 8\n"), 0o644))
	code, out, errs := run("route", "kary-ntree:k=4,n=3", "--routing", "sar,dfsssp", "--jobs", jobs, "--json")
	require.Equal(t, 0, code, errs)
	var reps []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &reps))
	require.Len(t, reps, 2)
	for _, r := range reps {
		for _, k := range []string{"efi_effective_max", "efi_effective_job_mean", "dark_fiber_pct", "links_per_job_mean", "multi_switch_jobs"} {
			assert.Contains(t, r, k, r["routing"])
		}
		assert.Equal(t, true, r["deadlock_free"])
	}
	assert.Equal(t, "sar", reps[0]["routing"])

	// Mixes: the table of improvements, and its JSON.
	code, out, errs = run("route", "kary-ntree:k=4,n=3", "--routing", "sar,dfsssp,updn", "--jobs", jobs, "--mixes", "3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "3 job mixes (seeds 1-3)")
	assert.Contains(t, out, "links_per_job_mean")
	code, out, errs = run("route", "kary-ntree:k=4,n=3", "--routing", "sar,dfsssp", "--jobs", jobs, "--mixes", "2", "--mix-seed", "5", "--json")
	require.Equal(t, 0, code, errs)
	var mr mixesReport
	require.NoError(t, json.Unmarshal([]byte(out), &mr))
	require.Len(t, mr.Mixes, 2)
	assert.Equal(t, int64(5), mr.Mixes[0].Seed)
	assert.Len(t, mr.Improvements, 4, "four metrics, sar against dfsssp")

	// A job file naming a node the fabric lacks: exit 2 at its line.
	bad := filepath.Join(dir, "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[[job]]\nnodes = [\"nosuch\"]\n"), 0o644))
	code, _, errs = run("route", "kary-ntree:k=4,n=3", "--jobs", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, bad+":2: job.nodes")
}
