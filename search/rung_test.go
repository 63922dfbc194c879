package search

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/trainer"
)

// serial is the reference RungTrainer: every candidate trained by
// trainer.Train in turn, with no pool, as the search did before its rungs
// went through a runner.
type serial struct{ rungs []Rung }

func (s *serial) TrainRung(ctx context.Context, rung Rung, train, val *data.Dataset, done func(int, Trained)) error {
	s.rungs = append(s.rungs, rung)
	for i, cfg := range rung.Configs {
		res, err := trainer.Train(ctx, cfg, train, val)
		done(i, Trained{Result: res, Err: err})
	}
	return ctx.Err()
}

// table is a search's table without its wall-clock times.
func table(r *Result) []Row {
	rows := append([]Row{}, r.Rows...)
	for i := range rows {
		rows[i].Seconds = 0
	}
	return rows
}

// TestTrainerEquality: the search through its runner (Local) gives the
// table, choice and model bit for bit that a plain serial loop over
// trainer.Train gives, and the serial trainer sees every rung with the
// candidates' complete configurations. With another number of workers the
// candidates' rows are the same too (the loop shapes, which split their
// gradients over the workers, may differ in the last bits).
func TestTrainerEquality(t *testing.T) {
	train, val := msd(t, 8, 3), msd(t, 3, 4)
	lc := loop.DefaultConfig()
	lc.Epochs = 2
	run := func(opt Options) *Result {
		t.Helper()
		opt.Budget, opt.AutoDecay, opt.Loop = 2, true, &lc
		r, err := Select(context.Background(), tiny(), Fixed{}, opt, train, val)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ref := &serial{}
	want := run(Options{Workers: 2, Trainer: ref})
	if len(ref.rungs) != 2 || len(ref.rungs[0].Configs) != 3 || len(ref.rungs[1].Configs) != 1 {
		t.Fatalf("rungs of %v candidates; want 3 then 1", ref.rungs)
	}
	for _, cfg := range ref.rungs[0].Configs {
		if cfg.Workers != 1 || cfg.Epochs != tiny().Epochs/eta || cfg.Structure.Branches == 0 {
			t.Errorf("rung 1 trains %+v; want one worker, a third of the epochs, an NFIR", cfg)
		}
	}
	got := run(Options{Workers: 2})
	if !reflect.DeepEqual(table(got), table(want)) {
		t.Errorf("table\n%+v\nwant\n%+v", table(got), table(want))
	}
	if got.Chosen != want.Chosen || math.Float64bits(got.ValFit()) != math.Float64bits(want.ValFit()) ||
		!reflect.DeepEqual(got.Model, want.Model) || !reflect.DeepEqual(got.Config, want.Config) {
		t.Errorf("chose %s (%v), want %s (%v), or another model", got.Chosen, got.ValFit(), want.Chosen, want.ValFit())
	}
	nfirs := func(r *Result) []Row {
		var rows []Row
		for _, row := range table(r) {
			if row.Structure.Branches > 0 {
				rows = append(rows, row)
			}
		}
		return rows
	}
	if w3 := run(Options{Workers: 3}); !reflect.DeepEqual(nfirs(w3), nfirs(want)) {
		t.Errorf("workers 3: candidates\n%+v\nwant\n%+v", nfirs(w3), nfirs(want))
	}
}

// panicky fails its first candidate with a panic in a worker goroutine.
type panicky struct{ Local }

func (p panicky) TrainRung(ctx context.Context, rung Rung, train, val *data.Dataset, done func(int, Trained)) error {
	if rung.Index == 0 {
		rung.Configs[0].Progress = func(trainer.Event) { panic("boom") }
	}
	return p.Local.TrainRung(ctx, rung, train, val, done)
}

// TestLocalPanic: a candidate whose training panics is a failed row with
// the panic as its error; the search goes on and chooses among the others.
func TestLocalPanic(t *testing.T) {
	train, val := msd(t, 8, 3), msd(t, 3, 4)
	r, err := Select(context.Background(), tiny(), Fixed{}, Options{Budget: 2, Workers: 2, Trainer: panicky{Local{Workers: 2}}}, train, val)
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, row := range r.Rows {
		if row.Error != "" {
			failed++
			if row.Error != "internal error: panic: boom" || !math.IsNaN(row.ValFit) {
				t.Errorf("row %+v: want the panic as its error", row)
			}
		}
	}
	if failed != 1 || r.Result == nil {
		t.Errorf("%d failed rows, result %v; want one, and a chosen model", failed, r.Result)
	}
}

// TestLocalInterrupted: candidates still training when ctx is cancelled are
// not handed to done, nor are those never started.
func TestLocalInterrupted(t *testing.T) {
	train, val := msd(t, 8, 3), msd(t, 3, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := tiny()
	cfg.Epochs = 10000
	cfg.Progress = func(trainer.Event) { cancel() }
	rung := Rung{Rungs: 1, Names: []string{"a", "b", "c"}, Configs: []trainer.Config{cfg, cfg, cfg}}
	rung.Configs[0].Structure.Branches = 2
	calls := 0
	start := time.Now()
	err := Local{Workers: 1}.TrainRung(ctx, rung, train, val, func(int, Trained) { calls++ })
	if err != context.Canceled || calls != 0 {
		t.Errorf("TrainRung = %v with %d done calls; want context.Canceled and none", err, calls)
	}
	if time.Since(start) > 5*time.Second {
		t.Errorf("took %v after the cancel", time.Since(start))
	}
}
