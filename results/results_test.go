package results

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
)

// On synthetic data the fit equals gonum's, and both equal the textbook
// least-squares formulas.
func TestFitMatchesGonumAndHand(t *testing.T) {
	x := []float64{0, 0, 2, 2, 5, 5, 12, 12, 25, 25}
	y := make([]float64, len(x))
	for i := range x {
		y[i] = 630 - 3.6*x[i] + 7*math.Sin(float64(i)) // a line with noise
	}
	a, b, r2 := Fit(x, y)
	ga, gb := stat.LinearRegression(x, y, nil, false)
	assert.Equal(t, ga, a)
	assert.Equal(t, gb, b)
	assert.Equal(t, stat.RSquared(x, y, nil, ga, gb), r2)
	n := float64(len(x))
	var sx, sy, sxx, sxy, syy float64
	for i := range x {
		sx, sy, sxx, sxy, syy = sx+x[i], sy+y[i], sxx+x[i]*x[i], sxy+x[i]*y[i], syy+y[i]*y[i]
	}
	hb := (n*sxy - sx*sy) / (n*sxx - sx*sx)
	ha := (sy - hb*sx) / n
	hr := math.Pow(n*sxy-sx*sy, 2) / ((n*sxx - sx*sx) * (n*syy - sy*sy))
	assert.InDelta(t, ha, a, 1e-9)
	assert.InDelta(t, hb, b, 1e-9)
	assert.InDelta(t, hr, r2, 1e-9)
	assert.InDelta(t, -3.6, b, 0.5)
}

func rec(point int, topo, routing string, failed int, verdict Verdict, gbs float64, ok bool) Record {
	return Record{Campaign: "c1", Point: point, Key: topo + routing, Topology: topo, TopologyLabel: topo, Routing: routing,
		Traffic: "exchange", Finite: true, DeadlockFree: true, FailedLinks: failed, FaultPercent: float64(failed), Verdict: verdict, ThroughputGBs: gbs, RoutingOK: ok}
}

func TestRegressionsCountExclusions(t *testing.T) {
	recs := []Record{
		rec(0, "T", "a", 0, "completed", 100, true),
		rec(1, "T", "a", 2, "completed", 90, true),
		rec(2, "T", "a", 4, "deadlock", 0, true),
		rec(3, "T", "a", 4, "routing_failed", 0, false),
		rec(4, "T", "a", 6, "completed", 70, true),
		rec(5, "T", "b", 0, "not_converged", 5, true),
	}
	// Uniform traffic at the time limit: measured, so used, and counted.
	for i, gbs := range []float64{50, 40} {
		u := rec(6+i, "T", "c", 2*i, "not_converged", gbs, true)
		u.Traffic, u.Finite = "uniform", false
		recs = append(recs, u)
	}
	regs := Regressions(recs)
	require.Len(t, regs, 3)
	r := regs[0]
	assert.Equal(t, 3, r.Points)
	assert.Equal(t, 1, r.Deadlocked)
	assert.Equal(t, 1, r.RoutingFailed)
	assert.InDelta(t, 100, r.Intercept, 1e-9) // (0,100), (2,90), (6,70) lie on y = 100 − 5x
	assert.InDelta(t, -5, r.Slope, 1e-9)
	assert.Equal(t, 1, regs[1].NotConverged)
	assert.Equal(t, 0, regs[1].Points, "an unfinished exchange has no throughput")
	assert.Equal(t, 2, regs[2].NotConverged)
	assert.Equal(t, 2, regs[2].Points, "infinite traffic counts up to the time limit")
	assert.InDelta(t, -5, regs[2].Slope, 1e-9)
	u := UsabilityMatrix(recs)
	assert.Equal(t, []string{"r", "o", "o"}, u.Cells["T"], "a failed routing dominates")
	// A cyclic CDG that did not deadlock is c; a deadlock dominates it.
	cyc := rec(9, "U", "a", 0, "steady", 10, true)
	cyc.DeadlockFree = false
	dl := rec(10, "U", "b", 0, "deadlock", 0, true)
	u = UsabilityMatrix([]Record{cyc, dl, rec(11, "U", "b", 1, "steady", 10, true)})
	assert.Equal(t, []string{"c", "d"}, u.Cells["U"])
	lv := Levels(recs)
	require.NotEmpty(t, lv)
	assert.Equal(t, 100.0, lv[0].Mean)
}

func TestLevelsConfidenceInterval(t *testing.T) {
	var recs []Record
	for i, v := range []float64{10, 12, 14} {
		recs = append(recs, rec(i, "T", "a", 1, "completed", v, true))
	}
	l := Levels(recs)[0]
	assert.Equal(t, 12.0, l.Mean)
	// t(0.975, 2) = 4.3027, s = 2, n = 3
	assert.InDelta(t, 12-4.302653*2/math.Sqrt(3), l.CILow, 1e-4)
	assert.InDelta(t, 12+4.302653*2/math.Sqrt(3), l.CIHigh, 1e-4)
}

func TestStoreResumeAndTornLine(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "c1", "test")
	require.NoError(t, err)
	require.NoError(t, s.Append(rec(3, "T", "a", 0, "completed", 1, true), Wall{Seconds: 0.5}))
	require.NoError(t, s.Append(rec(1, "T", "a", 0, "completed", 2, true), Wall{Seconds: 0.5}))
	assert.Error(t, s.Append(rec(1, "T", "a", 0, "completed", 2, true), Wall{Seconds: 0.5}), "a point is never recorded twice")
	require.NoError(t, s.Close())
	require.NoError(t, s.Release())
	// A kill in the middle of a write leaves half a line.
	appendRaw(t, dir, `{"campaign":"c1","point":7,"ke`)

	s, err = Open(dir, "c1", "test")
	require.NoError(t, err)
	assert.True(t, s.Done(1))
	assert.True(t, s.Done(3))
	assert.False(t, s.Done(7), "the torn record does not count")
	require.NoError(t, s.Append(rec(7, "T", "a", 0, "completed", 3, true), Wall{Seconds: 0.5}))
	require.NoError(t, s.Close())
	require.NoError(t, s.Finalize())
	require.NoError(t, s.Release())
	recs, err := ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, []int{1, 3, 7}, []int{recs[0].Point, recs[1].Point, recs[2].Point})
	data, _ := os.ReadFile(filepath.Join(dir, ResultsFile))
	assert.NotContains(t, string(data), "wall", "results hold no wall-clock time")

	_, err = Open(dir, "other", "test")
	assert.ErrorContains(t, err, "another campaign")
}

// A power cut between a record and its newline leaves a whole record
// without one: it is kept (and counted) on resume, never dropped while its
// point counts as done.
func TestStoreKeepsWholeRecordWithoutNewline(t *testing.T) {
	dir := t.TempDir()
	line, err := json.Marshal(rec(5, "T", "a", 0, "completed", 9, true))
	require.NoError(t, err)
	appendRaw(t, dir, string(line))
	s, err := Open(dir, "c1", "test")
	require.NoError(t, err)
	assert.True(t, s.Done(5))
	require.NoError(t, s.Append(rec(6, "T", "a", 0, "completed", 8, true), Wall{Seconds: 0.5}))
	require.NoError(t, s.Close())
	require.NoError(t, s.Release())
	recs, err := ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, 5, recs[0].Point)
	assert.Equal(t, 6, recs[1].Point)
}

// Two runs never write into one directory: the second is refused, told
// who holds it, until the first lets go.
func TestStoreLock(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, "c1", "flitsim run first")
	require.NoError(t, err)
	_, err = Open(dir, "c1", "flitsim run second")
	require.ErrorContains(t, err, "in use by pid")
	assert.ErrorContains(t, err, "flitsim run first")
	require.NoError(t, s.Close())
	require.NoError(t, s.Release())
	s, err = Open(dir, "c1", "flitsim run second")
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Release())
}

func appendRaw(t *testing.T, dir, text string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, ResultsFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func TestTablesAndPlots(t *testing.T) {
	var recs []Record
	i := 0
	for _, r := range []string{"a", "b"} {
		for f := 0; f < 4; f++ {
			for seed := 0; seed < 3; seed++ {
				x := rec(i, "T", r, f, "completed", 100-float64(5*f+seed), true)
				x.HCABandwidth = Stats{Min: 1, Q1: 2, Median: 3, Q3: 4, Max: 5}
				x.HCACompletion = Stats{Min: 1000, Q1: 2000, Median: 3000, Q3: 4000, Max: 5000}
				recs = append(recs, x)
				i++
			}
		}
	}
	rep := Summarize(recs)
	var md, csvb strings.Builder
	require.NoError(t, WriteTable(&md, rep, "md"))
	require.NoError(t, WriteTable(&csvb, rep, "csv"))
	assert.Contains(t, md.String(), "| T | a | exchange |")
	assert.Contains(t, csvb.String(), "topology,routing,traffic,faults,intercept_gbs")
	assert.Error(t, WriteTable(&md, rep, "xml"))
	dir := t.TempDir()
	files, err := Plot(dir, recs)
	require.NoError(t, err)
	// Finite traffic: completion times per HCA, not the bandwidth (which
	// an exchange gives every HCA alike).
	assert.Len(t, files, 6)
	assert.Contains(t, strings.Join(files, " "), "hca-completion-T-exchange.svg")
	assert.NotContains(t, strings.Join(files, " "), "hca-bw-")
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		assert.Positive(t, st.Size())
	}
}

// A campaign with link-only and switch-only failures (Fig. 4.7a/b) gets a
// regression row and a set of plots per failures entry.
func TestSeveralFailureKinds(t *testing.T) {
	var recs []Record
	for i, kind := range []string{"links", "switches", "links", "switches"} {
		for f := 0; f < 3; f++ {
			x := rec(len(recs), "T", "a", f, "completed", 100-float64((i%2+1)*f), true)
			x.FaultKind, x.FaultLabel = kind, kind
			recs = append(recs, x)
		}
	}
	regs := Regressions(recs)
	require.Len(t, regs, 2)
	assert.Equal(t, "links", regs[0].Faults)
	assert.InDelta(t, -1, regs[0].Slope, 1e-9)
	assert.Equal(t, "switches", regs[1].Faults)
	assert.InDelta(t, -2, regs[1].Slope, 1e-9)
	var md strings.Builder
	require.NoError(t, WriteTable(&md, Summarize(recs), "md"))
	assert.Contains(t, md.String(), "| T | a | exchange | switches | 100.00 | -2.00 |")
	files, err := Plot(t.TempDir(), recs)
	require.NoError(t, err)
	assert.Len(t, files, 8, "no per-HCA figures: the records have no completion times")
	assert.Contains(t, strings.Join(files, " "), "throughput-T-exchange-switches.svg")
}

// A value axis holds every value below its last labelled tick, which is
// its end, and leaves the room asked for above the data.
func TestValueAxis(t *testing.T) {
	for _, tc := range []struct{ top, room float64 }{
		{5, 0}, {5.0001, 0}, {0.37, 0.2}, {1234.5, 0.3}, {1, 0.05}, {99.99, 0.6}, {0, 0}, {3e-7, 0.1},
	} {
		p := plot.New()
		valueAxis(&p.Y, tc.top, tc.room)
		ticks := p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max)
		require.NotEmpty(t, ticks)
		last := ticks[len(ticks)-1]
		assert.Equal(t, p.Y.Max, last.Value, "%+v: the axis ends on a tick", tc)
		assert.NotEmpty(t, last.Label)
		assert.GreaterOrEqual(t, p.Y.Max*(1-tc.room)*(1+1e-9), tc.top, "%+v: room above the data", tc)
		assert.LessOrEqual(t, len(ticks), 11, "%+v", tc)
		assert.Zero(t, p.Y.Min)
	}
}

// WriteFileAtomic replaces a file whole: concurrent writers leave one
// writer's bytes, no temporary files stay behind, the mode is 0644, and a
// missing directory is an error that leaves nothing.
func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	require.NoError(t, WriteFileAtomic(path, []byte("old")))
	var wg sync.WaitGroup
	contents := make([][]byte, 8)
	for i := range contents {
		contents[i] = bytes.Repeat([]byte{byte('a' + i)}, 1<<16)
		wg.Add(1)
		go func() {
			defer wg.Done()
			assert.NoError(t, WriteFileAtomic(path, contents[i]))
		}()
	}
	wg.Wait()
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, contents, got, "one writer's bytes, whole")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	err = WriteFileAtomic(filepath.Join(dir, "missing", "f.json"), []byte("x"))
	require.Error(t, err)
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1)
}
