package trainer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// trainMembers trains cfg.Members models with the seeds cfg.Seed,
// cfg.Seed+1, … and returns their mean as one NFIR. Each member keeps its
// own best iterate on val; the result's BestValFit is the merged model's
// median closed-loop Fit on val. When ctx is cancelled the members trained
// so far (the interrupted ones' best iterates included) are averaged and
// returned together with ctx.Err(), as Train returns its best model so far.
//
// On the CPU, min(Members, Workers) members train at a time, each with
// Workers divided among them: a member on one long record (the robot's)
// keeps few workers busy, so running members side by side is what uses
// the cores. With one member at a time (Workers ≤ 1, or CUDA, whose
// device the members would share) each gets all of Workers, as a single
// model would. The members are merged in seed order either way, so the
// mean depends only on the configuration (kernels are reproducible for a
// given worker count).
func trainMembers(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	start := time.Now()
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	par := max(1, min(cfg.Members, workers))
	if cfg.Device == DeviceCUDA {
		par = 1
	}
	inner, cancel := context.WithCancel(ctx)
	defer cancel()
	type outcome struct {
		res    *Result
		err    error
		failed bool // an error of its own, not an interruption
		offset time.Duration
	}
	outs := make([]outcome, cfg.Members)
	var (
		mu  sync.Mutex // serializes cfg.Progress: callers need not be safe for concurrent use
		wg  sync.WaitGroup
		sem = make(chan struct{}, par)
	)
	for i := range cfg.Members {
		sem <- struct{}{}
		if inner.Err() != nil { // interrupted, or a member failed: start no more
			break
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			var perr error
			defer func() {
				if perr != nil { // a panic in this member (CatchPanic below) fails the run
					outs[i] = outcome{err: perr, failed: true}
					cancel()
				}
			}()
			defer CatchPanic(&perr)
			c := cfg
			c.Members, c.Seed = 0, cfg.Seed+uint64(i)
			if par > 1 {
				c.Workers = max(1, workers/par)
			}
			offset := time.Since(start)
			if cfg.Progress != nil {
				c.Progress = func(e Event) {
					e.Member, e.Members, e.Elapsed = i+1, cfg.Members, e.Elapsed+offset
					mu.Lock()
					defer mu.Unlock()
					cfg.Progress(e)
				}
			}
			res, err := trainOne(inner, c, train, val)
			// An interruption (ctx, or a sibling's failure) returns ctx's error;
			// anything else is this member's own failure.
			failed := err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
			if failed {
				cancel() // stop the others: the run has failed
			}
			outs[i] = outcome{res: res, err: err, failed: failed, offset: offset}
		}()
	}
	wg.Wait()
	var (
		ms     []*model.NFIR
		seeds  []string
		hist   []Event
		runErr error
	)
	for i, o := range outs {
		if o.failed {
			return nil, fmt.Errorf("trainer: member %d of %d (seed %d): %w", i+1, cfg.Members, cfg.Seed+uint64(i), o.err)
		}
	}
	atBound, ridge := 0, 0.0
	for i, o := range outs {
		if o.res != nil {
			atBound += o.res.TapsAtBound
			ridge = math.Max(ridge, o.res.RidgeRatio)
			ms = append(ms, o.res.Model)
			seeds = append(seeds, strconv.FormatUint(cfg.Seed+uint64(i), 10))
			for _, e := range o.res.History {
				e.Member, e.Members, e.Elapsed = i+1, cfg.Members, e.Elapsed+o.offset
				hist = append(hist, e)
			}
		}
		if o.err != nil && runErr == nil {
			runErr = o.err
		}
	}
	if runErr == nil && ctx.Err() != nil {
		runErr = ctx.Err() // cancelled between members
	}
	if len(ms) == 0 {
		return nil, runErr
	}
	m, err := model.Average(ms...)
	if err != nil {
		return nil, fmt.Errorf("trainer: averaging %d members: %w", len(ms), err)
	}
	cert, err := m.Certify()
	if err != nil {
		return nil, err
	}
	if cfg.Passivity != PassivityNone && !cert.Passive {
		// Each member left trainOne certified, and dividing passive FIRs by
		// a positive number keeps them passive: reaching this line is a bug.
		return nil, fmt.Errorf("trainer: internal error: the mean of %d %s-mode members fails its passivity certificate %+v", len(ms), cfg.Passivity, cert)
	}
	bestV := math.NaN()
	if val != nil && len(val.Batches) > 0 {
		ev, err := Evaluate(m, val, cfg.ValSkip)
		if err != nil {
			return nil, fmt.Errorf("trainer: the mean of %d members on the validation data: %w", len(ms), err)
		}
		bestV = ev.ClosedLoop.Median
	}
	seedText := strings.Join(seeds, ", ")
	if len(seeds) > 1 && seeds[len(seeds)-1] == strconv.FormatUint(cfg.Seed+uint64(len(seeds))-1, 10) {
		seedText = seeds[0] + "–" + seeds[len(seeds)-1] // consecutive
	}
	done := Event{Stage: "done", Iter: cfg.Iters - 1, ValFit: bestV, TrainFit: math.NaN(), Elapsed: time.Since(start),
		Note: fmt.Sprintf("the mean of %d members (seeds %s), one NFIR of %d branches", len(ms), seedText, m.Branches)}
	if cfg.Progress != nil {
		cfg.Progress(done)
	}
	raw, _ := json.Marshal(cfg)
	return &Result{
		Model:       m,
		Meta:        model.Meta{Ts: train.Ts, Mode: string(cfg.Passivity), Training: raw},
		Cert:        cert,
		History:     hist,
		BestValFit:  bestV,
		TapsAtBound: atBound,
		RidgeRatio:  ridge,
	}, runErr
}
