package trainer

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// trainMembers trains cfg.Members models with the seeds cfg.Seed,
// cfg.Seed+1, … and returns their mean as one NFIR. Each member keeps its
// own best iterate on val; the result's BestValFit is the merged model's
// median closed-loop Fit on val. When ctx is cancelled the members trained
// so far (the interrupted one's best iterate included) are averaged and
// returned together with ctx.Err(), as Train returns its best model so far.
func trainMembers(ctx context.Context, cfg Config, train, val *data.Dataset) (*Result, error) {
	start := time.Now()
	var (
		ms     []*model.NFIR
		hist   []Event
		runErr error
	)
	for i := range cfg.Members {
		c := cfg
		c.Members, c.Seed = 0, cfg.Seed+uint64(i)
		offset := time.Since(start)
		tag := func(e Event) Event {
			e.Member, e.Members, e.Elapsed = i+1, cfg.Members, e.Elapsed+offset
			return e
		}
		if cfg.Progress != nil {
			c.Progress = func(e Event) { cfg.Progress(tag(e)) }
		}
		res, err := trainOne(ctx, c, train, val)
		if res != nil {
			ms = append(ms, res.Model)
			for _, e := range res.History {
				hist = append(hist, tag(e))
			}
		}
		if err != nil {
			if ctx.Err() == nil { // a failure, not an interruption
				return nil, fmt.Errorf("trainer: member %d of %d (seed %d): %w", i+1, cfg.Members, c.Seed, err)
			}
			runErr = err
			break
		}
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
	if cfg.Passivity != "none" && !cert.Passive {
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
	done := Event{Stage: "done", Iter: cfg.Iters - 1, ValFit: bestV, TrainFit: math.NaN(), Elapsed: time.Since(start),
		Note: fmt.Sprintf("the mean of %d members (seeds %d–%d), one NFIR of %d branches", len(ms), cfg.Seed, cfg.Seed+uint64(len(ms))-1, m.Branches)}
	if cfg.Progress != nil {
		cfg.Progress(done)
	}
	raw, _ := json.Marshal(cfg)
	return &Result{
		Model:      m,
		Meta:       model.Meta{Ts: train.Ts, Mode: cfg.Passivity, Training: raw},
		Cert:       cert,
		History:    hist,
		BestValFit: bestV,
	}, runErr
}
