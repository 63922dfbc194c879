package search

import (
	"context"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/trainer"
	"github.com/passivenfir/gputrain/trials"
)

// Rung is one rung of successive halving: its candidates' names and their
// complete configurations (structure and the rung's schedule), each to be
// trained from scratch on the search's data. A candidate's result is then a
// function of its configuration alone, wherever it trains.
type Rung struct {
	Index, Rungs int // 0-based, of Rungs
	Names        []string
	Configs      []trainer.Config
}

// Trained is what became of one candidate: its result, or the error that
// stopped it.
type Trained struct {
	Result  *trainer.Result
	Err     error
	Seconds float64
}

// A RungTrainer trains the candidates of a rung. TrainRung calls done once
// for every candidate that finished or failed (not for one that was
// interrupted or never started), one call at a time, and returns when every
// candidate has been handed to done or ctx is cancelled. Local trains in
// this process; package searchdir as the trials of a sweep, which other
// machines may run.
type RungTrainer interface {
	TrainRung(ctx context.Context, rung Rung, train, val *data.Dataset, done func(i int, t Trained)) error
}

// Local trains a rung's candidates in this process, Workers at a time (0:
// GOMAXPROCS), through trials.Local; each candidate trains on one core
// (its configuration's Workers), so its result does not depend on Workers.
type Local struct{ Workers int }

// TrainRung implements RungTrainer.
func (l Local) TrainRung(ctx context.Context, rung Rung, train, val *data.Dataset, done func(i int, t Trained)) error {
	done = serialize(done)
	trials.Local{Parallel: l.Workers}.Run(ctx, len(rung.Configs), func(ctx context.Context, i int) error {
		t0 := time.Now()
		res, err := trainSafe(ctx, rung.Configs[i], train, val)
		if ctx.Err() != nil && err != nil {
			return err // interrupted: an unfinished candidate does not count
		}
		done(i, Trained{Result: res, Err: err, Seconds: time.Since(t0).Seconds()})
		return nil
	})
	return ctx.Err()
}
