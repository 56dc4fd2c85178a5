package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Move is one failure level of a results directory against the same level
// of another (the old one): how far its mean throughput moved and whether
// that stays within the old level's interval.
type Move struct {
	Group
	Percent float64 `json:"fault_percent"`
	OldMean float64 `json:"old_mean_gbs"`
	NewMean float64 `json:"new_mean_gbs"`
	OldN    int     `json:"old_n"`
	NewN    int     `json:"new_n"`
	// Moved is NewMean − OldMean.
	Moved float64 `json:"moved_gbs"`
	// Interval is the half-width the move is judged by: the old level's
	// 95 % confidence interval over its seeds; where the seeds give no
	// spread (one run, or runs alike, as every seed of a 0 % level) the
	// old runs' own 99 % interval (the mean of their throughput_ci_gbs),
	// 0 when they have none (finite traffic, records made before it was
	// kept).
	Interval float64 `json:"interval_gbs"`
	// Of says which interval: "seeds", "run" or "" (none).
	Of string `json:"interval_of,omitempty"`
	// Within: |Moved| ≤ Interval (a level that did not move at all is
	// within any interval).
	Within bool `json:"within"`
	// Gone: the level has no usable run here (every run deadlocked,
	// failed to route or did not finish) where the old one had; Moved is
	// then −OldMean and the level is beyond.
	Gone bool `json:"gone,omitempty"`
}

// Judged reports whether the move has an interval to be judged by (or
// did not move).
func (m Move) Judged() bool { return m.Of != "" || m.Moved == 0 }

// Compare sets the per-level means of recs against those of old, level by
// level (Levels' rule for usable runs), in recs' order: every level of
// recs that old has with usable runs. It also returns how many of old's
// levels with usable runs recs does not have at all (a directory run in
// part, or another campaign).
func Compare(old, recs []Record) (moves []Move, missing int) {
	type key struct {
		g Group
		p float64
	}
	oldRuns := map[key][]*Record{}
	order, by := groups(old)
	for _, g := range order {
		for _, r := range by[g] {
			if usable(r) {
				k := key{g, r.FaultPercent}
				oldRuns[k] = append(oldRuns[k], r)
			}
		}
	}
	olds := map[key]Level{}
	for _, l := range Levels(old) {
		olds[key{l.Group, l.Percent}] = l
	}
	seen := map[key]bool{}
	for _, l := range Levels(recs) {
		k := key{l.Group, l.Percent}
		seen[k] = true
		o, ok := olds[k]
		if !ok || o.N == 0 {
			continue
		}
		m := Move{Group: l.Group, Percent: l.Percent, OldMean: o.Mean, NewMean: l.Mean, OldN: o.N, NewN: l.N, Moved: l.Mean - o.Mean, Gone: l.N == 0}
		if h := (o.CIHigh - o.CILow) / 2; h > 0 {
			m.Interval, m.Of = h, "seeds"
		} else {
			var ci []float64
			for _, r := range oldRuns[k] {
				if r.ThroughputCI > 0 {
					ci = append(ci, r.ThroughputCI)
				}
			}
			if len(ci) > 0 {
				m.Interval, m.Of = mean(ci), "run"
			}
		}
		m.Within = !m.Gone && math.Abs(m.Moved) <= m.Interval
		moves = append(moves, m)
	}
	for k, o := range olds {
		if o.N > 0 && !seen[k] {
			missing++
		}
	}
	return moves, missing
}

// WriteMoves writes the moves as a Markdown table with a summary line
// (missing: the old levels the directory does not have), as CSV or as
// JSON.
func WriteMoves(w io.Writer, moves []Move, missing int, format string) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Moves   []Move `json:"levels"`
			Missing int    `json:"missing_levels"`
		}{moves, missing})
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"topology", "routing", "traffic", "faults", "fault_percent", "old_mean_gbs", "new_mean_gbs", "moved_gbs",
			"moved_percent", "interval_gbs", "interval_of", "within", "gone", "old_n", "new_n"})
		for _, m := range moves {
			num := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
			cw.Write([]string{m.Topology, m.Routing, m.Traffic, m.Faults, strconv.FormatFloat(m.Percent, 'g', -1, 64), num(m.OldMean), num(m.NewMean),
				num(m.Moved), num(pct(m.Moved, m.OldMean)), num(m.Interval), m.Of, strconv.FormatBool(m.Within), strconv.FormatBool(m.Gone),
				strconv.Itoa(m.OldN), strconv.Itoa(m.NewN)})
		}
		cw.Flush()
		return cw.Error()
	case "md", "markdown", "":
	default:
		return fmt.Errorf("unknown table format %q (md, csv, json)", format)
	}
	var b strings.Builder
	b.WriteString("## Levels against the other directory\n\n")
	b.WriteString("Mean throughput per failure level, this directory against the other (old); a move is within the old level's interval:\n")
	b.WriteString("its 95 % confidence interval over seeds, or, where the seeds give no spread, its runs' own 99 % interval.\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Failed [%] | Old [GB/s] | New [GB/s] | Moved | Interval | |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---|\n")
	within, beyond, unjudged, largest := 0, 0, 0, 0.0
	for _, m := range moves {
		verdict := "within"
		switch {
		case m.Gone:
			verdict, beyond = "**gone** (no usable run)", beyond+1
		case !m.Judged():
			verdict, unjudged = "no interval", unjudged+1
		case m.Within:
			within++
		default:
			verdict, beyond = "**beyond**", beyond+1
		}
		largest = max(largest, math.Abs(pct(m.Moved, m.OldMean)))
		interval := "—"
		if m.Of != "" {
			interval = fmt.Sprintf("±%s (%s)", f2(m.Interval), m.Of)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %g | %s | %s | %+.2f %% | %s | %s |\n", m.Topology, m.Routing, m.Traffic, m.Faults, m.Percent,
			f2(m.OldMean), f2(m.NewMean), pct(m.Moved, m.OldMean), interval, verdict)
	}
	fmt.Fprintf(&b, "\n%d levels: %d within their interval, %d beyond, %d without one; the largest move %.2f %%.\n",
		len(moves), within, beyond, unjudged, largest)
	if missing > 0 {
		fmt.Fprintf(&b, "Levels of the other directory not in this one: %d.\n", missing)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// pct is d as a percentage of of (0 when of is 0).
func pct(d, of float64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * d / of
}
