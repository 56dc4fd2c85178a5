package results

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
)

// Series is one line of a LinePlot.
type Series struct {
	Name string
	X, Y []float64
}

// LinePlot draws one line with point marks per series, y against x, and
// saves it as path (.svg or .png by its extension).
func LinePlot(path, title, xlabel, ylabel string, series []Series) error {
	p, err := linePlot(title, xlabel, ylabel, series)
	if err != nil {
		return err
	}
	if err := p.Save(figureW, figureH, path); err != nil {
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return nil
}

// linePlot draws what LinePlot saves.
func linePlot(title, xlabel, ylabel string, series []Series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Legend.Left = true
	top := 0.0
	for i, s := range series {
		for _, y := range s.Y {
			top = max(top, y)
		}
		xy := make(plotter.XYs, len(s.X))
		for k := range s.X {
			xy[k] = plotter.XY{X: s.X[k], Y: s.Y[k]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, fmt.Errorf("plotting %s: %w", s.Name, err)
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		p.Add(l, pts)
		p.Legend.Add(s.Name, l, pts)
	}
	valueAxis(&p.Y, top, legendRoom(len(series)))
	return p, nil
}
