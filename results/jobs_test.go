package results

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flitsim/sim"
)

func jobRec(id, pattern string, finite, completed bool, ns, gbs, slow float64, mix bool) JobRecord {
	return JobRecord{JobResult: sim.JobResult{ID: id, Pattern: pattern, Ranks: 4, Finite: finite, Completed: completed,
		CompletionNs: ns, ThroughputGBs: gbs, Slowdown: slow}, Mix: mix}
}

// Per-job rows: one per job, group and failure level, means over seeds
// with the slowdown's confidence interval; the mix's jobs pooled under
// "mix"; an unfinished finite job counted incomplete and left out of the
// means; a deadlocked run's jobs left out.
func TestJobLevels(t *testing.T) {
	var recs []Record
	add := func(failed int, verdict Verdict, jobs ...JobRecord) {
		r := rec(len(recs), "T", "sar", failed, verdict, 10, true)
		r.Traffic, r.Jobs, r.FaultLabel = "jobs", jobs, "links"
		recs = append(recs, r)
	}
	add(0, Completed, jobRec("a", "exchange", true, true, 1000, 8, 1.2, false), jobRec("mix1", "shift", false, false, 0, 2, 1.0, true))
	add(0, Completed, jobRec("a", "exchange", true, true, 3000, 4, 1.4, false), jobRec("mix1", "shift", false, false, 0, 4, 1.1, true),
		jobRec("mix2", "shift", false, false, 0, 6, 1.2, true))
	add(0, Deadlock, jobRec("a", "exchange", true, false, 0, 0, 0, false))
	add(5, NotConverged, jobRec("a", "exchange", true, false, 0, 1, 0, false))
	add(5, Completed, jobRec("a", "exchange", true, true, 2000, 6, 2, false))
	levels := JobLevels(recs)
	require.Len(t, levels, 3)
	a0, a5, mix := levels[0], levels[1], levels[2]
	assert.Equal(t, "a", a0.Job)
	assert.Equal(t, 0.0, a0.Percent)
	assert.Equal(t, 2, a0.N, "the deadlocked run is left out")
	assert.InDelta(t, 2000, a0.CompletionNs, 1e-9)
	assert.InDelta(t, 6, a0.ThroughputGBs, 1e-9)
	assert.InDelta(t, 1.3, a0.Slowdown, 1e-9)
	// t(0.975, 1) = 12.706; sd = 0.1414; half-width = 12.706 * 0.1 = 1.2706.
	assert.InDelta(t, 1.3-1.2706, a0.SlowdownLo, 1e-3)
	assert.InDelta(t, 1.3+1.2706, a0.SlowdownHi, 1e-3)
	assert.Equal(t, MixJob, mix.Job)
	assert.Equal(t, 3, mix.N)
	assert.InDelta(t, 4, mix.ThroughputGBs, 1e-9)
	assert.Zero(t, mix.CompletionNs)
	assert.Equal(t, 5.0, a5.Percent)
	assert.Equal(t, 2, a5.N)
	assert.Equal(t, 1, a5.Incomplete)
	assert.InDelta(t, 2000, a5.CompletionNs, 1e-9)
	assert.Equal(t, 1, a5.SlowdownN)
	assert.Equal(t, 2.0, a5.SlowdownLo)

	recs[0].JobRouting = &JobRoutingInfo{EFIEffectiveMax: 4, EFIEffectiveJobMean: 2, DarkFiberPct: 50, LinksPerJobMean: 10}
	recs[1].JobRouting = &JobRoutingInfo{EFIEffectiveMax: 6, EFIEffectiveJobMean: 3, DarkFiberPct: 30, LinksPerJobMean: 12}
	jr := JobRoutingLevels(recs)
	require.Len(t, jr, 1, "only level 0 has the metrics")
	assert.Equal(t, JobRoutingLevel{Group: a0.Group, Percent: 0, N: 2, EFIEffectiveMax: 5, EFIEffectiveJobMean: 2.5, DarkFiberPct: 40, LinksPerJobMean: 11}, jr[0])

	rep := Summarize(recs)
	var md, csv bytes.Buffer
	require.NoError(t, WriteTable(&md, rep, "md"))
	assert.Contains(t, md.String(), "| T | sar | jobs | links | a | exchange | 5 | 4.0 | 2 | 1 | 2.00 | 6.00 | 2.000 | 2.000 – 2.000 | 0.0 | 0.0 |")
	assert.Contains(t, md.String(), "| T | sar | jobs | links | 0 | 2 | 5.0 | 2.5 | 40.0 | 11.0 |")
	require.NoError(t, WriteJobsCSV(&csv, rep))
	assert.Equal(t, 4, strings.Count(csv.String(), "\n"))

	dir := t.TempDir()
	files, err := Plot(dir, recs)
	require.NoError(t, err)
	for _, f := range []string{"job-T-jobs-a.svg", "job-T-jobs-mix.png"} {
		assert.Contains(t, files, filepath.Join(dir, f))
		assert.FileExists(t, filepath.Join(dir, f))
	}
	// Records without jobs have no per-job rows.
	assert.Empty(t, JobLevels([]Record{rec(0, "T", "a", 0, Completed, 1, true)}))
}
