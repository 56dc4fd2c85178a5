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
