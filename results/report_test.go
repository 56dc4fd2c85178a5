package results

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crossingRecords: on topology T routing a starts higher and loses 1 GB/s
// per failed component, b starts lower and loses 0.25, so b overtakes a at
// 10/0.75 = 13.33 failures; c deadlocks once. Failures 0, 10, 20, 40 at
// 0, 1, 2, 4 %, three draws each (the mean is the line's value).
func crossingRecords() []Record {
	var recs []Record
	line := map[string][2]float64{"a": {100, -1}, "b": {90, -0.25}, "c": {200, 0}}
	for _, r := range []string{"a", "b", "c"} {
		for li, f := range []int{0, 10, 20, 40} {
			for seed := 0; seed < 3; seed++ {
				l := line[r]
				x := rec(len(recs), "T", r, f, "completed", l[0]+l[1]*float64(f)+float64(seed-1), true)
				x.FaultPercent = float64([]int{0, 1, 2, 4}[li])
				x.HCACompletion = Stats{Min: 1000, Q1: 2000, Median: 3000, Q3: 4000, Max: 5000 + float64(f)}
				if r == "c" && f == 20 && seed == 0 {
					x.Verdict, x.ThroughputGBs = Deadlock, 0
				}
				recs = append(recs, x)
			}
		}
	}
	return recs
}

// The decision follows the regression lines: b is best on average over
// 0-40 failures (85 against a's 80; c deadlocked once and is left out),
// a is on top up to 13.33 failures (1.33 %) and b after.
func TestDecisions(t *testing.T) {
	recs := crossingRecords()
	ds := Decisions(Summarize(recs), recs)
	require.Len(t, ds, 1)
	d := ds[0]
	assert.Equal(t, "b", d.Best)
	assert.InDelta(t, 85, d.BestMean, 1e-9)
	assert.Equal(t, []string{"c"}, d.Unsafe)
	assert.InDelta(t, 40, d.MaxFailed, 0)
	require.Len(t, d.Segments, 2)
	assert.Equal(t, "a", d.Segments[0].Routing)
	assert.InDelta(t, 40.0/3, d.Segments[0].To, 1e-9)
	assert.InDelta(t, 40.0/3/10, d.Segments[0].ToPct, 1e-9, "between the levels 0 % (0 failed) and 1 % (10 failed)")
	assert.Equal(t, "b", d.Segments[1].Routing)
	assert.InDelta(t, 40, d.Segments[1].To, 1e-9)
	assert.InDelta(t, 4, d.Segments[1].ToPct, 1e-9)
}

func TestEnvelope(t *testing.T) {
	for _, tc := range []struct {
		name string
		regs []Regression
		xmax float64
		want []string
	}{
		{"one line", []Regression{{Group: Group{Routing: "a"}, Intercept: 5, Slope: -1}}, 10, []string{"a"}},
		{"parallel", []Regression{{Group: Group{Routing: "a"}, Intercept: 5}, {Group: Group{Routing: "b"}, Intercept: 6}}, 10, []string{"b"}},
		{"crossing beyond the range", []Regression{{Group: Group{Routing: "a"}, Intercept: 10, Slope: -1}, {Group: Group{Routing: "b"}, Intercept: 0, Slope: 0}}, 5, []string{"a"}},
		{"three stretches", []Regression{{Group: Group{Routing: "a"}, Intercept: 10, Slope: -2}, {Group: Group{Routing: "b"}, Intercept: 6},
			{Group: Group{Routing: "c"}, Intercept: 0, Slope: 1}}, 10, []string{"a", "b", "c"}},
		{"three lines through one point", []Regression{{Group: Group{Routing: "b"}, Intercept: 5}, {Group: Group{Routing: "a"}, Intercept: 10, Slope: -1},
			{Group: Group{Routing: "c"}, Intercept: 0, Slope: 1}}, 10, []string{"a", "c"}}, // b only touches the envelope at x = 5
		{"no failures measured", []Regression{{Group: Group{Routing: "a"}, Intercept: 1}, {Group: Group{Routing: "b"}, Intercept: 2}}, 0, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			segs := envelope(tc.regs, tc.xmax)
			for i, s := range segs {
				got = append(got, s.Routing)
				assert.LessOrEqual(t, s.From, s.To)
				if i > 0 {
					assert.Equal(t, segs[i-1].To, s.From, "stretches meet")
				}
			}
			assert.Equal(t, tc.want, got)
			assert.Zero(t, segs[0].From)
			assert.Equal(t, tc.xmax, segs[len(segs)-1].To)
		})
	}
}

// The page's structure: every section, the best routing marked, one
// inline SVG per figure and nothing fetched from anywhere.
func TestReportStructure(t *testing.T) {
	recs := crossingRecords()
	info := ReportInfo{Campaign: "cross", Description: "two lines <crossing>", File: "cross.toml", Text: []byte("name = \"cross\"\n# a < b & c\n"),
		Version: "test", Command: "flitsim run cross.toml", Elapsed: 1500 * time.Millisecond,
		Walls: []Wall{{Point: 0, Seconds: 2}, {Point: 1, Seconds: 3}}}
	var b bytes.Buffer
	require.NoError(t, WriteReport(&b, info, recs))
	page := b.String()
	for _, id := range []string{"about", "decision", "decisions", "regression", "regressions", "usability", "usability-matrix", "levels", "level-means", "figures", "campaign"} {
		assert.Contains(t, page, `id="`+id+`"`)
	}
	assert.NotContains(t, page, `id="jobs"`, "no jobs, no jobs section")
	assert.Contains(t, page, "two lines &lt;crossing&gt;", "text is escaped")
	assert.Contains(t, page, "# a &lt; b &amp; c", "the campaign file is shown, escaped")
	assert.Contains(t, page, "1.5s")
	assert.Contains(t, page, "5s summed over the workers; longest point 3s")
	assert.Regexp(t, `<tr class="best"><td>T</td><td>b ★</td>`, page)
	assert.Equal(t, 1, strings.Count(page, `class="best"`), "one best routing per topology and traffic")
	assert.Contains(t, page, "a from 0 (0 %) to 13.33 (1.33 %); then b from 13.33 (1.33 %) to 40 (4 %)")

	figs, err := Figures(recs)
	require.NoError(t, err)
	require.Len(t, figs, 3, "bars, regression, completion times")
	assert.Equal(t, len(figs), strings.Count(page, "<svg "))
	assert.Equal(t, len(figs), strings.Count(page, "</svg>"))
	assert.Equal(t, len(figs), strings.Count(page, "<figure "))
	assert.NotContains(t, page, "<?xml", "inline SVG has no XML prolog")
	for _, ext := range []*regexp.Regexp{regexp.MustCompile(`(?i)(src|href)="(https?:)?//`), regexp.MustCompile(`(?i)<script[^>]*src=`),
		regexp.MustCompile(`(?i)<link`), regexp.MustCompile(`(?i)@import|url\(`)} {
		assert.NotRegexp(t, ext, page, "self-contained: nothing fetched")
	}
	// Every table row has as many cells as its table's header.
	for _, tbl := range regexp.MustCompile(`(?s)<table.*?</table>`).FindAllString(page, -1) {
		rows := regexp.MustCompile(`(?s)<tr.*?</tr>`).FindAllString(tbl, -1)
		require.NotEmpty(t, rows)
		head := strings.Count(rows[0], "<th")
		if strings.Contains(tbl, `id="about"`) {
			continue // a two-column key/value table
		}
		for _, r := range rows[1:] {
			assert.Equal(t, head, strings.Count(r, "<td"), "row %s", r)
		}
	}
}

// A report is written whole: the file appears by a rename.
func TestWriteReportFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, WriteReportFile(dir, ReportInfo{Campaign: "c"}, crossingRecords()))
	st, err := os.Stat(filepath.Join(dir, ReportFile))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
	left, err := filepath.Glob(filepath.Join(dir, "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, left)
}

// A campaign with jobs gets the per-job table, with a row per job and
// level, and the job figures.
func TestReportJobs(t *testing.T) {
	var recs []Record
	for f := 0; f < 2; f++ {
		for seed := 0; seed < 2; seed++ {
			r := rec(len(recs), "T", "sar", f, Completed, 10, true)
			r.Traffic, r.FaultLabel = "jobs", "links"
			r.Jobs = []JobRecord{jobRec("solver", "exchange", true, true, 1000*float64(1+f), 8, 1.2+0.1*float64(seed), false)}
			recs = append(recs, r)
		}
	}
	var b bytes.Buffer
	require.NoError(t, WriteReport(&b, ReportInfo{Campaign: "jobs"}, recs))
	page := b.String()
	assert.Contains(t, page, `id="jobs"`)
	tbl := regexp.MustCompile(`(?s)<table id="job-levels">.*?</table>`).FindString(page)
	require.NotEmpty(t, tbl)
	assert.Equal(t, 3, strings.Count(tbl, "<tr"), "a header and a row per failure level")
	assert.Contains(t, tbl, "<td>solver</td>")
	assert.Contains(t, page, `id="fig-job-T-jobs-solver"`)
}

// When every routing failed on some draw, the best is chosen among all
// and none is listed as left out.
func TestDecisionNoneSafe(t *testing.T) {
	var recs []Record
	for _, r := range []string{"a", "b"} {
		for f := 0; f < 3; f++ {
			recs = append(recs, rec(len(recs), "T", r, f, Completed, 50-float64(f), true))
		}
		recs = append(recs, rec(len(recs), "T", r, 3, Deadlock, 0, true))
	}
	nc := rec(len(recs), "T", "a", 1, NotConverged, 0, true) // an unfinished exchange
	recs = append(recs, nc)
	d := Decisions(Summarize(recs), recs)
	require.Len(t, d, 1)
	assert.True(t, d[0].NoneSafe)
	assert.Empty(t, d[0].Unsafe)
	assert.Equal(t, "a", d[0].Best, "ties go to the routing listed first")
}

// A torn last line of wall.jsonl (a crash) is left out, not an error.
func TestReadWallsTorn(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "wall.jsonl"), []byte("{\"point\":0,\"wall_s\":1.5}\n{\"point\":1,\"wal"), 0o644))
	w, err := ReadWalls(dir)
	require.NoError(t, err)
	require.Len(t, w, 1)
	assert.InDelta(t, 1.5, w[0].Seconds, 0)
	w, err = ReadWalls(t.TempDir())
	require.NoError(t, err)
	assert.Empty(t, w)
}
