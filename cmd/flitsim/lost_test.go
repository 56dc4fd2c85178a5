package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLostCommand(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "lost.svg")
	code, out, errs := run("lost", "kary-ntree:k=4,n=3", "--routing", "dfsssp,updn", "--counts", "1,4", "--draws", "8", "-j", "2", "--plot", plot, "--json")
	require.Equal(t, 0, code, errs)
	var rep lostReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Engines, 2)
	assert.Equal(t, "links", rep.Failures)
	for _, e := range rep.Engines {
		require.Len(t, e.Levels, 2)
		assert.Len(t, e.Levels[1].Draws, 8)
		assert.LessOrEqual(t, e.Levels[0].Percent.Median, e.Levels[1].Percent.Median)
	}
	st, err := os.Stat(plot)
	require.NoError(t, err)
	assert.Greater(t, st.Size(), int64(1000))

	code, out, errs = run("lost", "kary-ntree:k=4,n=3", "--switches", "--counts", "2", "--draws", "3")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "Prop. 4.1")

	for _, args := range [][]string{{"--counts", "0"}, {"--counts", "x"}, {"--draws", "0"}, {"-j", "0"}, {"--plot", "x.pdf"}, {"--routing", "nosuch"}} {
		code, _, errs = run(append([]string{"lost", "kary-ntree:k=4,n=3"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errs)
	}
	// A torus has no switch without HCAs to fail.
	code, _, errs = run("lost", "torus:dims=3x3", "--switches")
	assert.Equal(t, 2, code, errs)
	assert.Contains(t, errs, "switches without HCAs")
}
