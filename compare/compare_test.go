package compare_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/passivenfir/gputrain/classes"
	_ "github.com/passivenfir/gputrain/classes/all"
	"github.com/passivenfir/gputrain/compare"
	"github.com/passivenfir/gputrain/data"
)

// gain is a toy class, y = k·u with k fitted by least squares: registered
// here, it goes through compare (and its files through classes) like any
// built-in class.
type gain struct{}

func (gain) Name() string  { return "toy-gain" }
func (gain) About() string { return "static gain (test class)" }
func (gain) Fit(ctx context.Context, train, val *data.Dataset, opt classes.FitOptions) (classes.Model, error) {
	var uy, uu float64
	for _, b := range train.Batches {
		for t := range b.U {
			uy += b.U[t] * b.Y[t]
			uu += b.U[t] * b.U[t]
		}
	}
	return gainModel{K: uy / uu}, nil
}
func (gain) DecodeParams(raw json.RawMessage) (classes.Model, error) {
	var m gainModel
	err := json.Unmarshal(raw, &m)
	return m, err
}

type gainModel struct{ K float64 }

func (gainModel) Class() string { return "toy-gain" }
func (m gainModel) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for t, v := range u {
		y[t] = m.K * v
	}
	return y
}
func (gainModel) NumParams() int { return 1 }
func (m gainModel) Certify() (classes.Certificate, error) {
	return classes.Certificate{Passive: m.K >= 0, Reason: "a gain is passive when ≥ 0"}, nil
}
func (m gainModel) MarshalParams() (json.RawMessage, error) { return json.Marshal(m) }

// crash is a class whose fit panics: compare must report it in its row.
type crash struct{ gain }

func (crash) Name() string { return "toy-crash" }
func (crash) Fit(context.Context, *data.Dataset, *data.Dataset, classes.FitOptions) (classes.Model, error) {
	panic("boom")
}

func init() {
	classes.Register(gain{})
	classes.Register(crash{})
}

func msd(t *testing.T, batches int, seed uint64, samples int) *data.Dataset {
	t.Helper()
	d, err := data.GenerateMSD(data.MSDConfig{Batches: batches, Seed: seed, Samples: samples})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRunToyClass(t *testing.T) {
	train, val, test := msd(t, 6, 1, 100), msd(t, 3, 2, 100), msd(t, 3, 3, 100)
	dir := t.TempDir()
	var lines []string
	tab, err := compare.Run(context.Background(), train, val, test, compare.Options{
		Only: []string{"toy-crash", "toy-gain", "mlp"}, Budget: classes.Quick, Seed: 1, OutDir: dir,
		Progress: func(l string) { lines = append(lines, l) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab.Rows) != 3 {
		t.Fatalf("%d rows, want 3", len(tab.Rows))
	}
	last := tab.Rows[2]
	if last.Class != "toy-crash" || !strings.Contains(last.Error, "boom") {
		t.Errorf("the panicking class should be last with its panic as error, got %+v", last)
	}
	var toy compare.Row
	for _, r := range tab.Rows {
		if r.Class == "toy-gain" {
			toy = r
		}
	}
	if toy.Error != "" || !toy.Passive || toy.Params != 1 || math.IsNaN(toy.ValFit) || math.IsNaN(toy.TestFit) {
		t.Errorf("toy row %+v", toy)
	}
	if tab.Rows[0].TestFit < tab.Rows[1].TestFit {
		t.Errorf("rows not sorted by test fit: %v then %v", tab.Rows[0].TestFit, tab.Rows[1].TestFit)
	}
	if len(lines) != 6 {
		t.Errorf("%d progress lines, want a start and an end per class: %q", len(lines), lines)
	}
	// the toy model's file goes through the registry
	m, _, err := classes.Load(filepath.Join(dir, "toy-gain.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.(gainModel).K != toy.Model.(gainModel).K {
		t.Errorf("loaded gain %v, trained %v", m.(gainModel).K, toy.Model.(gainModel).K)
	}
	if tab.Check == nil || tab.Check.Supply <= 0 {
		t.Errorf("data check %+v (%s): want a positive supply for velocity out of force", tab.Check, tab.CheckError)
	}
	var buf bytes.Buffer
	tab.Write(&buf)
	for _, want := range []string{"data check: energy supply", "toy-gain", "cannot run: internal error: boom", "mlp: MLP (np): not a passive class"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, buf.String())
		}
	}
	b, err := json.Marshal(tab)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []struct {
			Class  string   `json:"class"`
			ValFit *float64 `json:"val_fit"`
			Error  string   `json:"error"`
		} `json:"rows"`
		Check struct {
			Supply float64 `json:"supply"`
		} `json:"data_check"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Rows) != 3 || back.Rows[2].ValFit != nil || back.Rows[0].ValFit == nil || back.Check.Supply != tab.Check.Supply {
		t.Errorf("JSON %s", b)
	}
}

// TestRunShortRecord: on one record too short for N4SID's block rows and
// the FIR grid, the classes say why in their rows; nothing crashes.
func TestRunShortRecord(t *testing.T) {
	train, val := msd(t, 1, 1, 12), msd(t, 1, 2, 12)
	tab, err := compare.Run(context.Background(), train, val, nil, compare.Options{Only: []string{"n4sid", "toy-gain"}, Budget: classes.Quick})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tab.Rows {
		switch r.Class {
		case "n4sid":
			if !strings.Contains(r.Error, "no order could be identified") {
				t.Errorf("n4sid on 12 samples: error %q", r.Error)
			}
		case "toy-gain":
			if r.Error != "" {
				t.Errorf("toy-gain: %s", r.Error)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	d := msd(t, 2, 1, 50)
	if _, err := compare.Run(context.Background(), d, d, nil, compare.Options{Only: []string{"nope"}}); !errors.Is(err, classes.ErrUnknown) || !strings.Contains(err.Error(), "toy-gain") {
		t.Errorf("unknown class: %v, want ErrUnknown listing the classes", err)
	}
	if _, err := compare.Run(context.Background(), d, nil, nil, compare.Options{}); err == nil {
		t.Error("no validation data: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tab, err := compare.Run(ctx, d, d, nil, compare.Options{Only: []string{"toy-gain"}})
	if !errors.Is(err, context.Canceled) || tab.Rows[0].Error == "" {
		t.Errorf("cancelled: %v, rows %+v", err, tab.Rows)
	}
}
