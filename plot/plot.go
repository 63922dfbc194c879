package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/passivenfir/gputrain/internal/atomicfile"
)

// ErrNoData reports a figure with nothing to draw.
var ErrNoData = errors.New("plot: nothing to draw")

// Trace is one batch of a response figure: the measured output Y, the
// model's output YSim, and (optional) the noise-free output YClean.
type Trace struct {
	Title  string
	Y      []float64
	YSim   []float64
	YClean []float64
}

// Responses writes base.png and base.svg: one panel per trace, measured
// against simulated output over time (seconds when ts > 0, else samples).
func Responses(base string, traces []Trace, ts float64) error {
	if len(traces) == 0 {
		return fmt.Errorf("%w: no traces for %s", ErrNoData, base)
	}
	xlabel, dt := "t [samples]", 1.0
	if ts > 0 {
		xlabel, dt = "t [s]", ts
	}
	var panels []*gplot.Plot
	for _, tr := range traces {
		p := gplot.New()
		p.Title.Text = tr.Title
		p.X.Label.Text = xlabel
		p.Y.Label.Text = "y"
		p.Legend.Top = true
		series := []struct {
			name string
			y    []float64
			c    color.Color
			dash []vg.Length
		}{
			{"measured", tr.Y, color.Gray{Y: 90}, nil},
			{"clean", tr.YClean, color.RGBA{R: 200, A: 255}, []vg.Length{vg.Points(3), vg.Points(2)}},
			{"simulated", tr.YSim, color.RGBA{B: 220, G: 80, A: 255}, nil},
		}
		for _, s := range series {
			if len(s.y) == 0 {
				continue
			}
			l, err := line(func(i int) float64 { return float64(i) * dt }, s.y)
			if err != nil {
				return err
			}
			l.Color, l.Dashes = s.c, s.dash
			p.Add(l)
			p.Legend.Add(s.name, l)
		}
		panels = append(panels, p)
	}
	return save(base, panels, 8*vg.Inch, vg.Length(2.6*float64(len(panels)))*vg.Inch)
}

// RealPart returns Re G(e^{iω}) = Σ_k g(k) cos(kω), the quantity that
// passivity requires to be ≥ 0 for every ω ∈ [0, π].
func RealPart(g []float64, omega float64) float64 {
	s := 0.0
	for k, v := range g {
		s += v * math.Cos(float64(k)*omega)
	}
	return s
}

// RealParts writes base.png and base.svg: Re G_j(e^{iω}) over ω ∈ [0, π] for
// every branch FIR (and the parallel linear FIR when linear is not empty),
// with the zero line that passivity must not cross.
func RealParts(base string, branches [][]float64, linear []float64) error {
	if len(branches) == 0 && len(linear) == 0 {
		return fmt.Errorf("%w: no FIR for %s", ErrNoData, base)
	}
	p := gplot.New()
	p.Title.Text = "Re G_j(e^iω) per FIR (passive: never below the dashed zero line)"
	p.Legend.Top = true
	p.Y.Tick.Marker = fineTicks{}
	p.X.Label.Text = "ω [rad/sample]"
	p.Y.Label.Text = "Re G"
	const n = 1024
	omega := func(i int) float64 { return math.Pi * float64(i) / (n - 1) }
	curve := func(g []float64) []float64 {
		y := make([]float64, n)
		for i := range y {
			y[i] = RealPart(g, omega(i))
		}
		return y
	}
	zero, err := line(omega, make([]float64, n))
	if err != nil {
		return err
	}
	zero.Color, zero.Dashes = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero)
	p.Legend.Add("0", zero)
	for j, g := range branches {
		l, err := line(omega, curve(g))
		if err != nil {
			return err
		}
		// Colours repeat after len(DefaultColors) branches: dashes tell
		// those apart.
		l.Color = plotutil.Color(j)
		if k := j / len(plotutil.DefaultColors); k > 0 {
			l.Dashes = plotutil.Dashes(k)
		}
		p.Add(l)
		if len(branches) <= 12 {
			p.Legend.Add(fmt.Sprintf("branch %d", j), l)
		}
	}
	if len(linear) > 0 {
		l, err := line(omega, curve(linear))
		if err != nil {
			return err
		}
		l.Color, l.Width = color.Black, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add("linear", l)
	}
	return save(base, []*gplot.Plot{p}, 7*vg.Inch, 4.5*vg.Inch)
}

// Point is one epoch of a training run: Step counts epochs over the whole
// run, Stage names the phase ("adam", "bptt"), Loss is the training loss and
// ValFit the validation Fit in percent (NaN when unknown).
type Point struct {
	Step   int
	Stage  string
	Loss   float64
	ValFit float64
}

// TrainingCurves writes base.png and base.svg: the training loss (log scale)
// and the validation Fit per epoch, one colour per stage.
func TrainingCurves(base string, pts []Point) error {
	if len(pts) == 0 {
		return fmt.Errorf("%w: no training history for %s", ErrNoData, base)
	}
	loss, fit := gplot.New(), gplot.New()
	loss.Title.Text = "training loss"
	loss.Y.Label.Text = "loss"
	loss.X.Label.Text = "epoch"
	fit.Title.Text = "validation Fit (adam: open loop; bptt: closed loop)"
	fit.Y.Label.Text = "Fit [%]"
	fit.X.Label.Text = "epoch"
	var stages []string
	byStage := map[string][]Point{}
	positive := true
	for _, p := range pts {
		if _, ok := byStage[p.Stage]; !ok {
			stages = append(stages, p.Stage)
		}
		byStage[p.Stage] = append(byStage[p.Stage], p)
		if finite(p.Loss) && p.Loss <= 0 {
			positive = false
		}
	}
	loss.Legend.Top, fit.Legend.Top = true, true
	loss.Y.Tick.Marker, fit.Y.Tick.Marker = fineTicks{}, fineTicks{}
	if positive && spansDecade(pts) {
		loss.Y.Scale = gplot.LogScale{}
		loss.Y.Tick.Marker = gplot.LogTicks{Prec: -1}
	}
	drawn := 0
	for i, st := range stages {
		ps := byStage[st]
		var lxy, fxy plotter.XYs
		for _, p := range ps {
			if finite(p.Loss) && (!positive || p.Loss > 0) {
				lxy = append(lxy, plotter.XY{X: float64(p.Step), Y: p.Loss})
			}
			if finite(p.ValFit) {
				fxy = append(fxy, plotter.XY{X: float64(p.Step), Y: p.ValFit})
			}
		}
		for _, s := range []struct {
			p   *gplot.Plot
			xys plotter.XYs
		}{{loss, lxy}, {fit, fxy}} {
			if len(s.xys) == 0 {
				continue
			}
			l, err := plotter.NewLine(s.xys)
			if err != nil {
				return fmt.Errorf("plot: %s: %w", base, err)
			}
			l.Color = plotutil.Color(i)
			s.p.Add(l)
			s.p.Legend.Add(st, l)
			drawn++
		}
	}
	if drawn == 0 {
		return fmt.Errorf("%w: the training history of %s has no finite values", ErrNoData, base)
	}
	// A nearly flat Fit curve would get one repeated tick label.
	if fit.Y.Max-fit.Y.Min < 1 {
		c := (fit.Y.Max + fit.Y.Min) / 2
		fit.Y.Min, fit.Y.Max = c-0.5, c+0.5
	}
	return save(base, []*gplot.Plot{loss, fit}, 7*vg.Inch, 6*vg.Inch)
}

// line builds a line from y against x(i), dropping non-finite samples (a
// diverging np model must not make the whole figure fail).
func line(x func(int) float64, y []float64) (*plotter.Line, error) {
	xys := make(plotter.XYs, 0, len(y))
	for i, v := range y {
		if finite(v) {
			xys = append(xys, plotter.XY{X: x(i), Y: v})
		}
	}
	if len(xys) == 0 {
		return nil, fmt.Errorf("%w: a series has no finite values", ErrNoData)
	}
	return plotter.NewLine(xys)
}

// spansDecade reports whether the finite losses span more than a factor of
// ten, where a log axis helps; a narrower range gets a linear axis.
func spansDecade(pts []Point) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pts {
		if finite(p.Loss) && p.Loss > 0 {
			lo, hi = min(lo, p.Loss), max(hi, p.Loss)
		}
	}
	return hi > 10*lo
}

// fineTicks are gonum's default ticks labelled with enough digits that
// neighbouring labels differ on narrow ranges.
type fineTicks struct{}

func (fineTicks) Ticks(lo, hi float64) []gplot.Tick {
	ts := gplot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = strconv.FormatFloat(ts[i].Value, 'g', 6, 64)
		}
	}
	return ts
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// save draws the panels stacked vertically into base.png and base.svg.
func save(base string, panels []*gplot.Plot, w, h vg.Length) error {
	drawTo := func(c vg.CanvasSizer) {
		dc := draw.New(c)
		if len(panels) == 1 {
			drawPanel(panels[0], dc, legendWidth(panels, dc))
			return
		}
		rows := make([][]*gplot.Plot, len(panels))
		for i, p := range panels {
			rows[i] = []*gplot.Plot{p}
		}
		t := draw.Tiles{Rows: len(panels), Cols: 1, PadY: vg.Points(8), PadTop: vg.Points(4), PadBottom: vg.Points(4),
			PadLeft: vg.Points(4), PadRight: vg.Points(8)}
		cs := gplot.Align(rows, t, dc)
		lw := legendWidth(panels, dc)
		for i, p := range panels {
			drawPanel(p, cs[i][0], lw)
		}
	}
	png := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	drawTo(png)
	if err := writeAtomic(base+".png", vgimg.PngCanvas{Canvas: png}.WriteTo); err != nil {
		return err
	}
	svg := vgsvg.New(w, h)
	drawTo(svg)
	return writeAtomic(base+".svg", svg.WriteTo)
}

// legendWidth is the width of the widest legend of the panels (0 when none
// has one), so that stacked panels keep aligned data areas.
func legendWidth(panels []*gplot.Plot, c draw.Canvas) vg.Length {
	var w vg.Length
	for _, p := range panels {
		w = max(w, p.Legend.Rectangle(c).Size().X)
	}
	return w
}

// drawPanel draws p into c with its legend in a column of width lw to the
// right of the axes rather than inside them, where gonum puts it: inside, it
// hides the curves it names whenever they reach the top right corner.
func drawPanel(p *gplot.Plot, c draw.Canvas, lw vg.Length) {
	if lw == 0 {
		p.Draw(c)
		return
	}
	gap := vg.Points(8)
	leg := p.Legend
	p.Legend = gplot.NewLegend()
	p.Draw(draw.Crop(c, 0, -(lw + gap), 0, 0))
	p.Legend = leg
	strip := draw.Crop(c, c.Size().X-lw, 0, 0, 0)
	if p.Title.Text != "" {
		strip.Max.Y -= p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
	}
	leg.Draw(strip)
}

// writeAtomic writes path through internal/atomicfile: a temporary file in
// the same directory, renamed into place only when writing succeeded.
func writeAtomic(path string, write func(io.Writer) (int64, error)) error {
	err := atomicfile.Write(path, func(w io.Writer) error { _, err := write(w); return err })
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
