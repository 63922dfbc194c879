package main

import (
	"context"
	"math"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
)

// TestCheckDataOnce: the data check runs once per data set, taps and
// workers in a process, trials beside each other included, and gives what
// the check gives; other samples (one bit of one), taps or workers are
// checked anew, and an interrupted check is not remembered.
func TestCheckDataOnce(t *testing.T) {
	defer func(f func(context.Context, *data.Dataset, int, int) (trainer.DataCheck, error)) { checkDataFunc = f }(checkDataFunc)
	var calls atomic.Int32
	checkDataFunc = func(ctx context.Context, d *data.Dataset, taps, workers int) (trainer.DataCheck, error) {
		calls.Add(1)
		return trainer.CheckDataWorkers(ctx, d, taps, workers)
	}
	forgetDataChecks()
	d, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 1, Samples: 300})
	if err != nil {
		t.Fatal(err)
	}
	want, err := trainer.CheckDataWorkers(context.Background(), d, 20, 1)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	got := make([]trainer.DataCheck, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := checkDataOnce(context.Background(), d, 20, 1)
			if err != nil {
				t.Error(err)
			}
			got[i] = c
		}()
	}
	wg.Wait()
	for i, c := range got {
		if !reflect.DeepEqual(c, want) {
			t.Errorf("check %d: %+v, want %+v", i, c, want)
		}
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("4 checks of the same data: %d runs, want 1", n)
	}

	other := &data.Dataset{Batches: append([]data.Batch(nil), d.Batches...)}
	other.Batches[1].Y = append([]float64(nil), d.Batches[1].Y...)
	other.Batches[1].Y[7] = math.Nextafter(other.Batches[1].Y[7], math.Inf(1))
	for _, tc := range []struct {
		name          string
		d             *data.Dataset
		taps, workers int
	}{{"other taps", d, 21, 1}, {"other workers", d, 20, 2}, {"one sample one bit off", other, 20, 1}} {
		before := calls.Load()
		if _, err := checkDataOnce(context.Background(), tc.d, tc.taps, tc.workers); err != nil {
			t.Fatal(err)
		}
		if calls.Load() != before+1 {
			t.Errorf("%s: not checked anew", tc.name)
		}
	}

	fresh, err := data.GenerateMSD(data.MSDConfig{Batches: 3, Seed: 2, Samples: 300})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := checkDataOnce(ctx, fresh, 20, 1); err == nil {
		t.Fatal("a cancelled check returned no error")
	}
	before := calls.Load()
	if _, err := checkDataOnce(context.Background(), fresh, 20, 1); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != before+1 {
		t.Errorf("the interrupted check was remembered")
	}
}

// forgetDataChecks empties the memo of data checks, as a new process has it.
func forgetDataChecks() {
	checkMemo.Lock()
	checkMemo.m = nil
	checkMemo.Unlock()
}
