package pipeline

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/fabric"
	"flitsim/routing"
)

// TestHistoryReplay walks the filter tool's loop by hand on a 4-ary
// 3-tree (four HCAs per leaf switch): a job on two leaves from 0 to 3,600 s,
// a job on one leaf from 600 s to 1,200 s, a job on two other leaves from
// 1,800 s to 4,200 s and one on the same HCAs from 4,200 s to 4,800 s.
// Polls every 300 s; only the first, 1,800 s and 3,600 s change the
// multi-switch jobs (the single-leaf job and the replaced one do not).
func TestHistoryReplay(t *testing.T) {
	net, err := fabric.Build("kary-ntree:k=4,n=3")
	require.NoError(t, err)
	a, c := []int{0, 1, 4, 5}, []int{8, 9, 12, 13, 14}
	jobs := []HistoryJob{
		{ID: "a", Start: 0, End: 3600, HCAs: a},
		{ID: "b", Start: 600, End: 1200, HCAs: []int{16, 17, 18}},
		{ID: "c", Start: 1800, End: 4200, HCAs: c},
		{ID: "d", Start: 4200, End: 4800, HCAs: []int{14, 13, 12, 9, 8}},
	}
	h := History{Net: net, Jobs: jobs, Engines: []string{"sar", "dfsssp"}, Options: routing.DefaultOptions(), Poll: 300, Sample: 600}
	rep, err := h.Run()
	require.NoError(t, err)
	assert.Equal(t, 17, rep.Polls, "0, 300, ..., 4,800 s")
	var at []int64
	for _, r := range rep.Reroutes {
		at = append(at, r.At)
	}
	assert.Equal(t, []int64{0, 1800, 3600, 4800}, at, "the multi-switch jobs change at 0, 1,800, 3,600 and (none left) 4,800 s")
	assert.Equal(t, 13, rep.Unchanged)
	require.Len(t, rep.Samples, 9)
	s := rep.Samples[1] // 600 s: a and b run
	assert.Equal(t, int64(600), s.At)
	assert.Equal(t, 2, s.Jobs)
	assert.Equal(t, 1, s.MultiSwitchJobs)
	assert.Equal(t, 7, s.BusyHCAs)
	// SAR's metrics at 2,400 s are those of SAR routed for a and c.
	r, err := Route(net, "sar", routing.Options{VLs: 8, Jobs: [][]int{a, c}})
	require.NoError(t, err)
	want, err := routing.MeasureJobs(net, r.Tables, [][]int{a, c})
	require.NoError(t, err)
	want.PerJob = nil
	assert.Equal(t, want, rep.Samples[4].Metrics["sar"])
	assert.Len(t, rep.Improvements, len(MixMetrics), "sar against dfsssp")
	// Job ids aside, the same HCAs in another order are the same mix.
	assert.Equal(t, mixKey([][]int{{1, 2}, {5, 4}}), mixKey([][]int{{4, 5}, {2, 1}}))
	assert.NotEqual(t, mixKey([][]int{{1, 2}, {4, 5}}), mixKey([][]int{{1, 2, 4, 5}}))

	_, err = History{Net: net, Jobs: jobs, Engines: []string{"sar"}, Options: routing.DefaultOptions(), Poll: 0, Sample: 600}.Run()
	assert.Error(t, err)
}
