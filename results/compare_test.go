package results

import (
	"bytes"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Levels are judged by the old level's interval over seeds, by its runs'
// own interval where the seeds give no spread, and not at all where
// neither exists, unless they did not move.
func TestCompareLevels(t *testing.T) {
	rec := func(point int, routing string, pct float64, seed uint64, gbs, ci float64) Record {
		return Record{Point: point, Topology: "torus:dims=4x4", TopologyLabel: "T", Routing: routing, Traffic: "uniform", FaultKind: "links",
			FaultLabel: "links", FaultPercent: pct, FaultSeed: seed, RoutingOK: true, Verdict: NotConverged, ThroughputGBs: gbs, ThroughputCI: ci}
	}
	old := []Record{
		rec(0, "a", 10, 1, 100, 1), rec(1, "a", 10, 2, 110, 1), rec(2, "a", 10, 3, 90, 1), // seeds ±24.8
		rec(3, "a", 0, 1, 200, 0.5), rec(4, "a", 0, 2, 200, 0.5), // alike: the runs' ±0.5
		rec(5, "b", 0, 1, 50, 0), // one run, no interval
		rec(6, "c", 0, 1, 70, 0),
		rec(8, "e", 0, 1, 30, 0), // deadlocks below
		rec(9, "f", 0, 1, 40, 0), // not run below
	}
	gone := rec(8, "e", 0, 1, 0, 0)
	gone.Verdict = Deadlock
	recs := []Record{
		rec(0, "a", 10, 1, 130, 0), rec(1, "a", 10, 2, 130, 0), rec(2, "a", 10, 3, 130, 0), // +30: beyond ±24.8
		rec(3, "a", 0, 1, 200.4, 0), rec(4, "a", 0, 2, 200.4, 0), // +0.4 within ±0.5
		rec(5, "b", 0, 1, 51, 0),
		rec(6, "c", 0, 1, 70, 0),
		rec(7, "d", 0, 1, 10, 0), // not in old
		gone,
	}
	moves, missing := Compare(old, recs)
	require.Len(t, moves, 5)
	assert.Equal(t, 1, missing, "f")
	byKey := map[string]Move{}
	for _, m := range moves {
		byKey[m.Routing+"/"+strconv.FormatFloat(m.Percent, 'g', -1, 64)] = m
	}
	m := byKey["a/10"]
	assert.Equal(t, "seeds", m.Of)
	assert.InDelta(t, 4.303*10/1.7320508, m.Interval, 0.01, "t(0.975, 2)·sd/√3")
	assert.InDelta(t, 30, m.Moved, 1e-9)
	assert.False(t, m.Within)
	m = byKey["a/0"]
	assert.Equal(t, "run", m.Of)
	assert.InDelta(t, 0.5, m.Interval, 1e-12)
	assert.True(t, m.Within)
	m = byKey["b/0"]
	assert.False(t, m.Judged())
	assert.False(t, m.Within)
	m = byKey["c/0"]
	assert.True(t, m.Judged() && m.Within, "a level that did not move")
	m = byKey["e/0"]
	assert.True(t, m.Gone)
	assert.False(t, m.Within)
	assert.Equal(t, -30.0, m.Moved)

	var md bytes.Buffer
	require.NoError(t, WriteMoves(&md, moves, missing, "md"))
	assert.Contains(t, md.String(), "5 levels: 2 within their interval, 2 beyond, 1 without one; the largest move 100.00 %.")
	assert.Contains(t, md.String(), "**gone** (no usable run)")
	assert.Contains(t, md.String(), "Levels of the other directory not in this one: 1.")
	var csv bytes.Buffer
	require.NoError(t, WriteMoves(&csv, moves, missing, "csv"))
	assert.Contains(t, csv.String(), "T,a,uniform,links,10,100.0000,130.0000,30.0000,30.0000,")
	assert.Error(t, WriteMoves(&csv, moves, missing, "xml"))
}
