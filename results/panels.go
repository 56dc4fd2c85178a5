package results

import (
	"fmt"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Panel is one panel of a PanelPlot: its y axis and its lines.
type Panel struct {
	YLabel string
	Series []Series
}

// PanelPlot draws panels one above the other over a shared x axis (the
// counters of a run over time, say) and saves them as path (.svg or .png).
func PanelPlot(path, title, xlabel string, panels []Panel) error {
	if len(panels) == 0 {
		return fmt.Errorf("plot %s: no panels", path)
	}
	rows := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := linePlot("", xlabel, pn.YLabel, pn.Series)
		if err != nil {
			return err
		}
		if i == 0 {
			p.Title.Text = title
		}
		if i < len(panels)-1 {
			p.X.Label.Text = ""
		}
		rows[i] = []*plot.Plot{p}
	}
	h := figureH * vg.Length(len(panels)) * 0.6
	var c draw.Canvas
	var save func(*os.File) error
	switch filepath.Ext(path) {
	case ".png":
		img := vgimg.New(figureW, h)
		c = draw.New(img)
		save = func(f *os.File) error { _, err := vgimg.PngCanvas{Canvas: img}.WriteTo(f); return err }
	case ".svg":
		svg := vgsvg.New(figureW, h)
		c = draw.New(svg)
		save = func(f *os.File) error { _, err := svg.WriteTo(f); return err }
	default:
		return fmt.Errorf("plot %s: want a .svg or .png file", path)
	}
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Points(4), PadBottom: vg.Points(4), PadY: vg.Points(6)}
	canvases := plot.Align(rows, tiles, c)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := save(f); err != nil {
		f.Close()
		return fmt.Errorf("saving %s: %w", path, err)
	}
	return f.Close()
}
