package results

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// BoxGroup is one group of boxes of a BoxPlot (one benchmark and size),
// a box per name (one routing mode), in the order of the plot's names.
type BoxGroup struct {
	Label string
	Boxes []Stats // by name; a zero Stats leaves its place empty
}

// BoxCurve is a line across a BoxPlot's groups, one value per group
// drawn at the group's box of the same colour (the curve of name Names[i]
// at box i), such as a model's prediction beside the measured boxes.
type BoxCurve struct {
	Label string
	Box   int       // whose box and colour (an index into the names)
	Y     []float64 // by group
}

// BoxPlot draws groups of min–max whiskers and q1–q3 boxes with their
// medians side by side, one colour per name, with a dashed line at ref
// (0: none), as seeds/004's Figs. 8-10 show execution times normalized to
// one routing's median; it saves the plot as path (.svg or .png).
func BoxPlot(path, title, ylabel string, names []string, groups []BoxGroup, ref float64) error {
	return BoxPlotCurves(path, title, ylabel, names, groups, ref, nil)
}

// BoxPlotCurves is BoxPlot with curves drawn across the groups (dotted, in
// their box's colour), as seeds/001's Fig. 4.2 draws Prop. 4.2 beside the
// whiskers.
func BoxPlotCurves(path, title, ylabel string, names []string, groups []BoxGroup, ref float64, curves []BoxCurve) error {
	p, err := boxPlot(title, ylabel, names, groups, ref, curves)
	if err != nil {
		return err
	}
	if err := p.Save(figureW, figureH, path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}

// boxPlot draws BoxPlotCurves' plot.
func boxPlot(title, ylabel string, names []string, groups []BoxGroup, ref float64, curves []BoxCurve) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	var labels []string
	x, top, bottom := 0.0, ref, ref
	for _, g := range groups {
		for i := range names {
			label := ""
			if i == len(names)/2 {
				label = g.Label
			}
			labels = append(labels, label)
			if i < len(g.Boxes) && g.Boxes[i] != (Stats{}) {
				ls := draw.LineStyle{Color: plotutil.Color(i), Width: vg.Points(1)}
				p.Add(statsBox{x: x, s: g.Boxes[i], color: ls, width: vg.Points(8)})
				top, bottom = max(top, g.Boxes[i].Max), min(bottom, g.Boxes[i].Min)
			}
			x++
		}
		labels = append(labels, "")
		x++
	}
	stride := float64(len(names) + 1)
	var curveLines []*plotter.Line
	for _, c := range curves {
		var xys plotter.XYs
		for gi, y := range c.Y {
			if gi < len(groups) {
				xys = append(xys, plotter.XY{X: float64(gi)*stride + float64(c.Box), Y: y})
				top, bottom = max(top, y), min(bottom, y)
			}
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(c.Box)
		l.Dashes = []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(l)
		curveLines = append(curveLines, l)
	}
	for i, n := range names {
		l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: 0}})
		if err != nil {
			return nil, err
		}
		l.Color = plotutil.Color(i)
		p.Legend.Add(n, l)
	}
	for i, l := range curveLines {
		p.Legend.Add(curves[i].Label, l)
	}
	if ref > 0 && x > 0 {
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: ref}, {X: x - 1.5, Y: ref}})
		if err != nil {
			return nil, err
		}
		l.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		p.Add(l)
	}
	p.NominalX(labels...)
	p.X.Tick.Label.Rotation = 0.8
	p.X.Tick.Label.XAlign = draw.XRight
	p.Legend.Top = true
	// The boxes' range with room for the legend above, not from 0: the
	// differences are a few percent (as the paper's figures show them).
	span := max(top-bottom, 0.05)
	p.Y.Min, p.Y.Max = max(0, bottom-0.05*span), top+legendRoom(len(names)+len(curves))*2*span
	p.Y.Tick.Marker = plot.DefaultTicks{}
	return p, nil
}
