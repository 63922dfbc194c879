package plot

import (
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/recorder"
)

// testHistory is a training run of four iterations of twelve Adam epochs,
// each after a θ_G step and followed by a closed-loop evaluation (the first
// at −364 %, as a first iteration can be), then ten BPTT epochs.
func testHistory() []Point {
	var pts []Point
	step := 0
	loss := func() float64 { return 3 * math.Exp(-float64(step)/8) }
	for k := range 4 {
		pts = append(pts, Point{Step: step, Stage: StageThetaG, Loss: 0.8 * loss(), ValFit: math.NaN()})
		for range 12 {
			step++
			pts = append(pts, Point{Step: step, Stage: "adam", Loss: loss(), ValFit: 50 + float64(step)/2})
		}
		pts = append(pts, Point{Step: step, Stage: StageEval, Loss: math.NaN(), ValFit: []float64{-364, 40, 70, 75}[k]})
	}
	for e := range 10 {
		step++
		pts = append(pts, Point{Step: step, Stage: "bptt", Loss: loss(), ValFit: 75 + float64(e)/4})
	}
	return append(pts, Point{Step: step, Stage: StageEval, Loss: math.NaN(), ValFit: 78})
}

// testFigures are the figures the pixel and geometry tests look at.
func testFigures(t *testing.T) map[string]*figure {
	t.Helper()
	y, ysim := make([]float64, 400), make([]float64, 400)
	for i := range y {
		y[i] = math.Sin(0.05 * float64(i))
		ysim[i] = 0.9 * y[i]
	}
	var branches [][]float64
	for j := range 14 { // more than the legend lists
		branches = append(branches, []float64{1 + 0.1*float64(j), 0.3, 0.1})
	}
	figs := map[string]*figure{}
	for name, build := range map[string]func() (*figure, error){
		"responses": func() (*figure, error) {
			return responses([]Trace{
				{Title: `robot_val.csv (held-out 20%), batch "3" (from line 123456) (closed loop), a title longer than the axes`, Y: y, YSim: ysim, Fit: 90, YLabel: "tau"},
				{Title: "batch 1", Y: y, YSim: ysim, YClean: y, Fit: math.Inf(-1)},
			}, 0.02)
		},
		"realparts": func() (*figure, error) {
			return realParts([][]float64{{0.5005, 0.4995}, {1, 0.3, 0.1}, {0.8, -0.2}}, []float64{1, 0.1}, 0.005)
		},
		"realparts-many": func() (*figure, error) { return realParts(branches, nil, 0) },
		"training":       func() (*figure, error) { return trainingCurves(testHistory()) },
	} {
		f, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		figs[name] = f
	}
	return figs
}

// dark reports a pixel that is ink rather than background or a light grey.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return (r+g+b)/3 < 0xa000
}

// TestFiguresInsideCanvas renders every figure to PNG and checks that
// nothing is cut at the border: no ink in the outer frame of the image (a
// clipped title or legend leaves ink there), and the title is drawn in the
// band just below the top edge.
func TestFiguresInsideCanvas(t *testing.T) {
	dir := t.TempDir()
	for name, f := range testFigures(t) {
		base := filepath.Join(dir, name)
		if err := f.save(base); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Open(base + ".png")
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		const frame = 3 // pixels
		var edge int
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				inner := x >= b.Min.X+frame && x < b.Max.X-frame && y >= b.Min.Y+frame && y < b.Max.Y-frame
				if !inner && dark(img.At(x, y)) {
					edge++
				}
			}
		}
		if edge > 0 {
			t.Errorf("%s: %d dark pixels within %d pixels of the border: something is cut", name, edge, frame)
		}
		var title int
		for y := b.Min.Y + frame; y < b.Min.Y+30; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if dark(img.At(x, y)) {
					title++
				}
			}
		}
		if title < 50 {
			t.Errorf("%s: %d dark pixels in the title band: no title", name, title)
		}
	}
}

// record draws f onto a recorder and returns the strings it wrote.
func record(f *figure) (*recorder.Canvas, []string) {
	rec := new(recorder.Canvas)
	f.draw(sizedRecorder{rec, f.w, f.h})
	var texts []string
	for _, a := range rec.Actions {
		if s, ok := a.(*recorder.FillString); ok {
			texts = append(texts, s.String)
		}
	}
	return rec, texts
}

// sizedRecorder is a recorder with a size, as figure.draw wants.
type sizedRecorder struct {
	*recorder.Canvas
	w, h vg.Length
}

func (s sizedRecorder) Size() (vg.Length, vg.Length) { return s.w, s.h }

func TestResponsesTitleAndLabel(t *testing.T) {
	_, texts := record(testFigures(t)["responses"])
	for _, want := range []string{
		`(closed loop), a title longer than the axes: Fit 90.00%`,
		"batch 1: Fit −∞ (the simulation diverged)",
		"tau", // the output's column
		"y",   // no column name given
		"t [s]",
	} {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasSuffix(s, want) }) {
			t.Errorf("no text ending in %q among %q", want, texts)
		}
	}
	f, err := responses([]Trace{{Title: "b", Y: []float64{1, 2}, YSim: []float64{1, 2}, YClean: []float64{1, 2}, Fit: 99.5}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, texts := record(f); !slices.Contains(texts, "b: Fit 99.50% (against the clean output)") || !slices.Contains(texts, "t [samples]") {
		t.Errorf("texts %q: want the Fit against the clean output, time in samples", texts)
	}
	if f, err = responses([]Trace{{Title: "b", Y: []float64{1, 2}, YSim: []float64{1, 2}, Fit: math.NaN()}}, 0); err != nil {
		t.Fatal(err)
	}
	if _, texts := record(f); !slices.Contains(texts, "b") {
		t.Errorf("texts %q: want the bare title when the Fit is NaN", texts)
	}
}

// strokes returns the paths stroked in colour c, in order.
func strokes(rec *recorder.Canvas, c color.Color) []vg.Path {
	var cur color.Color
	var out []vg.Path
	r0, g0, b0, a0 := c.RGBA()
	for _, a := range rec.Actions {
		switch a := a.(type) {
		case *recorder.SetColor:
			cur = a.Color
		case *recorder.Stroke:
			if cur == nil {
				continue
			}
			if r, g, b, al := cur.RGBA(); r == r0 && g == g0 && b == b0 && al == a0 {
				out = append(out, a.Path)
			}
		}
	}
	return out
}

func yRange(paths ...vg.Path) (lo, hi vg.Length) {
	lo, hi = vg.Length(math.Inf(1)), vg.Length(math.Inf(-1))
	for _, p := range paths {
		for _, c := range p {
			lo, hi = min(lo, c.Pos.Y), max(hi, c.Pos.Y)
		}
	}
	return lo, hi
}

// TestRealPartsMarginApartFromZero: branch 0 has min Re G = 1e-3 (at ω = π)
// under curves of order one; on the symlog axis its lowest point lies well
// above the zero line (on a linear axis it would be 0.1 % of the height
// away, on the line), and the ε/2 line is drawn and named.
func TestRealPartsMarginApartFromZero(t *testing.T) {
	rec, texts := record(testFigures(t)["realparts"])
	var zero []vg.Path
	for _, p := range strokes(rec, color.Black) {
		if lo, hi := yRange(p); len(p) > 100 && lo == hi {
			zero = append(zero, p) // the dashed zero line
		}
	}
	if len(zero) != 1 {
		t.Fatalf("%d horizontal black lines, want the zero line", len(zero))
	}
	zeroY, _ := yRange(zero[0])
	var branch0 []vg.Path
	for _, p := range strokes(rec, plotutil.Color(0)) {
		if len(p) > 100 {
			branch0 = append(branch0, p)
		}
	}
	if len(branch0) != 1 {
		t.Fatalf("%d curves in branch 0's colour, want 1", len(branch0))
	}
	lo, hi := yRange(branch0...)
	if sep, height := lo-zeroY, hi-zeroY; !(sep > 0.15*height) {
		t.Errorf("Re G = 1e-3 drawn %v above 0, %.1f%% of the curve's height %v: not apart from 0", sep, 100*sep/height, height)
	}
	for _, want := range []string{"ε/2 = 0.005", "min ≈ 0.001 (branch 0)", "0.001", "linear"} {
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, want) }) {
			t.Errorf("no text %q among %q", want, texts)
		}
	}
}

// TestTrainingCurvesMarks: a dotted vertical line at each of the four θ_G
// steps in each of the three panels, the θ_G losses marked, the closed-loop
// Fit drawn in its own panel with the point below −100 % counted, and epoch
// labels that are integers.
func TestTrainingCurvesMarks(t *testing.T) {
	rec, texts := record(testFigures(t)["training"])
	vertical := map[vg.Length]int{}
	for _, p := range strokes(rec, color.Gray{Y: 150}) {
		if len(p) == 2 && p[0].Pos.X == p[1].Pos.X && p[1].Pos.Y-p[0].Pos.Y > vg.Inch {
			vertical[p[0].Pos.X]++
		}
	}
	// Four θ_G steps; the panels share their x axis, so each position
	// has a line in each of the three panels.
	if len(vertical) != 4 {
		t.Errorf("vertical lines at %d x positions, want 4 (θ_G steps): %v", len(vertical), vertical)
	}
	for x, n := range vertical {
		if n != 3 {
			t.Errorf("x = %v: %d vertical lines, want one per panel (3)", x, n)
		}
	}
	for _, want := range []string{"θ_G step", "after θ_G step", "closed-loop validation Fit after each iteration (1 below -100% not shown)", "closed loop", "epochs done", "0.01", "0.1", "1"} {
		if !slices.Contains(texts, want) {
			t.Errorf("no text %q among %q", want, texts)
		}
	}
	for _, s := range texts {
		if strings.HasSuffix(s, ".00") || strings.HasSuffix(s, ".50") {
			t.Errorf("tick label %q: want as few digits as the step needs", s)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	labels := func(ts []gplot.Tick) []string {
		var l []string
		for _, t := range ts {
			if t.Label != "" {
				l = append(l, t.Label)
			}
		}
		return l
	}
	for _, tc := range []struct {
		lo, hi  float64
		integer bool
		want    []string
	}{
		{0, 58, true, []string{"0", "10", "20", "30", "40", "50"}},
		{0, 3, true, []string{"0", "1", "2", "3"}},
		{50.5, 77, false, []string{"55", "60", "65", "70", "75"}},
		{-1, 1, false, []string{"-1.0", "-0.5", "0.0", "0.5", "1.0"}},
		{99.91, 99.95, false, []string{"99.91", "99.92", "99.93", "99.94", "99.95"}},
		{0, 7.98, false, []string{"0", "2", "4", "6"}},
	} {
		got := labels(niceTicks{Integer: tc.integer}.Ticks(tc.lo, tc.hi))
		if !slices.Equal(got, tc.want) {
			t.Errorf("niceTicks{%v}.Ticks(%v, %v) labels %q, want %q", tc.integer, tc.lo, tc.hi, got, tc.want)
		}
	}
	for _, tc := range []struct {
		lo, hi float64
		want   []string
	}{
		{0.002, 3, []string{"0.01", "0.1", "1"}},
		{0.03, 0.9, []string{"0.05", "0.1", "0.2", "0.5"}}, // under two decades: 2 and 5 too
	} {
		if got := labels(logTicks{}.Ticks(tc.lo, tc.hi)); !slices.Equal(got, tc.want) {
			t.Errorf("logTicks.Ticks(%v, %v) labels %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}
