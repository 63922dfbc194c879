package plot

import (
	"math"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/recorder"
)

// TestLegendBesideData: the legend is drawn right of every curve, so a
// curve that reaches the top right corner is not hidden under it, and a
// figure without a legend keeps its whole width.
func TestLegendBesideData(t *testing.T) {
	for _, withLegend := range []bool{true, false} {
		p := gplot.New()
		p.Title.Text = "title"
		p.Legend.Top = true
		const n = 50
		l, err := line(func(i int) float64 { return float64(i) }, func() []float64 {
			y := make([]float64, n)
			for i := range y {
				y[i] = math.Sqrt(float64(i)) // ends at the top right
			}
			return y
		}())
		if err != nil {
			t.Fatal(err)
		}
		p.Add(l)
		if withLegend {
			p.Legend.Add("measured", l)
		}
		var rec recorder.Canvas
		c := draw.NewCanvas(&rec, 6*vg.Inch, 3*vg.Inch)
		drawPanel(p, c, legendWidth([]*gplot.Plot{p}, c))
		curveMax, textX := vg.Length(math.Inf(-1)), vg.Length(math.Inf(-1))
		for _, a := range rec.Actions {
			switch a := a.(type) {
			case *recorder.Stroke:
				if len(a.Path) < n/2 {
					continue // axes, ticks and the legend's thumbnail
				}
				for _, c := range a.Path {
					curveMax = max(curveMax, c.Pos.X)
				}
			case *recorder.FillString:
				if a.String == "measured" {
					textX = a.Point.X
				}
			}
		}
		switch {
		case math.IsInf(float64(curveMax), -1):
			t.Fatalf("legend %v: no curve drawn", withLegend)
		case withLegend && !(textX > curveMax):
			t.Errorf("legend text at x = %v, inside the curves (right end %v)", textX, curveMax)
		case !withLegend && curveMax < 5.5*vg.Inch:
			t.Errorf("without a legend the curve ends at x = %v of %v", curveMax, 6*vg.Inch)
		}
	}
}
