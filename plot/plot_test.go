package plot

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// checkFigure verifies that base.png is a PNG and base.svg an SVG document.
func checkFigure(t *testing.T, base string) {
	t.Helper()
	png, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Errorf("%s.png is not a PNG file", base)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("%s.svg is not an SVG file", base)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(base), ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestFigures(t *testing.T) {
	dir := t.TempDir()
	y := make([]float64, 200)
	ysim := make([]float64, 200)
	for i := range y {
		y[i] = math.Sin(0.1 * float64(i))
		ysim[i] = 0.9 * y[i]
	}
	ysim[10] = math.Inf(1) // a diverging sample is dropped, not fatal
	tests := []struct {
		name string
		draw func(base string) error
	}{
		{"responses", func(b string) error {
			return Responses(b, []Trace{{Title: "batch 0", Y: y, YSim: ysim}, {Title: "batch 1", Y: y, YSim: ysim, YClean: y}}, 0.02)
		}},
		{"responses-samples", func(b string) error { return Responses(b, []Trace{{Title: "one", Y: y, YSim: ysim}}, 0) }},
		{"realparts", func(b string) error {
			return RealParts(b, [][]float64{{1, 0.5, 0.25}, {2, -1}}, []float64{1, 0.1}, 0.005)
		}},
		{"realparts-linear-only", func(b string) error { return RealParts(b, nil, []float64{1, 0.1}, 0) }},
		{"training", func(b string) error {
			var pts []Point
			for i := 0; i < 30; i++ {
				st := "adam"
				if i >= 20 {
					st = "bptt"
				}
				pts = append(pts, Point{Step: i, Stage: st, Loss: 1 / float64(i+1), ValFit: 50 + float64(i)})
			}
			pts[3].ValFit = math.NaN()
			return TrainingCurves(b, pts)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := filepath.Join(dir, tc.name)
			if err := tc.draw(base); err != nil {
				t.Fatal(err)
			}
			checkFigure(t, base)
		})
	}
}

func TestNoData(t *testing.T) {
	dir := t.TempDir()
	for name, err := range map[string]error{
		"responses": Responses(filepath.Join(dir, "a"), nil, 1),
		"realparts": RealParts(filepath.Join(dir, "b"), nil, nil, 0),
		"training":  TrainingCurves(filepath.Join(dir, "c"), nil),
		"nan":       TrainingCurves(filepath.Join(dir, "d"), []Point{{Loss: math.NaN(), ValFit: math.NaN()}}),
	} {
		if !errors.Is(err, ErrNoData) {
			t.Errorf("%s: got %v, want ErrNoData", name, err)
		}
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("files written for empty figures: %v", files)
	}
}

func TestRealPart(t *testing.T) {
	g := []float64{1, 0.5, 0.25}
	for _, w := range []float64{0, 0.3, math.Pi / 2, math.Pi} {
		want := 1 + 0.5*math.Cos(w) + 0.25*math.Cos(2*w)
		if got := RealPart(g, w); math.Abs(got-want) > 1e-15 {
			t.Errorf("RealPart(%v) = %v, want %v", w, got, want)
		}
	}
}

func TestWriteToMissingDir(t *testing.T) {
	err := RealParts(filepath.Join(t.TempDir(), "no", "such", "dir", "g"), [][]float64{{1}}, nil, 0)
	if err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
}
