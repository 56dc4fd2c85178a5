package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"flitsim/configs/pipeline"

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
	var mr pipeline.MixesReport
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

func TestSimJobs(t *testing.T) {
	dir := t.TempDir()
	jobs := filepath.Join(dir, "jobs.toml")
	require.NoError(t, os.WriteFile(jobs, []byte(`[[job]]
id = "a2a"
size = 8
placement = "round-robin"
msg_bytes = "4KiB"
[[job]]
id = "noise"
size = 8
pattern = "noise"
load = 0.5
burst_on = "2us"
[[job]]
id = "pp"
size = 2
pattern = "pingpong"
iterations = 4
`), 0o644))
	code, out, errs := run("sim", "kary-ntree:k=4,n=3", "--routing", "dfsssp", "--jobs", jobs, "--json")
	require.Equal(t, 0, code, errs)
	var rep struct {
		Verdict string           `json:"verdict"`
		Jobs    []map[string]any `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "completed", rep.Verdict)
	require.Len(t, rep.Jobs, 3)
	for i, id := range []string{"a2a", "noise", "pp"} {
		j := rep.Jobs[i]
		assert.Equal(t, id, j["id"])
		assert.Contains(t, j, "throughput_gbs")
		assert.Contains(t, j, "slowdown", id)
		assert.GreaterOrEqual(t, j["slowdown"].(float64), 1.0, id)
	}
	assert.Contains(t, rep.Jobs[0], "completion_ns")
	assert.NotContains(t, rep.Jobs[1], "completion_ns", "the noise job is infinite")

	// The table, without the runs alone.
	code, out, errs = run("sim", "kary-ntree:k=4,n=3", "--jobs", jobs, "--no-slowdown")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "3 jobs of "+jobs)
	assert.Regexp(t, `(?m)^pp\s+pingpong\s+2\s+[0-9.]+\s+[0-9.]+\s+-`, out)

	// A pattern the job cannot run: exit 2 at the job's line.
	bad := filepath.Join(dir, "bad.toml")
	require.NoError(t, os.WriteFile(bad, []byte("[[job]]\nsize = 3\npattern = \"halo\"\ngrid = [2, 2]\n"), 0o644))
	code, _, errs = run("sim", "kary-ntree:k=4,n=3", "--jobs", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, bad+":4: job.grid")
	require.NoError(t, os.WriteFile(bad, []byte("[[job]]\nsize = 4\npattern = \"shift\"\ndistance = 4\n"), 0o644))
	code, _, errs = run("sim", "kary-ntree:k=4,n=3", "--jobs", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, bad+":4: job.distance")
	assert.Contains(t, errs, "onto itself")
}

// A campaign's [[job]] tables run as its traffic: the per-job results of
// a point equal those of the same point typed as sim --jobs with the jobs
// file of the same tables; the tables get per-job rows (mix jobs pooled),
// jobs.csv and per-job plots; results are identical for -j 1 and -j 2.
func TestCampaignJobs(t *testing.T) {
	dir := t.TempDir()
	workload := `
[[job]]
id = "a2a"
size = 8
placement = "round-robin"
msg_bytes = "4KiB"
iterations = 2
[[job]]
id = "noise"
size = 16
placement = "random"
pattern = "noise"
load = 0.5
[fragmentation]
utilization = 0.5
max_size = 8
pattern = "shift"
iterations = 3
`
	camp := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(camp, []byte(`name = "cjobs"
traffic_seeds = [1, 2]
[[topology]]
spec = "kary-ntree:k=4,n=3"
label = "tree"
[faults]
percent = [0, 5]
[[routing]]
engine = "dfsssp"
[[routing]]
engine = "sar"
`+workload), 0o644))
	var recs [2][]byte
	var out string
	for i, j := range []string{"1", "2"} {
		res := filepath.Join(dir, "out"+j)
		code, o, errs := run("run", camp, "-j", j, "-o", res, "-q")
		require.Equal(t, 0, code, errs)
		out = o
		var err error
		recs[i], err = os.ReadFile(filepath.Join(res, "results.jsonl"))
		require.NoError(t, err)
		for _, f := range []string{"jobs.csv", "job-tree-jobs-a2a.svg", "job-tree-jobs-noise.png", "job-tree-jobs-mix.svg"} {
			assert.FileExists(t, filepath.Join(res, f))
		}
	}
	assert.Equal(t, string(recs[0]), string(recs[1]), "results differ between -j 1 and -j 2")
	assert.Contains(t, out, "## Jobs")
	assert.Regexp(t, `\| tree \| sar \| jobs \| links \| mix \| shift \| 5 \|`, out)

	// Point 0: fault-free, traffic seed 1, dfsssp.
	var first struct {
		Traffic    string `json:"traffic"`
		JobRouting struct {
			EFIMax int `json:"efi_effective_max"`
		} `json:"job_routing"`
		Jobs []struct {
			EFI          int     `json:"efi_effective"`
			Links        int     `json:"links"`
			ID           string  `json:"id"`
			CompletionNs float64 `json:"completion_ns"`
			Throughput   float64 `json:"throughput_gbs"`
			Slowdown     float64 `json:"slowdown"`
			Mix          bool    `json:"mix"`
		} `json:"jobs"`
	}
	line, _, _ := strings.Cut(string(recs[0]), "\n")
	require.NoError(t, json.Unmarshal([]byte(line), &first))
	assert.Equal(t, "jobs", first.Traffic)
	require.Greater(t, len(first.Jobs), 2, "the mix adds jobs")
	assert.False(t, first.Jobs[0].Mix)
	assert.True(t, first.Jobs[2].Mix)
	// A job's γᵉ(I,R,j) counts its own paths on one channel; all jobs'
	// paths on the busiest channel are at least as many.
	most := 0
	for _, j := range first.Jobs {
		most = max(most, j.EFI)
	}
	assert.Positive(t, first.Jobs[0].EFI, "8 ranks round robin over the leaves cross the tree")
	assert.Positive(t, first.Jobs[0].Links)
	assert.GreaterOrEqual(t, first.JobRouting.EFIMax, most)
	assert.Contains(t, out, "## Job routing")
	jobsFile := filepath.Join(dir, "jobs.toml")
	require.NoError(t, os.WriteFile(jobsFile, []byte(workload), 0o644))
	code, o, errs := run("sim", "kary-ntree:k=4,n=3", "--routing", "dfsssp", "--jobs", jobsFile, "--jobs-seed", "1", "--json")
	require.Equal(t, 0, code, errs)
	var direct struct {
		Jobs []struct {
			ID           string  `json:"id"`
			CompletionNs float64 `json:"completion_ns"`
			Throughput   float64 `json:"throughput_gbs"`
			Slowdown     float64 `json:"slowdown"`
		} `json:"jobs"`
	}
	require.NoError(t, json.Unmarshal([]byte(o), &direct))
	require.Len(t, direct.Jobs, len(first.Jobs))
	for i, j := range direct.Jobs {
		c := first.Jobs[i]
		assert.Equal(t, j.ID, c.ID)
		assert.Equal(t, j.CompletionNs, c.CompletionNs, j.ID)
		assert.Equal(t, j.Throughput, c.Throughput, j.ID)
		assert.Equal(t, j.Slowdown, c.Slowdown, j.ID)
	}
	assert.Greater(t, first.Jobs[0].Slowdown, 1.0, "the all-to-all beside noise and the mix")
}
