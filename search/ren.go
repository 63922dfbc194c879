package search

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/passivenfir/gputrain/baselines"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/loop"
	"github.com/passivenfir/gputrain/trainer"
	"github.com/passivenfir/gputrain/trials"
)

// RENStructure is a passive REN candidate's size and seed: what its row of
// the search table records.
type RENStructure struct {
	States  int    `json:"states"`
	Neurons int    `json:"neurons"`
	Seed    uint64 `json:"seed"`
	Biased  bool   `json:"biased,omitempty"` // biases, output less the zero-input response (baselines.PassiveREN)
	Gated   bool   `json:"gated,omitempty"`  // gates on the equilibrium layer (baselines.PassiveREN)
	// Long is whether it starts from slow modes at the longest memory
	// the records show (longMemory) rather than at the passive FIR's.
	Long bool `json:"long,omitempty"`
	// Memory is the memory in samples its start and schedule used
	// (baselines.RENConfig.Memory; at or below baselines.RefMemory, the
	// random start and the configured schedule).
	Memory int `json:"memory,omitempty"`
}

// name is the candidate's row name.
func (st RENStructure) name() string {
	kind := ""
	switch {
	case st.Biased:
		kind = "biased, "
	case st.Gated:
		kind = "gated, "
	}
	if st.Long && st.Memory > baselines.RefMemory {
		kind += fmt.Sprintf("memory %d, ", st.Memory)
	}
	return fmt.Sprintf("ren %d states × %d neurons, %sseed %d", st.States, st.Neurons, kind, st.Seed)
}

// RENSeeds is the number of passive RENs the search trains (seeds
// base.Seed, base.Seed+1, …), all at once, of the kinds renKinds lists:
// one plain, one wide and gated, one with biases and two gated. A REN
// trained on the simulation error lands where its start leads it more
// than a loop does, so the 5 × 15 gated kind, chosen most, has two
// starts, the better kept on validation (a gated REN with the clip of
// RENConfig.WithGates). A REN without biases is odd, y(−u) = −y(u), and
// cannot model a rectifying one-port; the biased one can (on a diode
// screening set of session 30, validation Fit 53.0 → 98.3 %), but its
// training failed on one of three seeds of a symmetric two-mass plant. A
// plain REN is contracting and cannot follow a lightly damped ringing
// whose frequency moves with its amplitude; the gated one can (session
// 31's screening sets: a drive with play 80 → 91 %, a two-mass plant
// 83–89 → 94 % on validation), but it fell behind on a positioner (96 →
// 86–94 %). The kinds compete rather than one replacing the others:
// whichever validates best is offered. The second gated start starts
// from slow modes at the longest memory the records show (longMemory)
// where that exceeds the passive FIR's: a plant that a linear FIR cannot
// follow hides its memory from it (a stick-slip plant logged at 2 ms,
// whose FIR peaks at 8 taps where its ringing decays over about 1500
// samples: a REN at the FIR's memory validated at 16 %, one at half the
// record's 4000 samples at 89 %; docs/BENCHMARKS.md, session 41).
const RENSeeds = len(renKinds)

// WideStates and WideNeurons are the size of the wide gated REN, where the
// others have the configured size (baselines.SimulationRENConfig's 5 × 15).
// On session 32's screening of the quick zoo's data (docs/BENCHMARKS.md)
// it reached 71.9–73.8 % validation Fit on the gear with play that starts
// mid-motion in three starts of three, where the 5 × 15 gated REN reached
// 62.7–71.0 % in six; elsewhere it was level or behind (a positioner 92 %
// against 98 %, a two-mass plant on long records 93 % against 95 %), and
// it costs about 2.5 times the time, so it replaces the second plain REN
// (which won no case of session 31's zoo) rather than a gated one.
const (
	WideStates  = 8
	WideNeurons = 32
)

// renKinds are the search's RENs, the k-th trained from seed base.Seed+k,
// with its biases, gates and size (0 × 0: the configured size). The wide
// one takes the place the second plain REN had, so that the others keep
// their seeds.
var renKinds = [...]RENStructure{
	{},
	{Gated: true, States: WideStates, Neurons: WideNeurons},
	{Biased: true},
	{Gated: true},
	{Gated: true, Long: true},
}

// LongMemoryCap bounds the memory of the long-memory REN (renKinds'
// Long kind), in samples: its learning rate falls and its schedule grows
// with the memory (baselines.RENConfig.Memory), so a record of 40 000
// samples would leave it a rate 80 times below the configured one. Four
// times the FIR grid's cap holds the zoo's memories (about 100 samples at
// their own rates) logged 40 times faster than they need; data sampled
// finer still are for gputrain resample.
const LongMemoryCap = 4 * trainer.MaxLinearTaps

// longMemory is the memory the long-memory REN starts from: half of the
// shortest training record (the longest response every record shows
// whole from its start, the FIR grid's own bound), at most LongMemoryCap,
// and never below measured, the passive FIR's measure (Result.Memory).
// A memory at or below baselines.RefMemory is none: the random start.
func longMemory(train *data.Dataset, measured int) int {
	shortest := 0
	if train != nil {
		for i, b := range train.Batches {
			if n := len(b.U); i == 0 || n < shortest {
				shortest = n
			}
		}
	}
	return max(measured, min(shortest/2, LongMemoryCap))
}

// renCounts counts the biased, gated, wide and long-memory kinds of
// renKinds, for the plan.
func renCounts() (biased, gated, wide, long int) {
	for _, k := range renKinds {
		if k.Long {
			long++
		}
		if k.Biased {
			biased++
		}
		if k.Gated {
			gated++
		}
		if k.States != 0 {
			wide++
		}
	}
	return biased, gated, wide, long
}

// renShare is the part of the time left after the halving that the RENs
// may take; the loop family trains in the rest. Half since session 31:
// under the third before it, the five RENs of the quick zoo's two-mass
// plant and gearbox stopped at 106–112 s, their best epoch among the
// last ones, while a gated REN validates better with more (gearbox:
// 88.3 % after 2644 epochs, 90–92 % after 5000).
const renShare = 2

// renGate returns the gate that keeps the RENs, all training at once, to
// workers cores on a runtime of procs (GOMAXPROCS): nil where the runtime
// already bounds them to that (workers ≥ procs) or they number no more
// than the workers, and a gate of workers slots otherwise (--workers 1 on
// a machine of many cores, as a scheduler's task with one core asks). The
// gate serves their steps in turn, so each still gets a share of the time
// limit, as it does from the runtime.
func renGate(workers, procs int) baselines.Gate {
	if workers >= procs || workers >= RENSeeds || workers < 1 {
		return nil
	}
	return baselines.NewGate(workers)
}

// ren trains the passive REN family (Options.REN) when the user fixed no
// structure: RENSeeds RENs, the best on validation offered as
// Result.REN with its Fit RENFit, each with a row. Under a time limit they
// stop at half of what is left of it, keeping their best epoch.
func (s *searcher) ren(ctx context.Context, res *Result) error {
	if s.opt.REN == nil || s.fixed != (Fixed{}) {
		return nil
	}
	rctx := ctx
	if lim := s.opt.TimeLimit; lim > 0 {
		left := time.Until(s.start.Add(lim))
		var cancel context.CancelFunc
		rctx, cancel = context.WithTimeout(ctx, max(left, lim/renShare)/renShare)
		defer cancel()
	}
	type out struct {
		m       *baselines.PassiveREN
		fit     float64
		err     error
		seconds float64
		cut     bool
	}
	outs := make([]out, RENSeeds)
	// each REN's memory, computed once so that its row records what it trained with
	memory := make([]int, RENSeeds)
	for k, kind := range renKinds {
		memory[k] = s.renMemory(kind, res)
	}
	per := max(1, s.opt.Workers/RENSeeds) // goroutines within one REN
	gate := renGate(s.opt.Workers, runtime.GOMAXPROCS(0))
	// All RENs at once, sharing the workers, rather than Workers at a
	// time: under the time limit each then gets the same share of it,
	// where the last ones started would get what the first left (on
	// session 31's quick zoo the gated RENs, started last, were cut
	// short). Without a limit the work is the same. trials.Local: a panic
	// in a REN's training is its row's error, not the end of the search.
	errs := trials.Local{Parallel: RENSeeds}.Run(rctx, RENSeeds, func(ctx context.Context, k int) error {
		cfg := *s.opt.REN
		cfg.Seed, cfg.Workers, cfg.ValSkip, cfg.Gate = s.base.Seed+uint64(k), per, s.base.ValSkip, gate
		kind := renKinds[k]
		cfg.Memory = memory[k]
		cfg.Biased = kind.Biased
		if kind.States > 0 {
			cfg.States, cfg.Neurons = kind.States, kind.Neurons
		}
		if kind.Gated {
			cfg = cfg.WithGates()
		}
		start := time.Now()
		m, err := baselines.TrainRENContext(ctx, s.train, s.val, cfg)
		o := out{m: m, err: err, fit: math.NaN(), seconds: time.Since(start).Seconds()}
		if m != nil {
			o.cut, o.err = err != nil, nil
			_ = gate.Do(context.Background(), func() { // the scoring keeps to the workers too
				o.fit, err = loop.FitOf(s.val, s.base.ValSkip, m.Simulate)
			})
			if err != nil {
				o.err = err
			}
		}
		outs[k] = o
		return nil
	})
	for k, err := range errs {
		if err != nil && outs[k].err == nil && outs[k].m == nil {
			outs[k] = out{err: err, fit: math.NaN()}
		}
	}
	for k, o := range outs {
		cfg := *s.opt.REN
		st := renKinds[k]
		st.Seed = s.base.Seed + uint64(k)
		if st.States == 0 {
			st.States, st.Neurons = cfg.States, cfg.Neurons
		}
		if st.States == 0 || st.Neurons == 0 {
			def := baselines.DefaultRENConfig()
			st.States, st.Neurons = def.States, def.Neurons
		}
		st.Memory = memory[k]
		row := Row{Name: st.name(), REN: &st,
			ValFit: o.fit, Seconds: o.seconds, Cut: o.cut}
		if o.m != nil {
			row.Epochs = len(o.m.ValLoss) // epochs trained, as a loop's row says
		}
		if o.err != nil && ctx.Err() == nil {
			row.Error = o.err.Error() // a failed REN is a row, not the end of the search
		}
		res.TimeCut = res.TimeCut || o.cut
		note := row.Error
		if o.cut {
			note = fmt.Sprintf("(time limit: stopped after %d epochs in %.0fs, best epoch %d)", row.Epochs, o.seconds, o.m.BestEpoch)
		}
		s.emit(Event{Stage: "candidate", Rung: max(res.Rungs-1, 0), Rungs: max(res.Rungs, 1), Candidate: row.Name, ValFit: row.ValFit, Note: note})
		if o.m != nil && !math.IsNaN(o.fit) {
			res.rens, res.renRows = append(res.rens, o.m), append(res.renRows, len(res.Rows))
		}
		if o.m != nil && !math.IsNaN(o.fit) && (res.REN == nil || o.fit > res.RENFit) {
			res.REN, res.RENFit, res.renRow = o.m, o.fit, len(res.Rows)
		}
		res.Rows = append(res.Rows, row)
	}
	return ctx.Err()
}

// renMemory is the memory the REN of kind starts from and schedules by
// (baselines.RENConfig.Memory): the configured one, else the plant's
// memory as the passive FIR measured it (Result.Memory; beyond
// baselines.RefMemory the REN starts from slow modes), or for the Long
// kind longMemory.
func (s *searcher) renMemory(kind RENStructure, res *Result) int {
	if m := s.opt.REN.Memory; m != 0 {
		return m
	}
	if kind.Long {
		return longMemory(s.train, res.Memory)
	}
	return res.Memory
}

// RENMemory is the memory the trained REN m of the search started from
// and scheduled by (baselines.RENConfig.Memory), as its row
// records it: what a refit of m continues with. A REN the search did not
// train has Result.Memory.
func (r *Result) RENMemory(m *baselines.PassiveREN) int {
	for i, x := range r.rens {
		if x == m && r.renRows[i] < len(r.Rows) && r.Rows[r.renRows[i]].REN != nil {
			return r.Rows[r.renRows[i]].REN.Memory
		}
	}
	return r.Memory
}

// renClear reports whether the REN clears the linear FIR on validation
// (Margin.Clear of its block gains, as an NFIR's: the REN was stopped
// early on all of validation, so the margin is not cross-fitted).
func (s *searcher) renClear(res *Result) bool {
	if res.linear == nil {
		return true
	}
	return s.clearOfLinear(res, res.Rows[res.renRow].Name, linearMargin(s.val, s.base.ValSkip, res.REN.Simulate, res.firSim))
}
