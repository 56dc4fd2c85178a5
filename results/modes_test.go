package results

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/sim"
)

// The median's confidence interval: order statistics n/2 ∓ 1.96·√n/2,
// clamped to the sample.
func TestMedianCI(t *testing.T) {
	xs := []float64{10, 9, 8, 7, 6, 5, 4, 3, 2, 1}
	lo, hi := MedianCI(xs)
	require.Equal(t, 2.0, lo) // ranks 1 and 8 of 0..9
	require.Equal(t, 9.0, hi)
	lo, hi = MedianCI([]float64{3})
	require.Equal(t, [2]float64{3, 3}, [2]float64{lo, hi})
	lo, hi = MedianCI(nil)
	require.Zero(t, lo+hi)
}

// Routings compared per job as seeds/004 does: each finite job's
// completion times under each routing over the seeds, normalized to the
// first routing's median; an incomplete or deadlocked run counts in N
// only; infinite and mix jobs have no row; a level with one routing has
// none; application-aware runs carry their default share.
func TestModeRows(t *testing.T) {
	var recs []Record
	add := func(routing string, verdict Verdict, jobs ...JobRecord) {
		r := rec(len(recs), "T", routing, 0, verdict, 10, true)
		r.Traffic, r.Jobs, r.FaultLabel = "jobs", jobs, "links"
		recs = append(recs, r)
	}
	for i, ns := range []float64{100, 120, 110} {
		add("adaptive", Completed, jobRec("a2a", "alltoall", true, true, ns, 1, 0, false), jobRec("noise", "noise", false, false, 0, 1, 0, false))
		high := jobRec("a2a", "alltoall", true, true, 1.5*ns, 1, 0, false)
		add("high", Completed, high)
		aa := jobRec("a2a", "alltoall", true, i < 2, 0.9*ns, 1, 0, false)
		aa.AppAware = &sim.AppAwareStats{DefaultBytes: 3, HighBytes: 1}
		add("app-aware", Completed, aa)
	}
	r := rec(len(recs), "T", "alone", 5, Completed, 10, true)
	r.Traffic, r.FaultLabel = "jobs", "links"
	r.Jobs = []JobRecord{jobRec("a2a", "alltoall", true, true, 50, 1, 0, false)}
	recs = append(recs, r)

	rows := ModeRows(recs)
	require.Len(t, rows, 3, "one job, three routings; the 5 % level has one routing")
	base, high, aa := rows[0], rows[1], rows[2]
	assert.Equal(t, []string{"adaptive", "high", "app-aware"}, []string{base.Routing, high.Routing, aa.Routing})
	assert.Equal(t, 110.0, base.MedianNs)
	assert.Equal(t, 1.0, base.Normalized.Median)
	assert.InDelta(t, 1.5, high.Normalized.Median, 1e-12)
	assert.InDelta(t, 1.5*100/110, high.Normalized.Min, 1e-12)
	assert.Equal(t, [2]int{2, 3}, [2]int{aa.Runs, aa.N}, "the incomplete run counts in N only")
	require.NotNil(t, aa.DefaultShare)
	assert.InDelta(t, 0.75, *aa.DefaultShare, 1e-12)
	assert.Nil(t, base.DefaultShare)
	assert.LessOrEqual(t, base.MedianLo, base.Normalized.Median)
	assert.GreaterOrEqual(t, base.MedianHi, base.Normalized.Median)

	var b strings.Builder
	writeModesMarkdown(&b, rows)
	assert.Contains(t, b.String(), "| T | jobs | links | 0 | a2a | high | 3 of 3 | 0.17 | 1.500 |")
	figs, err := Figures(recs)
	require.NoError(t, err)
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	assert.Contains(t, names, "routings-T-jobs")
}
