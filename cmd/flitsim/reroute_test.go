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

func TestRerouteCommand(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "reroute.svg")
	args := []string{"reroute", "kary-ntree:k=4,n=3", "--routing", "dfsssp", "--links", "2", "--route-time", "500ms", "--mad-rate", "1000"}
	code, out, errs := run(append(args, "--json", "--plot", plot)...)
	require.Equal(t, 0, code, errs)
	var rep pipeline.SMRerouteReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.False(t, rep.RouteMeasured)
	assert.Len(t, rep.Failed.Links, 2)
	assert.Equal(t, len(rep.Steps), 2+rep.Switches)
	assert.Greater(t, rep.ReachableS, 0.6)
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))
	_, again, _ := run(append(args, "--json")...)
	assert.Equal(t, out, again, "declared times: the same report")

	for _, bad := range [][]string{{}, {"--links", "2", "--mad-rate", "0"}, {"--links", "2", "--detect", "-1s"}, {"--switches", "5"}, {"--links", "2", "--routing", "nosuch"}, {"--links", "2", "--plot", "x.pdf"}} {
		code, _, errs := run(append([]string{"reroute", "kary-ntree:k=4,n=3"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
	}
}

// The reroute under traffic: a report with the losses, the windows and a
// plot; the simulation flags need --traffic.
func TestRerouteUnderTraffic(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "through.svg")
	args := []string{"reroute", "kary-ntree:k=4,n=2", "--routing", "dfsssp", "--links", "10", "--detect", "5us", "--route-time", "5us",
		"--mad-rate", "1e6", "--traffic", "uniform", "--load", "0.7", "--fail-at", "30us", "--retry", "20us", "--window", "5us"}
	code, out, errs := run(append(args, "--json", "--plot", plot)...)
	require.Equal(t, 0, code, errs)
	var rep pipeline.RerouteRunReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Greater(t, rep.Result.PacketsLost, int64(0))
	assert.Len(t, rep.Windows, len(rep.Base))
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))
	code, text, errs := run(args...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, text, "packets lost")
	// A jobs file: each job's slowdown against the intact fabric.
	code, text, errs = run("reroute", "kary-ntree:k=4,n=3", "--routing", "dfsssp", "--links", "2", "--detect", "5us", "--route-time", "5us",
		"--mad-rate", "1e6", "--jobs", "../../docs/jobs/noise.toml", "--fail-at", "20us", "--json")
	require.Equal(t, 0, code, errs)
	require.NoError(t, json.Unmarshal([]byte(text), &rep))
	require.Len(t, rep.Result.Jobs, 2)
	assert.Greater(t, rep.Result.Jobs[0].Slowdown, 1.0, "the all-to-all through the reroute")
	for _, bad := range [][]string{{"--links", "10", "--retry", "1us"}, {"--links", "10", "--traffic", "uniform", "--window", "0s"},
		{"--links", "10", "--traffic", "uniform", "--fail-at", "-1us"}, {"--links", "10", "--traffic", "nosuch"},
		{"--links", "10", "--traffic", "uniform", "--update", "nosuch"}, {"--links", "10", "--drain", "1us"}} {
		code, _, errs := run(append([]string{"reroute", "kary-ntree:k=4,n=2"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errs)
	}
}
