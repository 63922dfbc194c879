package trainer

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// TestMembers: Members = S returns model.Average of the S models that Train
// gives for the seeds Seed..Seed+S−1 one by one (the same simulated output),
// passive, with BestValFit the merged model's closed-loop validation Fit, and
// with every progress event tagged by its member.
func TestMembers(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true, LinearTaps: 4}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(5, 6)))
	train := simulate(truth, 8, 60, 7)
	val := simulate(truth, 3, 60, 8)
	for _, c := range []struct {
		members int
		valSkip int
	}{{2, 0}, {3, 10}} {
		cfg := DefaultConfig()
		cfg.Structure = st
		cfg.Iters, cfg.Epochs, cfg.Workers, cfg.Seed, cfg.ValSkip = 2, 4, 1, 11, c.valSkip
		want := averageOfSingles(t, cfg, c.members, train, val)
		var events []Event
		cfg.Members = c.members
		cfg.Progress = func(e Event) { events = append(events, e) }
		res, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		if res.Model.Branches != c.members*st.Branches || !res.Cert.Passive {
			t.Fatalf("members %d: %d branches, passive %v", c.members, res.Model.Branches, res.Cert.Passive)
		}
		u := val.Batches[0].U
		yw, _ := want.Simulate(u)
		yg, _ := res.Model.Simulate(u)
		for k := range yw {
			if math.Abs(yw[k]-yg[k]) > 1e-12*(1+math.Abs(yw[k])) {
				t.Fatalf("members %d: y[%d] = %g, the average of separately trained members gives %g", c.members, k, yg[k], yw[k])
			}
		}
		ev, err := Evaluate(res.Model, val, c.valSkip)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ev.ClosedLoop.Median-res.BestValFit) > 1e-9 {
			t.Errorf("members %d: BestValFit %g, Evaluate gives %g", c.members, res.BestValFit, ev.ClosedLoop.Median)
		}
		last := events[len(events)-1]
		if last.Stage != "done" || last.Member != 0 || math.Abs(last.ValFit-res.BestValFit) > 1e-12 {
			t.Errorf("members %d: last event %+v, want the ensemble's done with ValFit %g", c.members, last, res.BestValFit)
		}
		seen := map[int]bool{}
		for i, e := range events[:len(events)-1] {
			if e.Member < 1 || e.Member > c.members || e.Members != c.members {
				t.Fatalf("members %d: event %d tagged member %d of %d", c.members, i, e.Member, e.Members)
			}
			if i > 0 && (e.Member < events[i-1].Member || e.Elapsed < events[i-1].Elapsed) {
				t.Fatalf("members %d: event %d (member %d, %v) after member %d at %v", c.members, i, e.Member, e.Elapsed, events[i-1].Member, events[i-1].Elapsed)
			}
			seen[e.Member] = true
		}
		var notDone int // the history, as a single model's, holds every event but "done" and "solve"
		for _, e := range events {
			if e.Stage != "done" && e.Stage != "solve" {
				notDone++
			}
		}
		if len(seen) != c.members || len(res.History) != notDone {
			t.Errorf("members %d: events from %d members, history %d events, progress %d besides done", c.members, len(seen), len(res.History), notDone)
		}
	}
}

// TestMembersCancel: cancelling during the second member returns the mean
// of the first member and the second's best iterate so far, passive, with
// the context's error.
func TestMembersCancel(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(8, 8)))
	train := simulate(truth, 12, 60, 9)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := DefaultConfig()
	cfg.Structure = st
	cfg.Iters, cfg.Epochs, cfg.Members, cfg.Workers = 3, 50, 3, 1
	cfg.Progress = func(e Event) {
		if e.Member == 2 && e.Stage == "adam" && e.Iter == 1 && e.Epoch == 2 {
			cancel()
		}
	}
	res, err := Train(ctx, cfg, train, train)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if res == nil || !res.Cert.Passive || res.Model.Check() != nil || res.Model.Branches != 2*st.Branches {
		t.Fatalf("after cancel: want a valid passive mean of 2 members, have %+v", res)
	}
}

// TestMembersConcurrent: with Workers ≥ 2 the members train side by side,
// each with its share of the workers, and the result is the average of the
// members trained one by one with that share, merged in seed order; each
// member's events arrive in its own order, one callback at a time.
func TestMembersConcurrent(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 2, R2: 2, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(15, 16)))
	train := simulate(truth, 8, 60, 17)
	val := simulate(truth, 3, 60, 18)
	for _, c := range []struct{ members, workers, share int }{{3, 2, 1}, {2, 4, 2}} {
		cfg := DefaultConfig()
		cfg.Structure = st
		cfg.Iters, cfg.Epochs, cfg.Seed = 2, 4, 21
		cfg.Workers = c.share
		want := averageOfSingles(t, cfg, c.members, train, val)
		var (
			inCall   atomic.Int32
			overlap  bool
			lastIter = map[int]int{}
			order    = true
		)
		cfg.Members, cfg.Workers = c.members, c.workers
		cfg.Progress = func(e Event) {
			if inCall.Add(1) > 1 {
				overlap = true
			}
			defer inCall.Add(-1)
			if e.Member > 0 {
				if e.Iter < lastIter[e.Member] {
					order = false
				}
				lastIter[e.Member] = e.Iter
			}
		}
		res, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		if overlap || !order {
			t.Errorf("members %d, workers %d: progress callbacks overlapped (%v) or a member's events came out of order (%v)", c.members, c.workers, overlap, !order)
		}
		if len(lastIter) != c.members {
			t.Errorf("members %d: events from %d members", c.members, len(lastIter))
		}
		u := val.Batches[0].U
		yw, _ := want.Simulate(u)
		yg, _ := res.Model.Simulate(u)
		for k := range yw {
			if math.Abs(yw[k]-yg[k]) > 1e-12*(1+math.Abs(yw[k])) {
				t.Fatalf("members %d, workers %d: y[%d] = %g, the average of members trained one by one gives %g", c.members, c.workers, k, yg[k], yw[k])
			}
		}
		for i, e := range res.History {
			if i > 0 && e.Member < res.History[i-1].Member {
				t.Fatalf("history event %d of member %d after member %d: not in seed order", i, e.Member, res.History[i-1].Member)
			}
		}
	}
}

// TestMembersFail: members that fail, side by side or one by one, make
// Train fail with the first member's error, and no model.
func TestMembersFail(t *testing.T) {
	st := model.Structure{Branches: 2, Taps: 6, R1: 1, R2: 1, Hidden: []int{3}, Feedback: true}
	truth, _ := model.RandomPassive(st, rand.New(rand.NewPCG(3, 4)))
	train := simulate(truth, 4, 60, 5)
	for _, workers := range []int{1, 3} {
		cfg := DefaultConfig()
		cfg.Structure = st
		cfg.Iters, cfg.Epochs, cfg.Members, cfg.Workers = 1, 1, 3, workers
		cfg.ValSkip = 60 // every validation trajectory is too short: each member fails at once
		res, err := Train(context.Background(), cfg, train, train)
		if !errors.Is(err, ErrConfig) || res != nil || !strings.Contains(err.Error(), "member 1 of 3") {
			t.Errorf("workers %d: res %v, err %v; want ErrConfig from member 1 and no model", workers, res, err)
		}
	}
}

// averageOfSingles trains the members one Train call at a time, with the
// seeds cfg.Seed, cfg.Seed+1, … and cfg's workers, and averages them: the
// reference for Config.Members.
func averageOfSingles(t *testing.T, cfg Config, members int, train, val *data.Dataset) *model.NFIR {
	t.Helper()
	var singles []*model.NFIR
	for i := range members {
		one := cfg
		one.Seed += uint64(i)
		res, err := Train(context.Background(), one, train, val)
		if err != nil {
			t.Fatal(err)
		}
		singles = append(singles, res.Model)
	}
	want, err := model.Average(singles...)
	if err != nil {
		t.Fatal(err)
	}
	return want
}
