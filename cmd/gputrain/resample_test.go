package main

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/data"
)

// TestResample: an oversampled plant's data are decimated by the factor
// resample proposes (or the one given), with y_clean kept and the new
// sampling time reported; bad factors and files are refused with exit 2
// and nothing written.
func TestResample(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "fast.csv")
	mustRun(t, "gen", "twomass", "--ts", "0.001", "--batches", "2", "--samples", "2000", "--snr", "40", "--seed", "3", "--out", in, "--quiet")

	out := filepath.Join(dir, "slow.csv")
	js := decode(t, mustRun(t, "resample", "--data", in, "--ts", "0.001", "--out", out, "--json"))
	factor := int(js["factor"].(float64))
	if factor < 2 {
		t.Fatalf("a plant sampled at 10 times its rate: factor %d (%v)", factor, js)
	}
	d, err := data.ReadFile(out, data.ReadOptions{Ts: 0.001 * float64(factor)})
	if err != nil {
		t.Fatal(err)
	}
	want := (2000 + factor - 1) / factor
	if d.Len() != 2 || len(d.Batches[0].U) != want || d.Batches[1].YClean == nil {
		t.Errorf("wrote %d batches of %d samples (y_clean %v), want 2 of %d with y_clean", d.Len(), len(d.Batches[0].U), d.Batches[1].YClean != nil, want)
	}
	if js["ts"].(float64) != 0.001*float64(factor) || int(js["samples"].(float64)) != 2*want {
		t.Errorf("json %v", js)
	}

	text := mustRun(t, "resample", "--data", in, "--factor", "4", "--ts", "0.001", "--out", filepath.Join(dir, "four.csv"))
	for _, w := range []string{"factor 4 keeps", "train with --ts 0.004", "--factor 4, the same"} {
		if !strings.Contains(text, w) {
			t.Errorf("output %q lacks %q", text, w)
		}
	}

	// Data whose band fills the spectrum keep their rate, and say so.
	fast := filepath.Join(dir, "fast-band.csv")
	var broad data.Dataset
	for r := range 2 {
		u, y := make([]float64, 500), make([]float64, 500)
		for i := range u {
			u[i] = math.Sin(2.5*float64(i) + float64(r))
			y[i] = math.Cos(2.5*float64(i) + float64(r))
		}
		broad.Batches = append(broad.Batches, data.Batch{U: u, Y: y})
	}
	if err := data.WriteCSV(fast, &broad); err != nil {
		t.Fatal(err)
	}
	text = mustRun(t, "resample", "--data", fast, "--out", filepath.Join(dir, "fast-band-r.csv"))
	if !strings.Contains(text, "so the data need their rate") || !strings.Contains(text, "sampling time is unchanged") {
		t.Errorf("a band near Nyquist: %q", text)
	}

	short := filepath.Join(dir, "short.csv")
	mustRun(t, "gen", "twomass", "--ts", "0.001", "--batches", "1", "--samples", "300", "--out", short, "--quiet")
	bad := []struct {
		name string
		args []string
		want string
	}{
		{"factor 0", []string{"--factor", "0"}, "neither auto nor an integer"},
		{"factor word", []string{"--factor", "ten"}, "neither auto nor an integer"},
		{"records too short", []string{"--data", short, "--factor", "30"}, "needs at least 361"},
		{"out is the input", []string{"--out", in}, "--out"},
	}
	for _, b := range bad {
		args := append([]string{"resample", "--data", in, "--out", filepath.Join(dir, "bad.csv")}, b.args...)
		code, _, errOut := cli(t, args...)
		if code != exitUsage || !strings.Contains(errOut, b.want) {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 naming %q", b.name, code, errOut, b.want)
		}
	}
	if _, err := data.ReadFile(filepath.Join(dir, "bad.csv"), data.ReadOptions{}); err == nil {
		t.Error("a refused resample wrote its --out")
	}
}
