package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/model"
)

// writeCSV writes a single-batch u,y CSV and returns its path.
func writeCSV(t *testing.T, dir, name string, u, y []float64) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("u,y\n")
	for i := range u {
		fmt.Fprintf(&b, "%g,%g\n", u[i], y[i])
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEvalBothFits checks that eval reports the paper's Fit and MATLAB
// compare's NRMSE fit, each by name, in text and --json, with the values of
// model.Fit and model.NRMSEFit on the model's simulation.
func TestEvalBothFits(t *testing.T) {
	dir := t.TempDir()
	m, err := model.New(model.Structure{LinearTaps: 3})
	if err != nil {
		t.Fatal(err)
	}
	copy(m.Lin, []float64{1, 0.5, 0.25})
	modelPath := filepath.Join(dir, "fir.json")
	if err := model.Save(modelPath, m, model.Meta{Mode: "exact"}); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 9))
	u, y := make([]float64, 200), make([]float64, 200)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	ysim, _ := m.Simulate(u)
	for i := range y {
		y[i] = ysim[i] + 1 + 0.2*rng.NormFloat64() // an offset: the two measures differ
	}
	dataPath := writeCSV(t, dir, "d.csv", u, y)
	wantFit, _ := model.Fit(y, ysim, 0)
	wantN, _ := model.NRMSEFit(y, ysim, 0)

	text := mustRun(t, "eval", "--model", modelPath, "--data", dataPath)
	for _, s := range []string{"Fit = 100·(1 − ‖y − ŷ‖/‖y‖)", "NRMSE fit = 100·(1 − ‖y − ŷ‖/‖y − mean(y)‖)", fmt.Sprintf("%.2f", wantN), fmt.Sprintf("%.2f", wantFit)} {
		if !strings.Contains(text, s) {
			t.Errorf("eval text lacks %q:\n%s", s, text)
		}
	}
	type loops struct {
		ClosedLoop struct{ Median float64 } `json:"closed_loop"`
		OpenLoop   struct{ Median float64 } `json:"open_loop"`
	}
	var r struct {
		Fit      loops             `json:"fit"`
		NRMSEFit loops             `json:"nrmse_fit"`
		Measures map[string]string `json:"measures"`
	}
	out := mustRun(t, "eval", "--model", modelPath, "--data", dataPath, "--json")
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Fit.ClosedLoop.Median-wantFit) > 1e-9 || math.Abs(r.NRMSEFit.ClosedLoop.Median-wantN) > 1e-9 || math.Abs(r.NRMSEFit.OpenLoop.Median-wantN) > 1e-9 {
		t.Errorf("eval --json: fit %g, nrmse_fit %g/%g; want %g and %g", r.Fit.ClosedLoop.Median, r.NRMSEFit.ClosedLoop.Median, r.NRMSEFit.OpenLoop.Median, wantFit, wantN)
	}
	if !(wantN < wantFit-5) {
		t.Fatalf("the test data should separate the measures: %g vs %g", wantN, wantFit)
	}
	if r.Measures["fit"] != fitPaperFormula || r.Measures["nrmse_fit"] != fitNRMSEFormula {
		t.Errorf("measures %v", r.Measures)
	}
}
