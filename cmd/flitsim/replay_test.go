package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/configs/pipeline"
)

func TestJobsHistoryReplay(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.txt")
	code, _, errs := run("jobs", "history", "kary-ntree:k=4,n=3", "--jobs", "30", "--nodes", "2-12", "--run", "10m-3h", "-o", hist)
	require.Equal(t, 0, code, errs)
	code, again, _ := run("jobs", "history", "kary-ntree:k=4,n=3", "--jobs", "30", "--nodes", "2-12", "--run", "10m-3h")
	require.Equal(t, 0, code)
	written, err := os.ReadFile(hist)
	require.NoError(t, err)
	assert.Equal(t, string(written), again, "the same seed, the same history")

	plot := filepath.Join(dir, "replay.svg")
	code, out, errs := run("jobs", "replay", "kary-ntree:k=4,n=3", "--history", hist, "--routing", "sar,dfsssp,updn", "--plot", plot, "--json")
	require.Equal(t, 0, code, errs)
	var rep pipeline.HistoryReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 30, rep.Jobs)
	assert.NotEmpty(t, rep.Reroutes)
	assert.Equal(t, rep.Polls, rep.Unchanged+len(rep.Reroutes), "one engine reroutes at every changed poll")
	assert.Len(t, rep.Improvements, 2*len(pipeline.MixMetrics))
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))

	bad := filepath.Join(dir, "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("1|2015-02-01T00:00:00|Unknown|nosuchhost\n"), 0o644))
	for _, args := range [][]string{
		{"--history", bad},
		{"--history", filepath.Join(dir, "none.txt")},
		{"--history", hist, "--poll", "0s"},
		{"--history", hist, "--sample", "7m"},
		{"--history", hist, "--plot", "x.pdf"},
		{"--history", hist, "--routing", "nosuch"},
		{},
	} {
		code, _, errs := run(append([]string{"jobs", "replay", "kary-ntree:k=4,n=3"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}
	code, _, errs = run("jobs", "replay", "kary-ntree:k=4,n=3", "--history", bad)
	assert.Contains(t, errs, "bad.txt:1: job 1, host nosuchhost")
	for _, args := range [][]string{{"--nodes", "5"}, {"--nodes", "1-1000"}, {"--run", "1h"}, {"--jobs", "0"}} {
		code, _, errs := run(append([]string{"jobs", "history", "kary-ntree:k=4,n=3"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}
}
