package results

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one line of a LinePlot.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot draws one line with point marks per series, y against x, and
// saves it as path (.svg or .png by its extension).
func LinePlot(path, title, xlabel, ylabel string, series []Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range series {
		xy := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xy[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return fmt.Errorf("plotting %s: %w", s.Name, err)
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	if err := p.Save(20*vg.Centimeter, 11*vg.Centimeter, path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}
