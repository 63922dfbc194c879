package searchdir

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/search"
	"github.com/passivenfir/gputrain/sweep"
	"github.com/passivenfir/gputrain/trainer"
)

// dataset is seeded random data: batches of the given lengths, values that
// need all 17 digits.
func dataset(seed uint64, lengths ...int) *data.Dataset {
	rng := rand.New(rand.NewPCG(seed, seed))
	d := &data.Dataset{Ts: 0.01}
	for _, n := range lengths {
		b := data.Batch{U: make([]float64, n), Y: make([]float64, n)}
		for i := range b.U {
			b.U[i], b.Y[i] = rng.NormFloat64(), rng.NormFloat64()/3
		}
		d.Batches = append(d.Batches, b)
	}
	return d
}

// TestOpen: the data are written once, in a format that reads back bit for
// bit (.npy for records of equal lengths, CSV otherwise); a folder that
// holds other data or settings is refused with ErrOther, an unusable one
// with another error.
func TestOpen(t *testing.T) {
	equal, ragged := dataset(1, 50, 50, 50), dataset(2, 50, 40, 61)
	val := dataset(3, 30, 30)
	settings := map[string]any{"budget": 2}
	notDir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		first     *data.Dataset // opened first, nil for none
		train     *data.Dataset
		settings  any
		dir       string // "" for a fresh folder
		wantFile  string
		wantOther bool
		wantErr   bool
	}{
		{name: "equal lengths", train: equal, settings: settings, wantFile: "train.npy"},
		{name: "ragged", train: ragged, settings: settings, wantFile: "train.csv"},
		{name: "reopened", first: equal, train: equal, settings: settings, wantFile: "train.npy"},
		{name: "other data", first: equal, train: dataset(4, 50, 50, 50), settings: settings, wantOther: true},
		{name: "other settings", first: equal, train: equal, settings: map[string]any{"budget": 3}, wantOther: true},
		{name: "under a file", train: equal, dir: filepath.Join(notDir, "search"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir
			if dir == "" {
				dir = filepath.Join(t.TempDir(), "search")
			}
			if tc.first != nil {
				if _, err := Open(dir, tc.first, val, settings); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := Open(dir, tc.train, val, tc.settings)
			if got := errors.Is(err, ErrOther); got != tc.wantOther || (err != nil) != (tc.wantOther || tc.wantErr) {
				t.Fatalf("Open: %v; want ErrOther %v, an error %v", err, tc.wantOther, tc.wantOther || tc.wantErr)
			}
			if err != nil {
				return
			}
			if tr.trainFile != tc.wantFile || tr.valFile != "val.npy" {
				t.Errorf("files %s, %s; want %s, val.npy", tr.trainFile, tr.valFile, tc.wantFile)
			}
			back, err := data.ReadFile(filepath.Join(dir, tr.trainFile), data.ReadOptions{})
			if err != nil || !same(back, tc.train) {
				t.Errorf("%s does not read back as the data: %v", tr.trainFile, err)
			}
		})
	}
}

// candidates are two configurations, FB and FF, told apart by their seeds.
func candidates(seeds ...uint64) search.Rung {
	r := search.Rung{Rungs: 2}
	for i, s := range seeds {
		cfg := trainer.DefaultConfig()
		cfg.Seed, cfg.Workers, cfg.Decay = s, 1, 0.9448814077790176
		cfg.Structure.Feedback = i%2 == 0
		cfg.Structure.R2 = 3
		r.Configs = append(r.Configs, cfg)
		r.Names = append(r.Names, fmt.Sprintf("candidate %d", s))
	}
	return r
}

// TestPlan: a rung's trials are its candidates' complete settings with the
// search off, numbers exact, and no --r2 for an FF model (which train
// refuses there); every setting is a flag value.
func TestPlan(t *testing.T) {
	tr, err := Open(t.TempDir(), dataset(1, 20, 20), dataset(2, 20), nil)
	if err != nil {
		t.Fatal(err)
	}
	rung := candidates(1, 2)
	p, err := tr.Plan(rung)
	if err != nil {
		t.Fatal(err)
	}
	for i, trial := range p.Trials {
		cfg := rung.Configs[i]
		s := trial.Settings
		if trial.Name != rung.Names[i] || trial.Data != filepath.Join("..", "train.npy") || trial.Val != filepath.Join("..", "val.npy") || trial.Ts != 0.01 {
			t.Errorf("trial %d: %+v", i, trial)
		}
		if s["search"] != "off" || fmt.Sprint(s["decay"]) != "0.9448814077790176" || fmt.Sprint(s["seed"]) != strconv.FormatUint(cfg.Seed, 10) {
			t.Errorf("trial %d: settings %v", i, s)
		}
		if _, hasR2 := s["r2"]; hasR2 != cfg.Structure.Feedback {
			t.Errorf("trial %d (feedback %v): r2 given %v", i, cfg.Structure.Feedback, hasR2)
		}
		args, err := trial.Args(tr.Dir)
		if err != nil {
			t.Fatalf("trial %d: %v", i, err)
		}
		if !strings.Contains(strings.Join(args, " "), "--hidden=4,4") {
			t.Errorf("trial %d: args %v", i, args)
		}
	}
}

// stub is a TrainFunc that does by --seed what a trial may do: seed 1 and 2
// finish (writing a model made in advance), 3 is bad input (exit 2), 4
// fails (exit 1, retried on the next run).
type stub struct {
	model string
	mu    sync.Mutex
	calls map[string]int
}

func (s *stub) train(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	seed, out := fs.String("seed", "", ""), fs.String("out", "", "")
	fs.Bool("json", false, "")
	for _, a := range args { // the settings as flags, taken as they come
		if name, _, ok := strings.Cut(strings.TrimPrefix(a, "--"), "="); ok && fs.Lookup(name) == nil {
			fs.String(name, "", "")
		}
	}
	fs.String("data", "", "")
	fs.String("val", "", "")
	fs.String("ts", "", "")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	s.mu.Lock()
	s.calls[*seed]++
	s.mu.Unlock()
	switch *seed {
	case "3":
		fmt.Fprintln(stderr, "gputrain train: --lr -1: must be > 0")
		return 2
	case "4":
		fmt.Fprintln(stderr, "gputrain train: training failed")
		return 1
	}
	b, err := os.ReadFile(s.model)
	if err == nil {
		err = os.WriteFile(*out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, `{"best_val_fit": 4%s.5, "seconds": 1.25, "taps_at_bound": 3, "ridge_ratio": null, "certificate": {"passive": true, "branches": []}}`, *seed)
	return 0
}

// TestTrainRungStates: the rung's trials run through the sweep runner; a
// finished one gives its model and fit, a failed one (bad input) its log's
// last line, an unfinished one a note to run again. A second run skips the
// finished and failed trials and retries only the unfinished one.
func TestTrainRungStates(t *testing.T) {
	dir := t.TempDir()
	m, err := model.RandomPassive(model.Structure{Branches: 1, Taps: 4, R1: 1, R2: 1, Hidden: []int{2}, Feedback: true}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(dir, "fixture.json")
	if err := model.Save(fixture, m, model.Meta{Mode: "none"}); err != nil {
		t.Fatal(err)
	}
	tr, err := Open(filepath.Join(dir, "search"), dataset(1, 20, 20), dataset(2, 20), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &stub{model: fixture, calls: map[string]int{}}
	tr.Train, tr.Local = s.train, 2
	rung := candidates(1, 2, 3, 4)
	for run := 1; run <= 2; run++ {
		got := map[int]search.Trained{}
		if err := tr.TrainRung(context.Background(), rung, nil, nil, func(i int, r search.Trained) { got[i] = r }); err != nil {
			t.Fatal(err)
		}
		for i, want := range []struct {
			fit   float64
			err   string
			calls int
		}{{41.5, "", 1}, {42.5, "", 1}, {0, "failed on bad input: gputrain train: --lr -1: must be > 0", 1}, {0, "did not finish (train exited ", run}} {
			r, ok := got[i]
			switch {
			case !ok:
				t.Errorf("run %d: candidate %d not handed back", run, i)
			case want.err == "" && (r.Err != nil || r.Result.BestValFit != want.fit || r.Seconds != 1.25 || r.Result.TapsAtBound != 3 || !r.Result.Cert.Passive):
				t.Errorf("run %d: candidate %d: %+v, %v; want fit %v", run, i, r.Result, r.Err, want.fit)
			case want.err == "" && !rung.Configs[i].Structure.Feedback && r.Result.Model.R2 != rung.Configs[i].Structure.R2:
				t.Errorf("run %d: candidate %d: R2 %d, want the candidate's %d", run, i, r.Result.Model.R2, rung.Configs[i].Structure.R2)
			case want.err != "" && (r.Err == nil || !strings.Contains(r.Err.Error(), want.err)):
				t.Errorf("run %d: candidate %d: error %v; want %q", run, i, r.Err, want.err)
			}
			if n := s.calls[strconv.FormatUint(rung.Configs[i].Seed, 10)]; n != want.calls {
				t.Errorf("run %d: candidate %d trained %d times, want %d", run, i, n, want.calls)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(RungDir(tr.Dir, 0), "trial-0000", sweep.DoneFile)); err != nil {
		t.Errorf("no done marker: %v", err)
	}
	// sweep collect names the candidates by their structure.
	plan, err := sweep.ReadPlan(filepath.Join(RungDir(tr.Dir, 0), sweep.PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	var md strings.Builder
	if err := sweep.Collect(plan, RungDir(tr.Dir, 0)).WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| candidate 2 |") {
		t.Errorf("the summary does not name the candidates:\n%s", md.String())
	}
	// A rung planned otherwise in the same folder: another search.
	other := candidates(1, 2, 3, 5)
	if err := tr.TrainRung(context.Background(), other, nil, nil, func(int, search.Trained) {}); !errors.Is(err, ErrOther) {
		t.Errorf("another rung 1: %v, want ErrOther", err)
	}
}

// TestRead reads a trial's metrics back exactly: a fit that needs 17 digits.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	m, err := model.RandomPassive(model.Structure{Branches: 1, Taps: 4, R1: 1, Hidden: []int{2}}, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if err := model.Save(filepath.Join(dir, sweep.ModelFile), m, model.Meta{Mode: "none", Ts: 0.5}); err != nil {
		t.Fatal(err)
	}
	fit := 0.1 + 0.2
	b, _ := json.Marshal(map[string]any{"best_val_fit": fit, "seconds": 2.5, "ridge_ratio": 1e-5})
	if err := os.WriteFile(filepath.Join(dir, sweep.MetricsFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	res, secs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if res.BestValFit != fit || secs != 2.5 || res.RidgeRatio != 1e-5 || res.Meta.Ts != 0.5 || res.Model.Taps != 4 {
		t.Errorf("Read: %+v, %v", res, secs)
	}
}
