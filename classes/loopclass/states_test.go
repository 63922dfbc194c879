package loopclass_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// TestStatesFile: a loop with slow states (S > 0) is written with "s" and
// a lifting network 2s inputs wider, and reads back to the bit; an "s"
// that disagrees with theta, or is negative, is refused naming the field.
func TestStatesFile(t *testing.T) {
	st := loop.Sized(16)
	st.S = 2
	m := &loopclass.Model{Mean: loop.Mean{randomLoop(t, st, 7)}}
	var buf bytes.Buffer
	if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.001}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"s": 2`) {
		t.Fatalf("no \"s\": 2 in the file")
	}
	back, _, err := classes.Decode(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	u := make([]float64, 400)
	rng := rand.New(rand.NewPCG(8, 8))
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	if !slices.Equal(back.Simulate(u), m.Simulate(u)) {
		t.Errorf("simulation differs after the round trip")
	}
	for _, bad := range []struct{ s, field string }{{`"s": 1`, "theta"}, {`"s": -1`, "structure"}} {
		cut := strings.Replace(buf.String(), `"s": 2`, bad.s, 1)
		if _, _, err := classes.Decode(strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), bad.field) {
			t.Errorf("%s: %v, want an error naming the %s", bad.s, err, bad.field)
		}
	}
}

// TestFitStates: --loop-states N trains loop.Train's loop of the shape's
// structure with S = N, and N < -1 is ErrSettings.
func TestFitStates(t *testing.T) {
	train, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 5, Samples: 120})
	if err != nil {
		t.Fatal(err)
	}
	val, _ := data.GenerateMSD(data.MSDConfig{Batches: 2, Seed: 6, Samples: 120})
	const L = 10
	fir, err := model.New(model.Structure{LinearTaps: L})
	if err != nil {
		t.Fatal(err)
	}
	for k := range fir.Lin {
		fir.Lin[k] = 0.05 * math.Pow(0.8, float64(k))
	}
	path := filepath.Join(t.TempDir(), "fir.json")
	if err := model.Save(path, fir, model.Meta{Ts: 0.02}); err != nil {
		t.Fatal(err)
	}
	opt := classes.FitOptions{Seed: 3, Workers: 2}
	got, err := fitWith(t, []string{"--loop-shape", "sized", "--loop-init", path, "--loop-epochs", "2", "--loop-states", "3"}, train, val, opt)
	if err != nil {
		t.Fatal(err)
	}
	cfg := loop.DefaultConfig()
	cfg.Structure, cfg.InitLinear, cfg.Epochs = loop.Sized(L), fir.Lin, 2
	cfg.Structure.S = 3
	cfg.Seed, cfg.Workers = 3, 2
	want, err := loop.Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	m := got.(*loopclass.Model)
	if len(m.Mean) != 1 || m.Mean[0].S != 3 || !slices.Equal(m.Mean[0].Flatten(), want.Model.Flatten()) {
		t.Errorf("--loop-states 3: not loop.Train's loop with three slow states")
	}
	if _, err := fitWith(t, []string{"--loop-states", "-2"}, train, val, opt); !errors.Is(err, classes.ErrSettings) {
		t.Errorf("--loop-states -2: %v; want ErrSettings", err)
	}
}
