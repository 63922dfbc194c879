package loopclass_test

import (
	"context"
	"errors"
	"flag"
	"math"
	"path/filepath"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

func TestShapeFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want loopclass.Shape
		ok   bool
	}{
		{"all", loopclass.AllShapes, true}, {"sized", loopclass.Sized, true}, {"wide", loopclass.Wide, true},
		{"sized-states", loopclass.SizedStates, true}, {"wide-states", loopclass.WideStates, true},
		{"sized-rec", loopclass.SizedRec, true}, {"wide-rec", loopclass.WideRec, true},
		{"Wide", 0, false}, {"", 0, false}, {"rec", 0, false},
	} {
		var s loopclass.Shape
		err := s.Set(tc.in)
		if (err == nil) != tc.ok || (tc.ok && (s != tc.want || s.String() != tc.in)) {
			t.Errorf("Set(%q): %v, %v; want %v, ok %v", tc.in, s, err, tc.want, tc.ok)
		}
	}
	for _, L := range []int{4, 8, 64} {
		for _, s := range []loopclass.Shape{loopclass.Sized, loopclass.Wide, loopclass.SizedStates, loopclass.WideStates, loopclass.SizedRec, loopclass.WideRec} {
			if got, ok := loopclass.ShapeOf(s.Structure(L), L); !ok || got != s {
				t.Errorf("ShapeOf(%v(%d)) = %v, %v", s, L, got, ok)
			}
		}
		if _, ok := loopclass.ShapeOf(loop.Sized(L+16), L); ok {
			t.Errorf("ShapeOf(Sized(%d), %d): a shape", L+16, L)
		}
	}
}

// fitWith fits class loop configured by the flags args.
func fitWith(t *testing.T, args []string, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	t.Helper()
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	conf := loopclass.Class.(classes.Flagged).AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return conf().Fit(context.Background(), train, val, opt)
}

// TestFitOneShape: --loop-shape with --loop-init trains exactly the loop
// that loop.Train trains from the FIR's taps with that shape and seed
// (the loop of a structure search, which its trials train so), and
// reports its epochs; bad --loop-init settings are ErrSettings.
func TestFitOneShape(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 5, Samples: 120})
	if err != nil {
		t.Fatal(err)
	}
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 6, Samples: 120})
	dir := t.TempDir()
	const L = 12
	fir, err := model.New(model.Structure{LinearTaps: L})
	if err != nil {
		t.Fatal(err)
	}
	for k := range fir.Lin {
		fir.Lin[k] = 0.05 * math.Pow(0.8, float64(k))
	}
	path := filepath.Join(dir, "fir.json")
	if err := model.Save(path, fir, model.Meta{Ts: 0.02}); err != nil {
		t.Fatal(err)
	}
	opt := classes.FitOptions{Seed: 7, Workers: 2, ValSkip: 3}
	got, err := fitWith(t, []string{"--loop-shape", "wide", "--loop-init", path, "--loop-epochs", "2", "--loop-skip", "4"}, train, val, opt)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loop.DefaultConfig()
	cfg.Structure, cfg.InitLinear, cfg.Epochs, cfg.Skip = loop.Wide(L), fir.Lin, 2, 4
	cfg.Seed, cfg.Workers, cfg.ValSkip = 7, 2, 3
	want, err := loop.Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(*loopclass.Model)
	if len(m.Mean) != 1 || !slices.Equal(m.Mean[0].Flatten(), want.Model.Flatten()) || m.Mean[0].SU != want.Model.SU {
		t.Errorf("--loop-shape wide --loop-init: not loop.Train's loop")
	}
	if m.EpochsRun() != want.Epochs {
		t.Errorf("epochs %d, want %d", m.EpochsRun(), want.Epochs)
	}

	nfir, err := model.New(model.Structure{Branches: 1, Taps: 2, R1: 1, R2: 1, Hidden: []int{2}, LinearTaps: 2})
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "nfir.json")
	if err := model.Save(bad, nfir, model.Meta{}); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"--loop-init", bad},
		{"--loop-init", path, "--loop-memory", "8"},
		{"--loop-init", filepath.Join(dir, "none.json")},
		{"--loop-skip", "-2"},
	} {
		if _, err := fitWith(t, args, train, val, opt); !errors.Is(err, classes.ErrSettings) {
			t.Errorf("%v: %v; want ErrSettings", args, err)
		}
	}
}
