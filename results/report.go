package results

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// ReportFile is the campaign report a results directory gets: one
// self-contained HTML page.
const ReportFile = "report.html"

// ReportInfo is what a report says about its campaign beyond the records.
type ReportInfo struct {
	// Campaign and Description name the campaign; File is the campaign
	// file it came from and Text that file's contents.
	Campaign, Description, File string
	Text                        []byte
	// Version is the flitsim that wrote the report, Command how.
	Version, Command string
	// Elapsed is the wall time of the run that wrote the report (0: not
	// known, e.g. a report rewritten by 'flitsim table').
	Elapsed time.Duration
	// Walls are the points' wall times (wall.jsonl), if known.
	Walls []Wall
}

// Segment is a stretch of failed components over which one routing's
// regression line lies above every other's.
type Segment struct {
	From, To float64 // failed components
	// FromPct and ToPct are the same bounds as failure percentages
	// (interpolated between the campaign's levels).
	FromPct, ToPct float64
	Routing        string
}

// Decision is what a report recommends for one topology, traffic pattern
// and failures entry: the routing whose regression line is highest on
// average over the failures measured (among the routings that routed every
// draw without a deadlock, when there are any), and the routings whose
// lines lie highest, stretch by stretch (the thesis' "switch the routing
// after N failures").
type Decision struct {
	Topology, Traffic, Faults string
	// MaxFailed is the most failed components of a measured run.
	MaxFailed float64
	Best      string
	BestMean  float64 // mean of Best's line over [0, MaxFailed], GB/s
	Segments  []Segment
	// Unsafe lists the routings left out of Best: on some draw they failed
	// to route, deadlocked, or (finite traffic) did not finish in the time
	// limit. NoneSafe: every routing did, and Best is chosen among all.
	Unsafe   []string
	NoneSafe bool
}

// Decisions derives the recommendations of rep's regressions from the
// records' failure ranges.
func Decisions(rep Report, recs []Record) []Decision {
	type gk struct{ topo, traffic, faults string }
	maxX := map[gk]float64{}
	unsafe := map[gk]map[string]bool{}
	for i := range recs {
		r := &recs[i]
		k := gk{label(r), trafficLabel(r), faultLabel(r)}
		if usable(r) {
			maxX[k] = max(maxX[k], float64(r.Failed()))
		} else if !r.RoutingOK || r.Verdict == Deadlock || (r.Finite && r.Verdict == NotConverged) {
			if unsafe[k] == nil {
				unsafe[k] = map[string]bool{}
			}
			unsafe[k][r.Routing] = true
		}
	}
	var order firstSeen[gk]
	for _, r := range rep.Regressions {
		order.add(gk{r.Topology, r.Traffic, r.Faults})
	}
	var out []Decision
	for _, k := range order.list {
		var regs []Regression
		for _, r := range rep.Regressions {
			if (gk{r.Topology, r.Traffic, r.Faults}) == k && r.Points > 0 && !math.IsNaN(r.Intercept) && !math.IsNaN(r.Slope) {
				regs = append(regs, r)
			}
		}
		if len(regs) == 0 {
			continue
		}
		d := Decision{Topology: k.topo, Traffic: k.traffic, Faults: k.faults, MaxFailed: maxX[k]}
		var safe []Regression
		for _, r := range regs {
			if unsafe[k][r.Routing] {
				d.Unsafe = append(d.Unsafe, r.Routing)
			} else {
				safe = append(safe, r)
			}
		}
		if len(safe) == 0 {
			safe, d.Unsafe, d.NoneSafe = regs, nil, true
		}
		d.BestMean = math.Inf(-1)
		for _, r := range safe {
			if m := r.Intercept + r.Slope*d.MaxFailed/2; m > d.BestMean {
				d.Best, d.BestMean = r.Routing, m
			}
		}
		var group []*Record
		for i := range recs {
			if r := &recs[i]; (gk{label(r), trafficLabel(r), faultLabel(r)}) == k {
				group = append(group, r)
			}
		}
		scale := percentScale(group)
		d.Segments = envelope(safe, d.MaxFailed)
		for i := range d.Segments {
			s := &d.Segments[i]
			s.FromPct, s.ToPct = scale(s.From), scale(s.To)
		}
		out = append(out, d)
	}
	return out
}

// envelope returns the upper envelope of the regression lines over
// [0, xmax]: the routing on top, stretch by stretch (ties to the routing
// listed first).
func envelope(regs []Regression, xmax float64) []Segment {
	at := func(r Regression, x float64) float64 { return r.Intercept + r.Slope*x }
	cuts := []float64{0, xmax}
	for i := range regs {
		for j := i + 1; j < len(regs); j++ {
			if db := regs[i].Slope - regs[j].Slope; db != 0 {
				if x := (regs[j].Intercept - regs[i].Intercept) / db; x > 0 && x < xmax {
					cuts = append(cuts, x)
				}
			}
		}
	}
	sort.Float64s(cuts)
	var segs []Segment
	eps := 1e-9 * max(1, xmax)
	for i := 0; i+1 < len(cuts) || (i == 0 && xmax == 0); i++ {
		lo, hi := cuts[i], cuts[min(i+1, len(cuts)-1)]
		if xmax > 0 && hi-lo <= eps {
			continue // three lines through one point, or two crossings at one x
		}
		mid := (lo + hi) / 2
		best := 0
		for j := range regs {
			if at(regs[j], mid) > at(regs[best], mid) {
				best = j
			}
		}
		if n := len(segs); n > 0 && segs[n-1].Routing == regs[best].Routing {
			segs[n-1].To = hi
			continue
		}
		segs = append(segs, Segment{From: lo, To: hi, Routing: regs[best].Routing})
		if xmax == 0 {
			break
		}
	}
	return segs
}

// percentScale converts failed components to a failure percentage by the
// mean failed components of each level over all the group's records
// (piecewise linear; beyond the last level, in proportion).
func percentScale(group []*Record) func(x float64) float64 {
	sum, n := map[float64]float64{}, map[float64]int{}
	for _, r := range group {
		sum[r.FaultPercent] += float64(r.Failed())
		n[r.FaultPercent]++
	}
	type pt struct{ failed, pct float64 }
	pts := []pt{{0, 0}}
	for p, s := range sum {
		if p > 0 {
			pts = append(pts, pt{s / float64(n[p]), p})
		}
	}
	sort.Slice(pts, func(i, j int) bool {
		return pts[i].failed < pts[j].failed || (pts[i].failed == pts[j].failed && pts[i].pct < pts[j].pct)
	})
	return func(x float64) float64 {
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			if x <= b.failed && b.failed > a.failed {
				return a.pct + (b.pct-a.pct)*(x-a.failed)/(b.failed-a.failed)
			}
		}
		if last := pts[len(pts)-1]; last.failed > 0 {
			return last.pct * x / last.failed
		}
		return 0
	}
}

// ReadWalls reads a results directory's wall.jsonl (none: no walls). A
// line that does not parse (torn by a crash: the file is not synced) is
// left out, as MergeWall does.
func ReadWalls(dir string) ([]Wall, error) {
	f, err := os.Open(filepath.Join(dir, "wall.jsonl"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var walls []Wall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var w Wall
		if json.Unmarshal(sc.Bytes(), &w) == nil {
			walls = append(walls, w)
		}
	}
	return walls, sc.Err()
}

//go:embed report.html.tmpl
var reportTemplate string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"f2":  f2,
	"pct": func(x float64) string { return fmt.Sprintf("%.3g %%", x) },
	"num": func(x float64) string { return fmt.Sprintf("%.4g", x) },
	"us":  func(ns float64) float64 { return ns / 1000 },
	"secs": func(s float64) string {
		return (time.Duration(s * float64(time.Second))).Round(time.Millisecond).String()
	},
}).Parse(reportTemplate))

// reportPage is what the template renders.
type reportPage struct {
	Info       ReportInfo
	Points     int
	Verdicts   []verdictCount
	WallSum    float64
	WallMax    float64
	Elapsed    string
	Rep        Report
	Decisions  []Decision
	Regression []regressionRow
	Figures    []pageFigure
	// Builds lists the flitsims that ran the points, when more than one did.
	Builds []string
}

type verdictCount struct {
	Verdict Verdict
	N       int
}

type regressionRow struct {
	Regression
	Best bool
	Mean float64 // mean of the line over the measured failures
}

type pageFigure struct {
	Name, Caption string
	SVG           template.HTML
}

// WriteReport renders the report of recs as one self-contained HTML page:
// the campaign and how it ran, the recommendation per topology and
// traffic, the regression table with the best routing marked, the
// usability matrix, the per-level means with confidence intervals, the
// per-job tables, every figure as inline SVG, and the campaign file.
func WriteReport(w io.Writer, info ReportInfo, recs []Record) error {
	return writeReport(w, info, recs, Summarize(recs))
}

// writeReport is WriteReport with the summary of recs made already.
func writeReport(w io.Writer, info ReportInfo, recs []Record, rep Report) error {
	pg := reportPage{Info: info, Points: len(recs), Rep: rep, Decisions: Decisions(rep, recs)}
	counts := map[Verdict]int{}
	var order firstSeen[Verdict]
	for i := range recs {
		counts[recs[i].Verdict]++
		order.add(recs[i].Verdict)
	}
	sort.Slice(order.list, func(i, j int) bool { return order.list[i] < order.list[j] })
	for _, v := range order.list {
		pg.Verdicts = append(pg.Verdicts, verdictCount{v, counts[v]})
	}
	for _, wl := range info.Walls {
		pg.WallSum += wl.Seconds
		pg.WallMax = max(pg.WallMax, wl.Seconds)
	}
	if names, points := Builds(info.Walls); len(names) > 1 {
		for _, n := range names {
			label := n
			if label == "" {
				label = "(not recorded)"
			}
			pg.Builds = append(pg.Builds, fmt.Sprintf("%s: %d points", label, points[n]))
		}
	}
	if info.Elapsed > 0 {
		pg.Elapsed = info.Elapsed.Round(time.Millisecond).String()
	}
	best := map[[4]string]bool{}
	span := map[[3]string]float64{}
	for _, d := range pg.Decisions {
		best[[4]string{d.Topology, d.Traffic, d.Faults, d.Best}] = true
		span[[3]string{d.Topology, d.Traffic, d.Faults}] = d.MaxFailed
	}
	for _, r := range rep.Regressions {
		x := span[[3]string{r.Topology, r.Traffic, r.Faults}]
		pg.Regression = append(pg.Regression, regressionRow{Regression: r, Best: best[[4]string{r.Topology, r.Traffic, r.Faults, r.Routing}],
			Mean: r.Intercept + r.Slope*x/2})
	}
	figs, err := Figures(recs)
	if err != nil {
		return err
	}
	for _, f := range figs {
		svg, err := inlineSVG(f)
		if err != nil {
			return err
		}
		pg.Figures = append(pg.Figures, pageFigure{Name: f.Name, Caption: f.Caption, SVG: svg})
	}
	return reportTmpl.Execute(w, pg)
}

// inlineSVG renders a figure as an SVG element to put into a page: the
// document without its XML prolog, scaled to the page's width.
func inlineSVG(f Figure) (template.HTML, error) {
	wt, err := f.Plot.WriterTo(figureW, figureH, "svg")
	if err != nil {
		return "", fmt.Errorf("figure %s: %w", f.Name, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return "", fmt.Errorf("figure %s: %w", f.Name, err)
	}
	s := b.String()
	i := strings.Index(s, "<svg")
	if i < 0 {
		return "", fmt.Errorf("figure %s: no <svg> element in the plot", f.Name)
	}
	s = strings.Replace(s[i:], "<svg", `<svg role="img" aria-label="`+html.EscapeString(f.Caption)+`"`, 1)
	return template.HTML(s), nil // generated by gonum/plot from our own strings, escaped by it
}

// WriteReportFile writes dir/report.html, atomically: a reader sees the
// old page or the new one, never half of one.
func WriteReportFile(dir string, info ReportInfo, recs []Record) error {
	return writeReportFile(dir, info, recs, Summarize(recs))
}

func writeReportFile(dir string, info ReportInfo, recs []Record, rep Report) error {
	var b bytes.Buffer
	if err := writeReport(&b, info, recs, rep); err != nil {
		return fmt.Errorf("%s: %w", ReportFile, err)
	}
	return WriteFileAtomic(filepath.Join(dir, ReportFile), b.Bytes())
}
