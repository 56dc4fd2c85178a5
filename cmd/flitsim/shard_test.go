package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/results"
)

// Running a campaign as N shards and merging them gives the results and
// tables of a local run, byte for byte, for N = 1..5; every point is in
// exactly one shard.
func TestShardsMergeToLocalRun(t *testing.T) {
	camp := writeCampaign(t, "256")
	local := filepath.Join(t.TempDir(), "local")
	code, _, errs := run("run", camp, "-j", "2", "-o", local, "-q")
	require.Equal(t, 0, code, errs)
	want := map[string][]byte{}
	for _, f := range []string{"results.jsonl", "table.md", "table.csv", "levels.csv", "report.json", campaignCopy} {
		data, err := os.ReadFile(filepath.Join(local, f))
		require.NoError(t, err)
		want[f] = data
	}
	all, err := results.ReadDir(local)
	require.NoError(t, err)
	for n := 1; n <= 5; n++ {
		base := filepath.Join(t.TempDir(), "out")
		var dirs []string
		owner := map[int]int{}
		for i := 0; i < n; i++ {
			dir := filepath.Join(base, fmt.Sprintf("shard-%d-of-%d", i, n))
			code, _, errs := run("run", camp, "--shard", fmt.Sprintf("%d/%d", i, n), "-j", "2", "-o", dir, "-q")
			require.Equal(t, 0, code, errs)
			recs, err := results.ReadDir(dir)
			require.NoError(t, err)
			for _, r := range recs {
				prev, dup := owner[r.Point]
				require.False(t, dup, "n=%d: point %d in shards %d and %d", n, r.Point, prev, i)
				owner[r.Point] = i
			}
			dirs = append(dirs, dir)
		}
		assert.Len(t, owner, len(all), "n=%d: the shards together are the campaign", n)
		code, out, errs := run(append([]string{"merge", "-q"}, dirs...)...)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, string(want["table.md"]), out)
		for f, data := range want {
			got, err := os.ReadFile(filepath.Join(base, f))
			require.NoError(t, err)
			assert.Equal(t, string(data), string(got), "n=%d: %s differs from the local run", n, f)
		}
		page, err := os.ReadFile(filepath.Join(base, results.ReportFile))
		require.NoError(t, err, "merge writes the report")
		assert.Contains(t, string(page), "<h1>Campaign ci</h1>")
		assert.Contains(t, string(page), "flitsim merge -q")
	}
}

func TestMergeRejects(t *testing.T) {
	camp := writeCampaign(t, "256")
	other := writeCampaign(t, "512") // another campaign (another hash)
	base := t.TempDir()
	shard := func(c string, i, n int, name string) string {
		dir := filepath.Join(base, name)
		code, _, errs := run("run", c, "--shard", fmt.Sprintf("%d/%d", i, n), "-j", "2", "-o", dir, "-q")
		require.Equal(t, 0, code, errs)
		return dir
	}
	a0, a1 := shard(camp, 0, 2, "a0"), shard(camp, 1, 2, "a1")
	b1 := shard(other, 1, 2, "b1")
	c1 := shard(camp, 1, 3, "c1")
	whole := filepath.Join(base, "whole")
	code, _, errs := run("run", camp, "-j", "2", "-o", whole, "-q")
	require.Equal(t, 0, code, errs)
	// A shard missing records (a killed task) is unfinished.
	partial := shard(camp, 1, 2, "partial")
	data, err := os.ReadFile(filepath.Join(partial, results.ResultsFile))
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	require.NoError(t, os.WriteFile(filepath.Join(partial, results.ResultsFile), []byte(strings.Join(lines[:3], "")), 0o644))

	for _, tc := range []struct {
		dirs []string
		want string
	}{
		{[]string{a0, b1}, "shards of different campaigns cannot be merged"},
		{[]string{a0, a0, a1}, "shard 0/2 given twice"},
		{[]string{a0}, "shard(s) 1 of 2 missing"},
		{[]string{a0, c1}, "all shards must come from one split"},
		{[]string{a0, whole}, "is not a shard directory"},
		{[]string{a0, partial}, "has 3 of"},
	} {
		code, _, errs := run(append([]string{"merge", "-o", filepath.Join(base, "merged")}, tc.dirs...)...)
		assert.Equal(t, 2, code, "%v", tc.dirs)
		assert.Contains(t, errs, tc.want, "%v", tc.dirs)
	}
	// A record moved into the wrong shard is foreign to it.
	wrong := shard(camp, 0, 2, "wrong")
	rec0, err := os.ReadFile(filepath.Join(a1, results.ResultsFile))
	require.NoError(t, err)
	f, err := os.OpenFile(filepath.Join(wrong, results.ResultsFile), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte(strings.SplitAfter(string(rec0), "\n")[0]))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	code, _, errs = run("merge", "-o", filepath.Join(base, "merged"), wrong, a1)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "does not belong to shard 0/2")

	// A shard directory refuses another campaign, another split and a whole run.
	code, _, errs = run("run", other, "--shard", "0/2", "-o", a0, "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "choose another -o")
	code, _, errs = run("run", camp, "-o", a0, "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "holds a shard")
	code, _, errs = run("run", camp, "--shard", "2/2", "-q")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "0 ≤ I < N")
}

// The batch scripts: array range, the shard command, the merge of every
// shard; missing shards only on a resubmission.
func TestSlurmScripts(t *testing.T) {
	j := slurmJob{Binary: "/s/flitsim", Campaign: "/c/my camp.toml", Name: "c", Dir: "/o", Workdir: "/w", Tasks: 4,
		Missing: []int{0, 1, 2, 3}, Partition: "batch", Time: "1:00:00", CPUsPerTask: 2}
	a := j.arrayScript()
	assert.Contains(t, a, "#SBATCH --array=0-3\n")
	assert.Contains(t, a, "#SBATCH --partition=batch\n")
	assert.Contains(t, a, "#SBATCH --time=1:00:00\n")
	assert.Contains(t, a, "#SBATCH --cpus-per-task=2\n")
	assert.Contains(t, a, `exec /s/flitsim run '/c/my camp.toml' --shard "${SLURM_ARRAY_TASK_ID}/4" -j "${SLURM_CPUS_PER_TASK:-1}" -q -o /o/shard-"${SLURM_ARRAY_TASK_ID}"-of-4`)
	m := j.mergeScript()
	assert.Contains(t, m, "exec /s/flitsim merge -o /o /o/shard-0-of-4 /o/shard-1-of-4 /o/shard-2-of-4 /o/shard-3-of-4\n")
	assert.NotContains(t, m, "--array")
	assert.Equal(t, "1,3-5,9", arrayRange([]int{1, 3, 4, 5, 9}))
	assert.Equal(t, "0", arrayRange([]int{0}))
	assert.Equal(t, `'it'\''s'`, shellQuote("it's"))

	// Printing (no --submit) shows both scripts; a finished shard is left out.
	camp := writeCampaign(t, "256")
	out := t.TempDir()
	code, _, errs := run("run", camp, "--shard", "1/3", "-o", filepath.Join(out, "shard-1-of-3"), "-q")
	require.Equal(t, 0, code, errs)
	code, script, errs := run("slurm", camp, "--tasks", "3", "-o", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, script, "#SBATCH --array=0,2\n")
	assert.Contains(t, script, "merge -o "+out)
	for _, bad := range [][]string{{"slurm", camp}, {"slurm", camp, "--tasks", "0"}, {"slurm", camp, "--tasks", "2", "--wait"}, {"slurm", camp, "--tasks", "1000"}, {"slurm", camp, "--tasks", "2", "-o", filepath.Join(out, "a b")}} {
		code, _, _ := run(bad...)
		assert.Equal(t, 2, code, "%v", bad)
	}
}
