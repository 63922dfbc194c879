package meanclass_test

import (
	"bytes"
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all" // registers the classes and the composite mean
	"github.com/passivenfir/gputrain/classes/baseline"
	"github.com/passivenfir/gputrain/classes/loopclass"
	"github.com/passivenfir/gputrain/classes/meanclass"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/internal/schema"
	"github.com/passivenfir/gputrain/loop"
)

var updateSchema = flag.Bool("update", false, "rewrite the golden file-format shape in testdata/schema")

// randomLoop is a loop of structure s with seeded random parameters.
func randomLoop(t *testing.T, s loop.Structure, seed uint64) classes.Model {
	t.Helper()
	m, err := loop.New(s)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	theta := m.Flatten()
	for i := range theta {
		theta[i] = 0.3 * rng.NormFloat64()
	}
	if err := m.SetFlat(theta); err != nil {
		t.Fatal(err)
	}
	m.SU, m.SY = 1+rng.Float64(), 1+rng.Float64()
	return &loopclass.Model{Mean: loop.Of(m)}
}

// randomREN is a REN trained for a few epochs on a small random FIR plant:
// real parameters, of the kind (gated or biased) asked.
func randomREN(t *testing.T, seed uint64, gated, biased bool) classes.Model {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var d data.Dataset
	for range 3 {
		u := make([]float64, 60)
		for i := range u {
			u[i] = rng.NormFloat64()
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: data.FIR{0.6, 0.3, 0.1}.Simulate(u)})
	}
	cfg := baselines.RENConfig{States: 3, Neurons: 4, Epochs: 3, Seed: seed, Biased: biased}
	if gated {
		cfg = cfg.WithGates()
	}
	m, err := baselines.TrainREN(&d, nil, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return baseline.NewREN(m)
}

func input(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 9))
	u := make([]float64, n)
	for i := range u {
		u[i] = rng.NormFloat64()
	}
	return u
}

// TestRoundTrip: a mean of loops and RENs is written with version 5 and
// params.members, read back to the bit, and simulates as the documented
// sum of the members' outputs.
func TestRoundTrip(t *testing.T) {
	a := randomLoop(t, loop.Sized(6), 1)
	r := randomREN(t, 2, true, false)
	b := randomREN(t, 3, false, true)
	u := input(150, 4)
	m, err := meanclass.New(meanclass.Member{Model: a, Count: 2}, meanclass.Member{Model: r, Count: 1}, meanclass.Member{Model: b, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	ya, yr, yb := a.Simulate(u), r.Simulate(u), b.Simulate(u)
	got := m.Simulate(u)
	for k := range u {
		want := ((0 + float64(2*ya[k])) + yr[k]) + float64(3*yb[k])
		if want /= 6; got[k] != want {
			t.Fatalf("sample %d: %v, want %v", k, got[k], want)
		}
	}
	var buf bytes.Buffer
	if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.001}); err != nil {
		t.Fatal(err)
	}
	file := buf.String()
	for _, want := range []string{`"class": "mean"`, `"version": 5`, `"class": "loop"`, `"class": "ren"`, `"count": 3`} {
		if !strings.Contains(file, want) {
			t.Errorf("the file lacks %s", want)
		}
	}
	if strings.Count(file, `"count"`) != 2 {
		t.Errorf("want count written for the two members of count ≠ 1:\n%s", file)
	}
	back, meta, err := classes.Decode(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if back.Class() != "mean" || meta.Ts != 0.001 || back.NumParams() != a.NumParams()+r.NumParams()+b.NumParams() {
		t.Errorf("read back class %s ts %v params %d", back.Class(), meta.Ts, back.NumParams())
	}
	if !slices.Equal(back.Simulate(u), got) {
		t.Error("the mean read back simulates differently")
	}
	c, err := back.Certify()
	if err != nil || !c.Passive || !strings.Contains(c.Reason, "member 2 (ren)") {
		t.Errorf("certificate %+v (%v)", c, err)
	}
}

// TestDecodeErrors: every malformed mean is a format error naming what is
// wrong, never a panic.
func TestDecodeErrors(t *testing.T) {
	a := randomLoop(t, loop.Sized(6), 5)
	m, err := meanclass.New(meanclass.Member{Model: a, Count: 1}, meanclass.Member{Model: randomREN(t, 6, false, false), Count: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := classes.Encode(&buf, m, classes.Meta{}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	loopParams := regexp.MustCompile(`(?s)"class": "loop",\s*"params": (\{.*?"theta": \[[^\]]*\]\s*\})`).FindStringSubmatch(good)
	if loopParams == nil {
		t.Fatalf("no loop member in %s", good)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"version 4", `"version": 5`, `"version": 4`, "need version 5"},
		{"member class", `"class": "ren"`, `"class": "gru"`, `members[1].class is "gru"`},
		{"member class nfir", `"class": "ren"`, `"class": "nfir"`, `members[1].class is "nfir"`},
		{"count 0", `"count": 2`, `"count": 0`, "members[1].count is 0"},
		{"count negative", `"count": 2`, `"count": -2`, "members[1].count is -2"},
		{"count too large", `"count": 2`, `"count": 1048577`, "count is 1048577"},
		{"count not an integer", `"count": 2`, `"count": 2.5`, "count"},
		{"unknown member key", `"count": 2`, `"count": 2, "weight": 1`, "weight"},
		{"nested mean of loops", loopParams[1], `{"members": [` + loopParams[1] + `, ` + loopParams[1] + `]}`, "mean of 2 loops"},
		{"bad member params", `"u_scale"`, `"u_scale": 0, "x_scale"`, "members[0].params"},
	} {
		if !strings.Contains(good, c.from) {
			t.Fatalf("%s: %q is not in the file", c.name, c.from)
		}
		file := strings.Replace(good, c.from, c.to, 1)
		_, _, err := classes.Decode(strings.NewReader(file))
		if err == nil || !errors.Is(err, classes.ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a format error naming %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct{ name, params, want string }{
		{"no members", `{"members": []}`, "members is empty"},
		{"members null", `{"members": null}`, "members is empty"},
		{"member params missing", `{"members": [{"class": "ren"}]}`, "members[0].params is missing"},
		{"member params null", `{"members": [{"class": "ren", "params": null}]}`, "members[0].params is missing"},
		{"member not an object", `{"members": [1]}`, "members"},
	} {
		file := `{"format": "gputrain-model", "class": "mean", "version": 5, "params": ` + c.params + `}`
		_, _, err := classes.Decode(strings.NewReader(file))
		if err == nil || !errors.Is(err, classes.ErrFormat) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a format error naming %q", c.name, err, c.want)
		}
	}
	if _, err := meanclass.New(); err == nil {
		t.Error("New of no members: no error")
	}
	if _, err := meanclass.New(meanclass.Member{Model: a, Count: 0}); err == nil {
		t.Error("New with count 0: no error")
	}
}

// TestNotListed: a mean is read from files but is no class to train:
// train --model and compare do not offer it.
func TestNotListed(t *testing.T) {
	if slices.Contains(classes.Names(), meanclass.Name) {
		t.Errorf("class %s listed among the trainable classes %v", meanclass.Name, classes.Names())
	}
	if _, err := classes.Lookup(meanclass.Name); !errors.Is(err, classes.ErrUnknown) {
		t.Errorf("Lookup(%q): %v, want ErrUnknown", meanclass.Name, err)
	}
}

// TestSchemaGolden holds the shape of a mean file (every key and its JSON
// type, internal/schema) to testdata/schema/mean.golden. Run 'go test
// ./classes/meanclass -run TestSchemaGolden -update' to rewrite.
func TestSchemaGolden(t *testing.T) {
	// a REN first, counted twice, as train writes a mean of RENs (the
	// shape holds an array's first element)
	m, err := meanclass.New(meanclass.Member{Model: randomREN(t, 8, true, false), Count: 2}, meanclass.Member{Model: randomLoop(t, loop.Sized(6), 7), Count: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := classes.Encode(&buf, m, classes.Meta{Ts: 0.01, Training: []byte(`{"seed":1}`)}); err != nil {
		t.Fatal(err)
	}
	got, err := schema.Of(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "schema", "mean.golden")
	if *updateSchema {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the file's shape differs from %s (update docs/MODEL_FORMAT.md, then run with -update):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
