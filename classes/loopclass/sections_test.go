package loopclass_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/model"
)

// TestSectionsFile: a loop with sections (P1 > 0) is written with "p1" and
// its α, β at the end of theta, and read back to the bit (simulation and
// certificate); a loop without them is written without "p1", and its file
// reads and writes back byte for byte, as files written before sections
// existed.
func TestSectionsFile(t *testing.T) {
	withP1 := loop.Sized(8)
	withP1.P1 = 3
	u := make([]float64, 300)
	rng := rand.New(rand.NewPCG(4, 4))
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	for _, tc := range []struct {
		name   string
		mean   loop.Mean
		p1     bool
		params int
	}{
		{"sections", loop.Of(randomLoop(t, withP1, 1)), true, 3},
		{"no sections", loop.Of(randomLoop(t, loop.Sized(8), 1)), false, 0},
		{"mean, one with sections", loop.Of(randomLoop(t, withP1, 2), randomLoop(t, loop.Wide(6), 3)), true, 3},
	} {
		m := &loopclass.Model{Mean: tc.mean}
		var buf bytes.Buffer
		if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.001}); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Contains(buf.String(), `"p1"`); got != tc.p1 {
			t.Errorf("%s: p1 in the file: %v, want %v", tc.name, got, tc.p1)
		}
		back, _, err := classes.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var again bytes.Buffer
		if err := classes.Encode(&again, back, classes.Meta{Ts: 0.001}); err != nil {
			t.Fatal(err)
		}
		c1, err1 := m.Certify()
		c2, _ := back.Certify()
		c, _ := tc.mean.Certify()
		switch {
		case !bytes.Equal(again.Bytes(), buf.Bytes()):
			t.Errorf("%s: the file written back differs", tc.name)
		case err1 != nil || !c1.Passive || c1 != c2 || c.Sections != tc.params:
			t.Errorf("%s: certificates %+v (%v), read back %+v, %d sections", tc.name, c1, err1, c2, c.Sections)
		case !strings.Contains(c1.Reason, "sections") != (tc.params == 0):
			t.Errorf("%s: certificate %q", tc.name, c1.Reason)
		case !slices.Equal(back.Simulate(u), m.Simulate(u)):
			t.Errorf("%s: simulation differs after the round trip", tc.name)
		}
	}
	// The sections' parameters are theta's last 2·p1 numbers: one fewer is
	// an error naming theta.
	one := randomLoop(t, withP1, 5)
	var buf bytes.Buffer
	if err := classes.Encode(&buf, &loopclass.Model{Mean: loop.Of(one)}, classes.Meta{}); err != nil {
		t.Fatal(err)
	}
	cut := strings.Replace(buf.String(), `"p1": 3`, `"p1": 2`, 1)
	if _, _, err := classes.Decode(strings.NewReader(cut)); err == nil || !strings.Contains(err.Error(), "theta") {
		t.Errorf("p1 2 with the theta of 3 sections: %v, want an error naming theta", err)
	}
	neg := strings.Replace(buf.String(), `"p1": 3`, `"p1": -1`, 1)
	if _, _, err := classes.Decode(strings.NewReader(neg)); err == nil || !strings.Contains(err.Error(), "structure") {
		t.Errorf("p1 -1: %v, want an error naming the structure", err)
	}
}

// TestFitStructureFlags: --loop-sections N, --loop-states N and --loop-rec N
// train loop.Train's loop of the shape's structure with P1, S or Rec = N,
// --loop-basis N the loop of factors in N Laguerre functions (Config.Basis),
// and a value below the flag's range is ErrSettings.
func TestFitStructureFlags(t *testing.T) {
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
	for _, tc := range []struct {
		flag, value, bad string
		edit             func(*loop.Config)
	}{
		{"--loop-sections", "2", "-1", func(c *loop.Config) { c.Structure.P1 = 2 }},
		{"--loop-states", "3", "-2", func(c *loop.Config) { c.Structure.S = 3 }},
		{"--loop-rec", "4", "-3", func(c *loop.Config) { c.Structure.Rec = 4 }},
		{"--loop-basis", "4", "-1", func(c *loop.Config) { c.Basis = 4 }},
	} {
		got, err := fitWith(t, []string{"--loop-shape", "sized", "--loop-init", path, "--loop-epochs", "2", tc.flag, tc.value}, train, val, opt)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.flag, tc.value, err)
		}
		cfg := loop.DefaultConfig()
		cfg.Structure, cfg.InitLinear, cfg.Epochs = loop.Sized(L), fir.Lin, 2
		tc.edit(&cfg)
		cfg.Seed, cfg.Workers = 3, 2
		want, err := loop.Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		m := got.(*loopclass.Model)
		if len(m.Mean) != 1 || !reflect.DeepEqual(m.Mean[0].Structure, cfg.Structure) || !slices.Equal(m.Mean[0].Flatten(), want.Model.Flatten()) {
			t.Errorf("%s %s: not loop.Train's loop of structure %+v", tc.flag, tc.value, cfg.Structure)
		}
		if _, err := fitWith(t, []string{tc.flag, tc.bad}, train, val, opt); !errors.Is(err, classes.ErrSettings) {
			t.Errorf("%s %s: %v; want ErrSettings", tc.flag, tc.bad, err)
		}
	}
}
