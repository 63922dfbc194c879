package plot

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"slices"
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

// Trace is one record of a response figure: the measured output Y, the
// model's output YSim, and (optional) the noise-free output YClean.
type Trace struct {
	Title  string
	Y      []float64
	YSim   []float64
	YClean []float64
	// Fit is the Fit of YSim in percent, shown in the panel's title as the
	// command that draws it reports it (scored against YClean when it is
	// given); NaN shows none.
	Fit float64
	// YLabel labels the y axis: the name of the output's column in the
	// data; "y" when empty.
	YLabel string
}

// Responses writes base.png and base.svg: one panel per trace, measured
// against simulated output over time (seconds when ts > 0, else samples),
// the trace's Fit in its title.
func Responses(base string, traces []Trace, ts float64) error {
	f, err := responses(traces, ts)
	if err != nil {
		return fmt.Errorf("%w for %s", err, base)
	}
	return f.save(base)
}

func responses(traces []Trace, ts float64) (*figure, error) {
	if len(traces) == 0 {
		return nil, fmt.Errorf("%w: no traces", ErrNoData)
	}
	xlabel, dt := "t [samples]", 1.0
	if ts > 0 {
		xlabel, dt = "t [s]", ts
	}
	var panels []*gplot.Plot
	for _, tr := range traces {
		p := gplot.New()
		p.Title.Text = tr.Title
		if !math.IsNaN(tr.Fit) {
			p.Title.Text += ": " + fitText(tr.Fit, len(tr.YClean) > 0)
		}
		p.X.Label.Text = xlabel
		p.X.Tick.Marker, p.Y.Tick.Marker = niceTicks{}, niceTicks{}
		p.Y.Label.Text = tr.YLabel
		if p.Y.Label.Text == "" {
			p.Y.Label.Text = "y"
		}
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
				return nil, err
			}
			l.Color, l.Dashes = s.c, s.dash
			p.Add(l)
			p.Legend.Add(s.name, l)
		}
		panels = append(panels, p)
	}
	return &figure{panels, 8 * vg.Inch, vg.Length(2.6*float64(len(panels))) * vg.Inch}, nil
}

// fitText formats a Fit for a title; a diverged simulation scores −∞.
func fitText(fit float64, clean bool) string {
	switch {
	case math.IsInf(fit, -1):
		return "Fit −∞ (the simulation diverged)"
	case clean:
		return fmt.Sprintf("Fit %.2f%% (against the clean output)", fit)
	}
	return fmt.Sprintf("Fit %.2f%%", fit)
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
// with the zero line that passivity must not cross and, when bound > 0, the
// level a sampled passivity constraint kept Re G above (ε/2 of the
// constraint Σ_k g(k)·2cos(kω_h) ≥ ε, in the units of the model).
//
// The y axis is symmetric-logarithmic (SymLogScale): linear near 0, with a
// threshold below the smallest positive margin, logarithmic beyond, so that a
// margin of 1e-3 under curves of order one is seen apart from 0.
func RealParts(base string, branches [][]float64, linear []float64, bound float64) error {
	f, err := realParts(branches, linear, bound)
	if err != nil {
		return fmt.Errorf("%w for %s", err, base)
	}
	return f.save(base)
}

func realParts(branches [][]float64, linear []float64, bound float64) (*figure, error) {
	if len(branches) == 0 && len(linear) == 0 {
		return nil, fmt.Errorf("%w: no FIR", ErrNoData)
	}
	const n = 1024
	omega := func(i int) float64 { return math.Pi * float64(i) / (n - 1) }
	type curve struct {
		name string
		y    []float64
	}
	var curves []curve
	minRe, minAt, top := math.Inf(1), "", 0.0
	add := func(name string, g []float64) {
		y := make([]float64, n)
		for k := range y {
			y[k] = RealPart(g, omega(k))
			if finite(y[k]) {
				top = math.Max(top, math.Abs(y[k]))
				if y[k] < minRe {
					minRe, minAt = y[k], name
				}
			}
		}
		curves = append(curves, curve{name, y})
	}
	for j, g := range branches {
		add(fmt.Sprintf("branch %d", j), g)
	}
	if len(linear) > 0 {
		add("linear", linear)
	}
	if !finite(bound) || bound <= 0 {
		bound = 0
	}
	top = math.Max(top, bound)
	p := gplot.New()
	p.Title.Text = "Re G_j(e^iω) per FIR; passive when no curve goes below 0"
	if finite(minRe) {
		p.Title.Text += fmt.Sprintf("; min ≈ %.3g (%s)", minRe, minAt)
	}
	p.Legend.Top = true
	p.X.Label.Text = "ω [rad/sample]"
	p.X.Tick.Marker = niceTicks{}
	// The threshold of the linear zone lies at or below the smallest
	// positive margin and the bound, so that each is a decade or more
	// from 0, yet at most 1e-3 of the largest value: closer to 0 than
	// 1e-6 of it no difference is worth an axis decade.
	thr := 1e-3 * top
	for _, v := range []float64{minRe, bound} {
		if v > 0 {
			thr = math.Min(thr, v/10)
		}
	}
	thr = math.Max(thr, 1e-6*top)
	if !(thr > 0) {
		thr = 1
	}
	p.Y.Scale, p.Y.Tick.Marker = SymLogScale{Threshold: thr}, SymLogTicks{Threshold: thr}
	// A short label: gonum places the label's box at the middle of the
	// data range, which a log-like scale puts near the top, and shrinks
	// the axes by whatever of a long label sticks out there. The linear
	// zone is named in the legend.
	p.Y.Label.Text = "Re G (symlog)"
	zero, err := line(omega, make([]float64, n))
	if err != nil {
		return nil, err
	}
	zero.Color, zero.Dashes = color.Black, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(zero)
	p.Legend.Add("0", zero)
	if bound > 0 {
		b, err := line(omega, slices.Repeat([]float64{bound}, n))
		if err != nil {
			return nil, err
		}
		b.Color, b.Dashes = color.Gray{Y: 120}, []vg.Length{vg.Points(1), vg.Points(2)}
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("ε/2 = %.3g", bound), b)
	}
	for j, c := range curves {
		l, err := line(omega, c.y)
		if err != nil {
			return nil, err
		}
		if c.name == "linear" {
			l.Color, l.Width = color.Black, vg.Points(1.5)
		} else {
			// Colours repeat after len(DefaultColors) branches:
			// dashes tell those apart.
			l.Color = plotutil.Color(j)
			if k := j / len(plotutil.DefaultColors); k > 0 {
				l.Dashes = plotutil.Dashes(k)
			}
		}
		p.Add(l)
		if c.name == "linear" || len(branches) <= 12 {
			p.Legend.Add(c.name, l)
		}
	}
	p.Legend.Add(fmt.Sprintf("(linear within ±%.2g)", thr))
	// Room below 0 in the linear zone: the zero line is not the axis.
	p.Y.Min = math.Min(p.Y.Min, -thr)
	return &figure{[]*gplot.Plot{p}, 7 * vg.Inch, 4.5 * vg.Inch}, nil
}

// Stages of a Point that are not epochs.
const (
	StageThetaG = "theta_g" // a θ_G step: Loss is the training loss after it
	StageEval   = "eval"    // a closed-loop evaluation: ValFit is its validation Fit
)

// Point is one event of a training run. An epoch of a stage that trains by
// epochs ("adam", "bptt") has the training Loss and the validation ValFit
// that stage monitors; a θ_G step (StageThetaG) has the training Loss after
// it; a closed-loop evaluation at the end of an iteration (StageEval) has
// its validation ValFit. Step is the number of epochs done over the whole
// run (an epoch's own included). NaN marks a value not known.
type Point struct {
	Step   int
	Stage  string
	Loss   float64
	ValFit float64
}

// fitFloor is the lowest Fit a training figure shows: a first iteration
// at −300 % would squash the later ones, which are the ones that matter,
// into one line. Points below it are counted in the title.
const fitFloor = -100

// TrainingCurves writes base.png and base.svg: the training loss (log scale
// when it spans more than a decade) with a mark at every θ_G step, the
// validation Fit each epoch monitors, and the closed-loop validation Fit
// after each iteration; one colour per stage, a dotted vertical line at
// every θ_G step.
func TrainingCurves(base string, pts []Point) error {
	f, err := trainingCurves(pts)
	if err != nil {
		return fmt.Errorf("%w for %s", err, base)
	}
	return f.save(base)
}

func trainingCurves(pts []Point) (*figure, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("%w: no training history", ErrNoData)
	}
	loss, fit, closed := gplot.New(), gplot.New(), gplot.New()
	loss.Title.Text = "training loss"
	loss.Y.Label.Text = "loss"
	fit.Title.Text = "validation Fit per epoch, as monitored (adam: open loop by default; bptt: closed loop)"
	fit.Y.Label.Text = "Fit [%]"
	closed.Title.Text = "closed-loop validation Fit after each iteration"
	closed.Y.Label.Text = "Fit [%]"
	var stages []string
	byStage := map[string][]Point{}
	positive := true
	var thetaG []float64
	// run numbers the iterations: an epoch curve is broken at every θ_G
	// step, which changes the model the epochs train.
	run, runs := 0, map[string][]int{}
	for _, p := range pts {
		if p.Stage == StageThetaG {
			thetaG = append(thetaG, float64(p.Step))
			run++
		}
		if _, ok := byStage[p.Stage]; !ok && p.Stage != StageThetaG && p.Stage != StageEval {
			stages = append(stages, p.Stage)
		}
		byStage[p.Stage] = append(byStage[p.Stage], p)
		runs[p.Stage] = append(runs[p.Stage], run)
		if finite(p.Loss) && p.Loss <= 0 && p.Stage != StageEval {
			positive = false
		}
	}
	for _, p := range []*gplot.Plot{loss, fit, closed} {
		p.Legend.Top = true
		p.X.Label.Text = "epochs done"
		p.X.Tick.Marker = niceTicks{Integer: true}
		p.Y.Tick.Marker = niceTicks{}
	}
	if positive && spansDecade(pts) {
		loss.Y.Scale = gplot.LogScale{}
		loss.Y.Tick.Marker = logTicks{}
	}
	drawn := 0
	// add draws xys into p in colour c, with markers when marker is set,
	// and names it in the legend unless it continues a curve named before.
	add := func(p *gplot.Plot, name string, xys plotter.XYs, c color.Color, marker, named bool) error {
		if len(xys) == 0 {
			return nil
		}
		l, s, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		l.Color = c
		thumbs := []gplot.Thumbnailer{l}
		if marker {
			s.Color, s.Radius = c, vg.Points(2.5)
			p.Add(s)
			thumbs = append(thumbs, s)
		}
		p.Add(l)
		if !named {
			p.Legend.Add(name, thumbs...)
		}
		drawn++
		return nil
	}
	below := map[*gplot.Plot]int{}
	valPoint := func(p *gplot.Plot, pt Point) (plotter.XY, bool) {
		if !finite(pt.ValFit) {
			return plotter.XY{}, false
		}
		if pt.ValFit < fitFloor {
			below[p]++
		}
		return plotter.XY{X: float64(pt.Step), Y: pt.ValFit}, true
	}
	for i, st := range stages {
		var lxy, fxy plotter.XYs
		lnamed, fnamed := false, false
		flush := func() error {
			if err := add(loss, st, lxy, plotutil.Color(i), false, lnamed); err != nil {
				return err
			}
			if err := add(fit, st, fxy, plotutil.Color(i), false, fnamed); err != nil {
				return err
			}
			lnamed, fnamed = lnamed || len(lxy) > 0, fnamed || len(fxy) > 0
			lxy, fxy = nil, nil
			return nil
		}
		for k, p := range byStage[st] {
			if k > 0 && runs[st][k] != runs[st][k-1] {
				if err := flush(); err != nil {
					return nil, err
				}
			}
			if finite(p.Loss) && (!positive || p.Loss > 0) {
				lxy = append(lxy, plotter.XY{X: float64(p.Step), Y: p.Loss})
			}
			if xy, ok := valPoint(fit, p); ok {
				fxy = append(fxy, xy)
			}
		}
		if err := flush(); err != nil {
			return nil, err
		}
	}
	var gxy, cxy plotter.XYs
	for _, p := range byStage[StageThetaG] {
		if finite(p.Loss) && (!positive || p.Loss > 0) {
			gxy = append(gxy, plotter.XY{X: float64(p.Step), Y: p.Loss})
		}
	}
	for _, p := range byStage[StageEval] {
		if xy, ok := valPoint(closed, p); ok {
			cxy = append(cxy, xy)
		}
	}
	if len(gxy) > 0 {
		s, err := plotter.NewScatter(gxy)
		if err != nil {
			return nil, err
		}
		s.Color, s.Shape, s.Radius = color.Black, draw.PyramidGlyph{}, vg.Points(3)
		loss.Add(s)
		loss.Legend.Add("after θ_G step", s)
		drawn++
	}
	if err := add(closed, "closed loop", cxy, color.RGBA{B: 220, G: 80, A: 255}, true, false); err != nil {
		return nil, err
	}
	if drawn == 0 {
		return nil, fmt.Errorf("%w: the training history has no finite values", ErrNoData)
	}
	panels := []*gplot.Plot{loss}
	if fit.Y.Min <= fit.Y.Max {
		panels = append(panels, fit)
	}
	if len(cxy) > 0 {
		panels = append(panels, closed)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range panels {
		lo, hi = math.Min(lo, p.X.Min), math.Max(hi, p.X.Max)
	}
	for _, p := range panels {
		// One epoch axis for all panels, so that a θ_G line lies at the
		// same place in each.
		p.X.Min, p.X.Max = lo, hi
		if len(thetaG) > 0 {
			v := vlines{xs: thetaG, style: draw.LineStyle{Color: color.Gray{Y: 150}, Width: vg.Points(0.75), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}}
			p.Add(v)
			p.Legend.Add("θ_G step", v)
		}
		if p == loss {
			continue
		}
		if n := below[p]; n > 0 {
			p.Y.Min = fitFloor
			p.Title.Text += fmt.Sprintf(" (%d below %d%% not shown)", n, fitFloor)
		}
		// A nearly flat Fit curve would get one repeated tick label.
		if p.Y.Max-p.Y.Min < 1 {
			c := (p.Y.Max + p.Y.Min) / 2
			p.Y.Min, p.Y.Max = c-0.5, c+0.5
		}
	}
	return &figure{panels, 7 * vg.Inch, vg.Length(2.8*float64(len(panels))) * vg.Inch}, nil
}

// vlines draws a vertical line across the data area at every x (a gonum
// plot.Plotter and legend thumbnail); it takes no part in the axis ranges.
type vlines struct {
	xs    []float64
	style draw.LineStyle
}

func (v vlines) Plot(c draw.Canvas, p *gplot.Plot) {
	tx, _ := p.Transforms(&c)
	for _, x := range v.xs {
		if x >= p.X.Min && x <= p.X.Max {
			c.StrokeLine2(v.style, tx(x), c.Min.Y, tx(x), c.Max.Y)
		}
	}
}

func (v vlines) Thumbnail(c *draw.Canvas) {
	x := (c.Min.X + c.Max.X) / 2
	c.StrokeLine2(v.style, x, c.Min.Y, x, c.Max.Y)
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

// niceTicks mark a linear axis at steps of 1, 2 or 5 times a power of ten,
// three to six labels in all, with as many decimals as the step needs: the
// labels read "0, 25, 50" rather than gonum's "0.00, 25.00, 50.00", and
// neighbouring labels differ on narrow ranges. Integer makes the step at
// least 1, for axes of counts (epochs).
type niceTicks struct{ Integer bool }

func (t niceTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return defaultTicks(lo, hi)
	}
	step, minor := niceStep((hi - lo) / 6)
	if t.Integer && step < 1 {
		step, minor = 1, 1
	}
	digits := max(0, -int(math.Floor(math.Log10(step)+1e-9)))
	var ts []gplot.Tick
	for i := math.Ceil(lo / minor); i*minor <= hi; i++ {
		v := i * minor
		tk := gplot.Tick{Value: v}
		if k := math.Round(v / step); math.Abs(v-k*step) < 1e-9*step {
			tk.Value = k * step
			tk.Label = strconv.FormatFloat(tk.Value, 'f', digits, 64)
			if tk.Label == "-"+strconv.FormatFloat(0, 'f', digits, 64) {
				tk.Label = tk.Label[1:]
			}
		}
		ts = append(ts, tk)
	}
	return ts
}

// niceStep returns the step 1, 2 or 5 × 10^k nearest above x and the step
// of the minor ticks between.
func niceStep(x float64) (step, minor float64) {
	p := math.Pow10(int(math.Floor(math.Log10(x))))
	switch m := x / p; {
	case m <= 1:
		return p, p / 5
	case m <= 2:
		return 2 * p, p / 2
	case m <= 5:
		return 5 * p, p
	}
	return 10 * p, 2 * p
}

// logTicks mark a log axis: powers of ten labelled, and 2× and 5× labelled
// too when the range spans less than two decades, where gonum's LogTicks
// leave one label or none.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []gplot.Tick {
	if !(lo > 0) || !(hi > lo) || math.IsInf(hi, 0) {
		return defaultTicks(lo, hi)
	}
	few := math.Log10(hi/lo) < 2
	var ts []gplot.Tick
	for k := int(math.Floor(math.Log10(lo))); k <= int(math.Ceil(math.Log10(hi))); k++ {
		for i := 1; i < 10; i++ {
			v := float64(i) * math.Pow10(k)
			if v < lo || v > hi {
				continue
			}
			t := gplot.Tick{Value: v}
			if i == 1 || few && (i == 2 || i == 5) {
				t.Label = strconv.FormatFloat(v, 'g', 3, 64)
			}
			ts = append(ts, t)
		}
	}
	return ts
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// figure is one figure of stacked panels, w × h.
type figure struct {
	panels []*gplot.Plot
	w, h   vg.Length
}

// margin is the blank border of every figure: gonum draws a title up to its
// font's descent above the canvas and a legend up to its right edge, both
// cut where nothing is left around them.
const margin = 8 // points

// save draws f into base.png and base.svg.
func (f *figure) save(base string) error {
	png := vgimg.NewWith(vgimg.UseWH(f.w, f.h), vgimg.UseDPI(96), vgimg.UseBackgroundColor(color.White))
	f.draw(png)
	if err := writeAtomic(base+".png", vgimg.PngCanvas{Canvas: png}.WriteTo); err != nil {
		return err
	}
	svg := vgsvg.New(f.w, f.h)
	f.draw(svg)
	return writeAtomic(base+".svg", svg.WriteTo)
}

// draw draws the panels stacked vertically onto c, inside the margin.
func (f *figure) draw(c vg.CanvasSizer) {
	m := vg.Points(margin)
	dc := draw.Crop(draw.New(c), m, -m, m, -m)
	lw := legendWidth(f.panels, dc)
	if len(f.panels) == 1 {
		drawPanel(f.panels[0], dc, lw)
		return
	}
	rows := make([][]*gplot.Plot, len(f.panels))
	for i, p := range f.panels {
		rows[i] = []*gplot.Plot{p}
	}
	t := draw.Tiles{Rows: len(f.panels), Cols: 1, PadY: vg.Points(12)}
	cs := gplot.Align(rows, t, dc)
	for i, p := range f.panels {
		drawPanel(p, cs[i][0], lw)
	}
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
// hides the curves it names whenever they reach the top right corner. A
// title wider than the axes is set in a smaller font rather than cut.
func drawPanel(p *gplot.Plot, c draw.Canvas, lw vg.Length) {
	gap := vg.Points(8)
	if lw == 0 {
		gap = 0
	}
	fitTitle(p, c.Size().X-lw-gap)
	if lw == 0 {
		p.Draw(c)
		return
	}
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

// fitTitle shrinks p's title font, down to 7 points, until the title is no
// wider than w.
func fitTitle(p *gplot.Plot, w vg.Length) {
	st := &p.Title.TextStyle
	for st.Rectangle(p.Title.Text).Size().X > w && st.Font.Size > vg.Points(7) {
		st.Font.Size -= vg.Points(0.5)
	}
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
