package results

import (
	"fmt"
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

// Plot writes, for every topology and traffic pattern, SVG and PNG files
// into dir: throughput bars with 95 % confidence intervals per failure
// level and routing (Figs. 4.5-4.8), the scatter of throughput against
// failed components with the regression lines, and whisker plots of per-HCA
// consumption bandwidth (Fig. 4.4), and per job of a workload its slowdown
// (or completion time, or throughput) per routing and failure level. A campaign with several failures
// entries (links, switches, mixed) gets a set of plots per entry. It returns
// the files written.
func Plot(dir string, recs []Record) ([]string, error) {
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
		return plotSet(dir, recs, "")
	}
	var files []string
	for _, l := range labels {
		f, err := plotSet(dir, by[l], l)
		files = append(files, f...)
		if err != nil {
			return files, err
		}
	}
	return files, nil
}

// plotSet plots records of one failures entry; faults, when not empty,
// names it in titles and file names.
func plotSet(dir string, recs []Record, faults string) ([]string, error) {
	rep := Summarize(recs)
	type tt struct{ topo, traffic string }
	var order firstSeen[tt]
	for _, r := range rep.Regressions {
		order.add(tt{r.Topology, r.Traffic})
	}
	var files []string
	for _, k := range order.list {
		base := slug(k.topo + "-" + k.traffic)
		title := k.traffic
		if faults != "" {
			base = slug(k.topo + "-" + k.traffic + "-" + faults)
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
		for _, mk := range []struct {
			name string
			fn   func() (*plot.Plot, error)
		}{
			{"throughput-" + base, func() (*plot.Plot, error) { return barPlot(k.topo, title, levels) }},
			{"regression-" + base, func() (*plot.Plot, error) { return regressionPlot(k.topo, k.traffic, title, regs, recs) }},
			{"hca-bw-" + base, func() (*plot.Plot, error) { return whiskerPlot(k.topo, k.traffic, title, recs) }},
		} {
			p, err := mk.fn()
			if err != nil {
				return files, err
			}
			if p == nil {
				continue
			}
			for _, ext := range []string{".svg", ".png"} {
				path := filepath.Join(dir, mk.name+ext)
				if err := p.Save(20*vg.Centimeter, 11*vg.Centimeter, path); err != nil {
					return files, fmt.Errorf("saving %s: %w", path, err)
				}
				files = append(files, path)
			}
		}
	}
	jf, err := jobPlots(dir, faults, faultsTitle(faults), rep.Jobs)
	return append(files, jf...), err
}

// faultsTitle names a failures entry in plot titles ("" for none).
func faultsTitle(faults string) string {
	if faults == "" {
		return ""
	}
	return faults + " failures"
}

var nonWord = regexp.MustCompile(`[^A-Za-z0-9]+`)

func slug(s string) string { return strings.Trim(nonWord.ReplaceAllString(s, "-"), "-") }

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
	p.Y.Min = 0
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
		top = max(top, l.CIHigh)
	}
	p.Y.Max = top * 1.25 // room for the legend
	return p, nil
}

func regressionPlot(topo, traffic, title string, regs []Regression, recs []Record) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: throughput against failed components", topo, title)
	p.X.Label.Text = "failed components"
	p.Y.Label.Text = "throughput [GB/s]"
	p.Y.Min = 0
	maxX := 1.0
	any := false
	var allPts plotter.XYs
	for ri, reg := range regs {
		var pts plotter.XYs
		for i := range recs {
			r := &recs[i]
			if label(r) == topo && trafficLabel(r) == traffic && r.Routing == reg.Routing && usable(r) {
				pts = append(pts, plotter.XY{X: float64(r.Failed()), Y: r.ThroughputGBs})
				maxX = max(maxX, float64(r.Failed()))
			}
		}
		if len(pts) == 0 {
			continue
		}
		any = true
		allPts = append(allPts, pts...)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(ri)
		sc.Shape = plotutil.Shape(ri)
		p.Add(sc)
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
	p.X.Min, p.X.Max = 0, maxX
	if _, _, _, ymax := plotter.XYRange(allPts); ymax > 0 {
		p.Y.Max = ymax * 1.3 // room for the legend
	}
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

func whiskerPlot(topo, traffic, title string, recs []Record) (*plot.Plot, error) {
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
		if label(r) != topo || trafficLabel(r) != traffic || !usable(r) {
			continue
		}
		seenR.add(r.Routing)
		seenP.add(r.FaultPercent)
		k := key{r.Routing, r.FaultPercent}
		if sum[k] == nil {
			sum[k] = &Stats{}
		}
		s, h := sum[k], r.HCABandwidth
		s.Min, s.Q1, s.Median, s.Q3, s.Max = s.Min+h.Min, s.Q1+h.Q1, s.Median+h.Median, s.Q3+h.Q3, s.Max+h.Max
		n[k]++
	}
	routes, pcts := seenR.list, seenP.list
	if len(routes) == 0 {
		return nil, nil
	}
	sort.Float64s(pcts)
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s, %s: per-HCA consumption bandwidth (averaged over seeds)", topo, title)
	p.Y.Label.Text = "bandwidth [GB/s]"
	p.X.Label.Text = "failures [%] / routing"
	p.Y.Min = 0
	var names []string
	x := 0.0
	for _, pc := range pcts {
		for ri, rt := range routes {
			k := key{rt, pc}
			if n[k] == 0 {
				x++
				names = append(names, "")
				continue
			}
			s := *sum[k]
			f := float64(n[k])
			s.Min, s.Q1, s.Median, s.Q3, s.Max = s.Min/f, s.Q1/f, s.Median/f, s.Q3/f, s.Max/f
			ls := draw.LineStyle{Color: plotutil.Color(ri), Width: vg.Points(1)}
			p.Add(statsBox{x: x, s: s, color: ls, width: vg.Points(10)})
			names = append(names, fmt.Sprintf("%g%% %s", pc, rt))
			x++
		}
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.8
	p.X.Tick.Label.XAlign = draw.XRight
	return p, nil
}
