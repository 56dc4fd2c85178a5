package results

import (
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Figure is one plot of a results directory: its file name without the
// extension, a caption saying what it shows, and the plot.
type Figure struct {
	Name    string
	Caption string
	Plot    *plot.Plot
}

// figureW and figureH are the size plots are saved and shown at.
const (
	figureW = 20 * vg.Centimeter
	figureH = 11 * vg.Centimeter
)

// Plot writes every figure of the records (Figures) into dir as SVG and
// PNG and returns the files written.
func Plot(dir string, recs []Record) ([]string, error) {
	figs, err := Figures(recs)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range figs {
		for _, ext := range []string{".svg", ".png"} {
			path := filepath.Join(dir, f.Name+ext)
			if err := f.Plot.Save(figureW, figureH, path); err != nil {
				return files, fmt.Errorf("saving %s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	return files, nil
}

// Figures draws, for every topology and traffic pattern: throughput bars
// with 95 % confidence intervals per failure level and routing (Figs.
// 4.5-4.8); throughput against failed components with the regression lines
// and each level's mean and interval; and the per-HCA distribution as
// whisker plots, of consumption bandwidth for infinite traffic (Fig. 4.4c)
// and of completion times for finite traffic (an exchange gives every HCA
// the same bandwidth); and per job of a workload its slowdown (or
// completion time, or throughput) per routing and failure level. A
// campaign with several failures entries (links, switches, mixed) gets a
// set per entry.
func Figures(recs []Record) ([]Figure, error) {
	var labels []string
	by := map[string][]Record{}
	for _, r := range recs {
		l := faultLabel(&r)
		if _, ok := by[l]; !ok {
			labels = append(labels, l)
		}
		by[l] = append(by[l], r)
	}
	sort.Strings(labels)
	if len(labels) == 1 {
		return figureSet(recs, "")
	}
	var figs []Figure
	for _, l := range labels {
		f, err := figureSet(by[l], l)
		figs = append(figs, f...)
		if err != nil {
			return figs, err
		}
	}
	return figs, nil
}

// figureSet draws the figures of one failures entry; faults, when not
// empty, names it in titles and file names.
func figureSet(recs []Record, faults string) ([]Figure, error) {
	rep := Summarize(recs)
	type tt struct{ topo, traffic string }
	var order firstSeen[tt]
	for _, r := range rep.Regressions {
		order.add(tt{r.Topology, r.Traffic})
	}
	var figs []Figure
	for _, k := range order.list {
		base := Slug(k.topo + "-" + k.traffic)
		title := k.traffic
		if faults != "" {
			base = Slug(k.topo + "-" + k.traffic + "-" + faults)
			title = k.traffic + ", " + faults + " failures"
		}
		var levels []Level
		for _, l := range rep.Levels {
			if l.Topology == k.topo && l.Traffic == k.traffic {
				levels = append(levels, l)
			}
		}
		var regs []Regression
		for _, r := range rep.Regressions {
			if r.Topology == k.topo && r.Traffic == k.traffic {
				regs = append(regs, r)
			}
		}
		what := k.topo + ", " + title
		for _, mk := range []struct {
			name, caption string
			fn            func() (*plot.Plot, error)
		}{
			{"throughput-" + base, what + ": mean throughput per failure level and routing, with 95 % confidence intervals over the failure draws",
				func() (*plot.Plot, error) { return barPlot(k.topo, title, levels) }},
			{"regression-" + base, what + ": throughput of every run against its failed components, each routing's regression line, and each level's mean with its 95 % confidence interval",
				func() (*plot.Plot, error) { return regressionPlot(k.topo, k.traffic, title, regs, levels, recs) }},
			{"hca-bw-" + base, what + ": per-HCA consumption bandwidth (minimum, quartiles, maximum), averaged over the failure draws",
				func() (*plot.Plot, error) { return whiskerPlot(k.topo, k.traffic, title, recs, hcaBandwidth) }},
			{"hca-completion-" + base, what + ": per-HCA completion time, from the first injection to the delivery of the HCA's last message (minimum, quartiles, maximum), averaged over the failure draws",
				func() (*plot.Plot, error) { return whiskerPlot(k.topo, k.traffic, title, recs, hcaCompletion) }},
			{"timed-" + base, what + ": throughput over time of the runs through a reroute ([faults.timed]), per routing and failure level, the mean over the failure draws",
				func() (*plot.Plot, error) { return timedPlot(k.topo, k.traffic, title, recs) }},
		} {
			p, err := mk.fn()
			if err != nil {
				return figs, err
			}
			if p != nil {
				figs = append(figs, Figure{Name: mk.name, Caption: mk.caption, Plot: p})
			}
		}
	}
	jf, err := jobFigures(faults, faultsTitle(faults), rep.Jobs)
	figs = append(figs, jf...)
	if err != nil {
		return figs, err
	}
	mf, err := modeFigures(faults, faultsTitle(faults), rep.Modes)
	return append(figs, mf...), err
}

// faultsTitle names a failures entry in plot titles ("" for none).
func faultsTitle(faults string) string {
	if faults == "" {
		return ""
	}
	return faults + " failures"
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

// Slug makes s a file name's worth of letters, digits and dashes (every
// other run of characters a dash, none at either end), as plot files are
// named.
func Slug(s string) string { return strings.Trim(nonWord.ReplaceAllString(s, "-"), "-") }

// errPoints feeds YErrorBars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// firstSeen collects distinct values in the order they first come.
type firstSeen[T comparable] struct {
	list []T
	seen map[T]bool
}

func (f *firstSeen[T]) add(v T) {
	if f.seen[v] {
		return
	}
	if f.seen == nil {
		f.seen = map[T]bool{}
	}
	f.seen[v] = true
	f.list = append(f.list, v)
}

// routingsAndPercents returns the routings of levels in order of first
// appearance and their failure percentages in increasing order.
func routingsAndPercents(levels []Level) ([]string, []float64) {
	var routes firstSeen[string]
	var pcts firstSeen[float64]
	for _, l := range levels {
		routes.add(l.Routing)
		pcts.add(l.Percent)
	}
	sort.Float64s(pcts.list)
	return routes.list, pcts.list
}

func barPlot(topo, traffic string, levels []Level) (*plot.Plot, error) {
	if len(levels) == 0 {
		return nil, nil
	}
	routes, pcts := routingsAndPercents(levels)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: throughput (mean, 95 %% CI)", topo, traffic)
	p.Y.Label.Text = "throughput [GB/s]"
	p.X.Label.Text = "failures [%]"
	dw := 0.8 / float64(len(routes)) // bar spacing in data units
	w := vg.Points(480 * dw / float64(len(pcts)))
	names := make([]string, len(pcts))
	for i, x := range pcts {
		names[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	for ri, rt := range routes {
		off := dw * (float64(ri) - float64(len(routes)-1)/2)
		vals := make(plotter.Values, len(pcts))
		pts := errPoints{XYs: make(plotter.XYs, len(pcts)), YErrors: make(plotter.YErrors, len(pcts))}
		for _, l := range levels {
			if l.Routing != rt {
				continue
			}
			i := sort.SearchFloat64s(pcts, l.Percent)
			vals[i] = l.Mean
			pts.XYs[i] = plotter.XY{X: float64(i) + off, Y: l.Mean}
			pts.YErrors[i].Low, pts.YErrors[i].High = l.Mean-l.CILow, l.CIHigh-l.Mean
		}
		bars, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		bars.XMin = off
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(ri)
		p.Add(bars)
		p.Legend.Add(rt, bars)
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		p.Add(eb)
	}
	p.Legend.Top = true
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(pcts))-0.5
	top := 0.0
	for _, l := range levels {
		top = max(top, l.CIHigh, l.Mean)
	}
	valueAxis(&p.Y, top, legendRoom(len(routes)))
	return p, nil
}

// legendRoom is the share of a plot's height to keep free above the data
// for a legend of n entries drawn at the top.
func legendRoom(n int) float64 { return min(0.08*float64(n)+0.05, 0.6) }

// valueAxis makes axis a run from 0 to a round value above top that leaves
// the share room of the height free (for the legend), with ticks at round
// steps up to and including its end, so that every value lies below the
// last labelled tick.
func valueAxis(a *plot.Axis, top, room float64) {
	if !(top > 0) || math.IsInf(top, 0) {
		top = 1
	}
	end := top / (1 - room)
	step := niceStep(end / 5)
	end = math.Ceil(end/step-1e-9) * step
	a.Min, a.Max = 0, end
	var ticks []plot.Tick
	for i := 0; float64(i)*step <= end*(1+1e-9); i++ {
		v := float64(i) * step
		ticks = append(ticks, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'g', 6, 64)})
	}
	a.Tick.Marker = plot.ConstantTicks(ticks)
}

// niceStep returns the smallest of 1, 2, 2.5 and 5 times a power of ten
// that is at least x (> 0).
func niceStep(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*e >= x*(1-1e-12) {
			return m * e
		}
	}
	return 10 * e
}

func regressionPlot(topo, traffic, title string, regs []Regression, levels []Level, recs []Record) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: throughput against failed components", topo, title)
	p.X.Label.Text = "failed components"
	p.Y.Label.Text = "throughput [GB/s]"
	maxX, top := 1.0, 0.0
	any := false
	for ri, reg := range regs {
		var pts plotter.XYs
		for i := range recs {
			r := &recs[i]
			if label(r) == topo && trafficLabel(r) == traffic && r.Routing == reg.Routing && faultLabel(r) == reg.Faults && usable(r) {
				pts = append(pts, plotter.XY{X: float64(r.Failed()), Y: r.ThroughputGBs})
				maxX = max(maxX, float64(r.Failed()))
				top = max(top, r.ThroughputGBs)
			}
		}
		if len(pts) == 0 {
			continue
		}
		any = true
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(ri)
		sc.Shape = plotutil.Shape(ri)
		sc.Radius = vg.Points(2)
		p.Add(sc)
		// Each level's mean at its mean failed components, with its 95 %
		// interval.
		var ci errPoints
		for _, l := range levels {
			if l.Routing == reg.Routing && l.Faults == reg.Faults && l.N > 0 {
				ci.XYs = append(ci.XYs, plotter.XY{X: l.Failed, Y: l.Mean})
				ci.YErrors = append(ci.YErrors, struct{ Low, High float64 }{l.Mean - l.CILow, l.CIHigh - l.Mean})
				top = max(top, l.CIHigh)
			}
		}
		if len(ci.XYs) > 0 {
			eb, err := plotter.NewYErrorBars(ci)
			if err != nil {
				return nil, err
			}
			eb.Color = plotutil.Color(ri)
			eb.Width = vg.Points(1.5)
			p.Add(eb)
		}
		a, b := reg.Intercept, reg.Slope
		fn := plotter.NewFunction(func(x float64) float64 { return a + b*x })
		fn.Color = plotutil.Color(ri)
		fn.Width = vg.Points(1)
		p.Add(fn)
		p.Legend.Add(fmt.Sprintf("%s: %.1f %+.2f·x, R² %.2f", reg.Routing, a, b, reg.R2), sc, fn)
	}
	if !any {
		return nil, nil
	}
	for _, reg := range regs { // the lines' ends, over the whole axis
		if reg.Points > 0 && !math.IsNaN(reg.Intercept) && !math.IsNaN(reg.Slope) {
			top = max(top, reg.Intercept, reg.Intercept+reg.Slope*maxX)
		}
	}
	p.X.Min, p.X.Max = 0, maxX
	valueAxis(&p.Y, top, legendRoom(len(regs)))
	p.Legend.Top = true
	return p, nil
}

// statsBox draws min–max whiskers and a q1–q3 box with the median.
type statsBox struct {
	x     float64
	s     Stats
	color draw.LineStyle
	width vg.Length
}

func (b statsBox) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	x := trX(b.x)
	half := b.width / 2
	ls := b.color
	c.StrokeLine2(ls, x, trY(b.s.Min), x, trY(b.s.Q1))
	c.StrokeLine2(ls, x, trY(b.s.Q3), x, trY(b.s.Max))
	c.StrokeLine2(ls, x-half/2, trY(b.s.Min), x+half/2, trY(b.s.Min))
	c.StrokeLine2(ls, x-half/2, trY(b.s.Max), x+half/2, trY(b.s.Max))
	c.StrokeLines(ls, []vg.Point{{X: x - half, Y: trY(b.s.Q1)}, {X: x + half, Y: trY(b.s.Q1)},
		{X: x + half, Y: trY(b.s.Q3)}, {X: x - half, Y: trY(b.s.Q3)}, {X: x - half, Y: trY(b.s.Q1)}})
	thick := ls
	thick.Width *= 2
	c.StrokeLine2(thick, x-half, trY(b.s.Median), x+half, trY(b.s.Median))
}

func (b statsBox) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.x - 0.5, b.x + 0.5, b.s.Min, b.s.Max
}

// perHCA is a per-HCA distribution a whisker plot shows: which records
// have it, the distribution of one, and the axis label.
type perHCA struct {
	has   func(r *Record) bool
	stats func(r *Record) Stats
	what  string
	unit  string
	scale float64 // record units per axis unit
}

var (
	hcaBandwidth = perHCA{has: func(r *Record) bool { return !r.Finite || len(r.Jobs) > 0 }, stats: func(r *Record) Stats { return r.HCABandwidth },
		what: "per-HCA consumption bandwidth", unit: "bandwidth [GB/s]", scale: 1}
	hcaCompletion = perHCA{has: func(r *Record) bool { return r.Finite && r.HCACompletion.Max > 0 }, stats: func(r *Record) Stats { return r.HCACompletion },
		what: "per-HCA completion time", unit: "completion time [µs]", scale: 1000}
)

// whiskerPlot draws, per failure level and routing, the per-HCA
// distribution m of the topology's and traffic's usable records, averaged
// over the failure draws (nil when no record has it).
func whiskerPlot(topo, traffic, title string, recs []Record, m perHCA) (*plot.Plot, error) {
	type key struct {
		routing string
		pct     float64
	}
	sum := map[key]*Stats{}
	n := map[key]int{}
	var seenR firstSeen[string]
	var seenP firstSeen[float64]
	for i := range recs {
		r := &recs[i]
		if label(r) != topo || trafficLabel(r) != traffic || !usable(r) || !m.has(r) {
			continue
		}
		seenR.add(r.Routing)
		seenP.add(r.FaultPercent)
		k := key{r.Routing, r.FaultPercent}
		if sum[k] == nil {
			sum[k] = &Stats{}
		}
		s, h := sum[k], m.stats(r)
		s.Min, s.Q1, s.Median, s.Q3, s.Max = s.Min+h.Min, s.Q1+h.Q1, s.Median+h.Median, s.Q3+h.Q3, s.Max+h.Max
		n[k]++
	}
	routes, pcts := seenR.list, seenP.list
	if len(routes) == 0 {
		return nil, nil
	}
	sort.Float64s(pcts)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: %s (averaged over seeds)", topo, title, m.what)
	p.Y.Label.Text = m.unit
	p.X.Label.Text = "failures [%] / routing"
	var names []string
	x, top := 0.0, 0.0
	for _, pc := range pcts {
		for ri, rt := range routes {
			k := key{rt, pc}
			if n[k] == 0 {
				x++
				names = append(names, "")
				continue
			}
			s := *sum[k]
			f := float64(n[k]) * m.scale
			s.Min, s.Q1, s.Median, s.Q3, s.Max = s.Min/f, s.Q1/f, s.Median/f, s.Q3/f, s.Max/f
			top = max(top, s.Max)
			ls := draw.LineStyle{Color: plotutil.Color(ri), Width: vg.Points(1)}
			p.Add(statsBox{x: x, s: s, color: ls, width: vg.Points(10)})
			names = append(names, fmt.Sprintf("%g%% %s", pc, rt))
			x++
		}
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.8
	p.X.Tick.Label.XAlign = draw.XRight
	valueAxis(&p.Y, top, 0.05)
	return p, nil
}
