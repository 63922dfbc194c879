package classes_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/classes/lifted"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

var builtin = []string{"fir", "nfir-ff", "nfir-fb", "nfir", "loop", "mlp", "gru", "n4sid", "ren"}

func TestRegistry(t *testing.T) {
	if got := classes.Names(); !slices.Equal(got[:len(builtin)], builtin) {
		t.Errorf("Names() = %v, want %v first", got, builtin)
	}
	_, err := classes.Lookup("lstm")
	if !errors.Is(err, classes.ErrUnknown) || !strings.Contains(err.Error(), strings.Join(builtin, ", ")) {
		t.Errorf("Lookup(lstm): %v; want ErrUnknown listing %v", err, builtin)
	}
	var c classes.Choice
	if err := c.Set("gru"); err != nil || c != "gru" {
		t.Errorf("Choice.Set(gru): %v, %q", err, c)
	}
	if err := c.Set("GRU"); err == nil {
		t.Error("Choice.Set(GRU): no error; names are lower case")
	}
	var l classes.List
	if err := l.Set("fir, gru"); err != nil || !slices.Equal(l, []string{"fir", "gru"}) {
		t.Errorf("List.Set: %v, %v", err, l)
	}
	for _, bad := range []string{"fir,fir", "", "fir,nope"} {
		if err := l.Set(bad); err == nil {
			t.Errorf("List.Set(%q): no error", bad)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering gru twice did not panic")
		}
	}()
	gru, _ := classes.Lookup("gru")
	classes.Register(gru)
}

func msd(t *testing.T, batches int, seed uint64) *data.Dataset {
	t.Helper()
	d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed, Samples: 100})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFileRoundTrip fits every fast class on tiny data, writes its file and
// reads it back: same class, parameters, certificate and simulation, to
// the bit.
func TestFileRoundTrip(t *testing.T) {
	train, val := msd(t, 4, 1), msd(t, 2, 2)
	u := val.Batches[0].U
	for _, name := range []string{"fir", "mlp", "gru", "n4sid", "ren", "loop"} {
		c, err := classes.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := c.Fit(context.Background(), train, val, classes.FitOptions{Seed: 1, Budget: classes.Quick, Workers: 1})
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		var buf bytes.Buffer
		if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.02, Training: []byte(`{"seed":1}`)}); err != nil {
			t.Errorf("%s: encode: %v", name, err)
			continue
		}
		back, meta, err := classes.Decode(bytes.NewReader(buf.Bytes()))
		if err != nil {
			t.Errorf("%s: decode: %v\n%s", name, err, buf.String())
			continue
		}
		c1, _ := m.Certify()
		c2, _ := back.Certify()
		switch {
		case back.Class() != name:
			t.Errorf("%s: read back as %s", name, back.Class())
		case back.NumParams() != m.NumParams():
			t.Errorf("%s: %d parameters read back, %d written", name, back.NumParams(), m.NumParams())
		case c1 != c2:
			t.Errorf("%s: certificate %v read back, %v written", name, c2, c1)
		case !slices.Equal(back.Simulate(u), m.Simulate(u)):
			t.Errorf("%s: simulation differs after the round trip", name)
		case meta.Ts != 0.02 || compact(meta.Training) != `{"seed":1}`:
			t.Errorf("%s: meta %+v", name, meta)
		}
		if f, _ := classes.FormatOf(buf.Bytes()); (name == "fir") != (f == model.Format) {
			t.Errorf("%s: written as %s", name, f)
		}
	}
}

func compact(b []byte) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err.Error()
	}
	return buf.String()
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ name, file string }{
		{"no format", `{"class":"gru"}`},
		{"unknown format", `{"format":"onnx"}`},
		{"newer version", `{"format":"gputrain-model","class":"gru","version":2,"params":{}}`},
		{"unknown class", `{"format":"gputrain-model","class":"lstm","version":1,"params":{}}`},
		{"unknown field", `{"format":"gputrain-model","class":"gru","version":1,"params":{},"extra":1}`},
		{"no params", `{"format":"gputrain-model","class":"gru","version":1}`},
		{"wrong size", `{"format":"gputrain-model","class":"gru","version":1,"params":{"units":1,"u_scale":1,"y_scale":1,"theta":[1,2]}}`},
		{"unknown param", `{"format":"gputrain-model","class":"mlp","version":1,"params":{"memory":1,"hidden1":1,"hidden2":1,"u_scale":1,"y_scale":1,"theta":[0,0,0,0,0,0,0],"depth":3}}`},
		{"negative nu", `{"format":"gputrain-model","class":"ren","version":1,"params":{"states":1,"neurons":1,"nu":-1,"eps":1e-6,"u_scale":1,"y_scale":1,"theta":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}`},
		{"ragged a", `{"format":"gputrain-model","class":"n4sid","version":1,"params":{"a":[[1,2],[3]],"b":[1,1],"c":[1,1],"d":0}}`},
	} {
		if _, _, err := classes.Decode(strings.NewReader(c.file)); !errors.Is(err, classes.ErrFormat) && !errors.Is(err, model.ErrFormat) {
			t.Errorf("%s: error %v, want a format error", c.name, err)
		}
	}
}

// TestEvaluateMatchesTrainer: the Fit of a model through the interface is
// trainer.Evaluate's closed loop, per record.
func TestEvaluateMatchesTrainer(t *testing.T) {
	train, val := msd(t, 4, 3), msd(t, 3, 4)
	cfg := lifted.Config(classes.FitOptions{Seed: 1, Budget: classes.Quick})
	cfg.Structure = model.Structure{Branches: 2, Taps: 10, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	cfg.Iters, cfg.Epochs = 1, 3
	res, err := trainer.Train(context.Background(), cfg, train, val)
	if err != nil {
		t.Fatal(err)
	}
	want, err := trainer.Evaluate(res.Model, val, 5)
	if err != nil {
		t.Fatal(err)
	}
	got, err := classes.Evaluate(&lifted.Model{Name: "nfir", NFIR: res.Model, Mode: "exact"}, val, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.ClosedLoop.PerBatch {
		if math.Abs(got.PerBatch[i]-want.ClosedLoop.PerBatch[i]) > 1e-9 {
			t.Errorf("record %d: Fit %v, trainer %v", i, got.PerBatch[i], want.ClosedLoop.PerBatch[i])
		}
	}
}
