package main

// The checks and advice of gputrain train on its data and its result: data
// that cannot be fitted, and notes that name a setting to change.

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
	"github.com/passivenfir/gputrain/trainer"
)

// maxDataMagnitude bounds the training data: the θ_G step sums squares and
// products of samples and taps, which overflow float64 near 1e154.
const maxDataMagnitude = 1e100

// largest returns the largest |u| or |y| of d and which of the two it is.
func largest(d *data.Dataset) (float64, string) {
	var v float64
	which := "u"
	for _, b := range d.Batches {
		for i := range b.U {
			if a := math.Abs(b.U[i]); a > v {
				v, which = a, "u"
			}
			if a := math.Abs(b.Y[i]); a > v {
				v, which = a, "y"
			}
		}
	}
	return v, which
}

// zeroInput reports whether every input sample of d is zero.
func zeroInput(d *data.Dataset) bool {
	for _, b := range d.Batches {
		for _, v := range b.U {
			if v != 0 {
				return false
			}
		}
	}
	return true
}

// zeroScored returns the names of the batches of d whose scored output
// (y_clean where known, else y) is zero from sample skip on: their Fit is
// undefined, so validation leaves them out.
func zeroScored(d *data.Dataset, skip int) []string {
	var names []string
	for i, b := range d.Batches {
		y := b.Y
		if b.YClean != nil {
			y = b.YClean
		}
		zero := true
		for _, v := range y[min(skip, len(y)):] {
			if v != 0 {
				zero = false
				break
			}
		}
		if zero {
			names = append(names, b.Name(i))
		}
	}
	return names
}

// checkData runs trainer.CheckData on the training data and returns it with
// the notes it calls for: a negative energy supply, which no passive model
// started at rest can follow, and an output offset, which no model mapping
// u = 0 to y = 0 can. A check that fails is no reason to stop: it says so.
func checkData(ctx context.Context, d *data.Dataset, cfg trainer.Config) (*trainer.DataCheck, []string) {
	st := cfg.Structure
	// long enough for most plants' memory, so that a slow response is not
	// taken for an offset; the least squares of 1000 taps take a fraction of
	// a second
	taps := min(max(200, st.Taps, st.LinearTaps), 1000)
	c, err := checkDataOnce(ctx, d, taps, cfg.Workers)
	if err != nil {
		return nil, []string{fmt.Sprintf("the data check did not run: %v", err)}
	}
	var notes []string
	offset := math.Abs(c.Offset) > trainer.OffsetNote
	if c.Supply < 0 && cfg.Passivity != trainer.PassivityNone {
		also := ""
		if offset {
			also = ", and the offset of y (next note), which alone can make Σu·y negative"
		}
		notes = append(notes, fmt.Sprintf("the input supplied negative energy: Σu·y = %.3g·‖u‖‖y‖ (%d of %d batches negative), where a passive plant started at rest has Σu·y ≥ 0; a passive model cannot follow these data: check the sign of u or y, that y is the output collocated with u (velocity for a force, current for a voltage)%s; --passivity none fits without the constraint", c.Supply, c.NegativeBatches, c.Batches, also))
	}
	if c.Supply >= 0 && cfg.Passivity != trainer.PassivityNone && float64(c.DipBatches) > trainer.DipNote*float64(c.Batches) {
		notes = append(notes, fmt.Sprintf("in %d of %d batches the energy supplied, Σu·y up to t, falls below zero partway (down to %.2g·‖u‖‖y‖): a passive plant can give back only what it stored before the record began, so the plant may not be passive from u to y (an output not collocated with the input, such as position for a force), and a passive model may fit it less well than one without the constraint (--passivity none); compare the two", c.DipBatches, c.Batches, c.Dip))
	}
	if !c.Passive && c.PassiveGap >= trainer.GapNote && c.Supply >= 0 && cfg.Passivity != trainer.PassivityNone && float64(c.DipBatches) <= trainer.DipNote*float64(c.Batches) {
		notes = append(notes, fmt.Sprintf("a passive linear FIR fits these data %.1f points of Fit worse than one without the constraint (passive pairs lose less than %g): the pair u → y may not be passive; likely causes: %s; --passivity none fits without the constraint", c.PassiveGap, trainer.GapNote, strings.Join(c.Causes, "; or ")))
	}
	if offset {
		notes = append(notes, fmt.Sprintf("y has an offset that no model mapping u = 0 to y = 0 explains: the best linear FIR (%d taps, unconstrained) leaves a mean residual of %.2g·rms(y); if it is a sensor bias, subtract it from y (and any bias of u from u) before training: it costs fit, and Fit then credits the model with the offset (a plant whose response outlasts %d samples shows the same)", c.OffsetTaps, c.Offset, c.OffsetTaps))
	}
	return &c, notes
}

// resultNotes are the advice a finished run gives on its settings: taps held
// at the decay bound, and a ridge that outweighs the data. Each names a value
// to try.
//
// toData converts taps of the scaled data to the data's units (the trainer's
// factors a/b with --scale auto, 1 otherwise); the model is in the data's.
func resultNotes(cfg trainer.Config, res *trainer.Result, toData float64) []string {
	var notes []string
	if f := res.BestValFit; f < 0 {
		notes = append(notes, fmt.Sprintf("the validation Fit is %.3g%%, below 0: the model's output is further from y than zero is; look at the notes on the data above, at the model's memory (--taps, --linear-taps) against the plant's, and at the training budget (--iters, --epochs)", f))
	}
	if n := res.TapsAtBound; n > 0 {
		st := cfg.Structure
		all := (st.Branches*st.Taps + st.LinearTaps) * max(cfg.Members, 1)
		notes = append(notes, fmt.Sprintf("%d of %d taps end on the decay bound |g(k)| ≤ %g·%.4g^k, which then limits the fit: the bound is in units of output per input%s, so for a plant of larger gain raise --rho (for example --rho %g), for a longer memory --decay (closer to 1; --decay auto fits the bound to the filter length), or give --rho 0 for no bound",
			n, all, cfg.Rho, cfg.Decay, unitsOf(cfg), 10*cfg.Rho))
	}
	if cfg.Passivity == trainer.PassivitySampled && cfg.Eps > 0 && res.Model != nil && heldAtMargin(res.Model, cfg.Eps/2*toData) {
		suggest, _ := strconv.ParseFloat(strconv.FormatFloat(cfg.Eps*1e-3, 'g', 1, 64), 64)
		notes = append(notes, fmt.Sprintf("--eps %g sets the taps rather than the data: every FIR's Re G stays below twice its margin eps/2 = %g at every frequency; eps is in units of output per input%s; lower it (for example --eps %g)",
			cfg.Eps, cfg.Eps/2, unitsOf(cfg), suggest))
	}
	if r := res.RidgeRatio; r >= trainer.RidgeNote {
		// to a ratio of 1e-3, about the robot's most regularized setting
		suggest, _ := strconv.ParseFloat(strconv.FormatFloat(cfg.GammaG*1e-3/r, 'g', 1, 64), 64)
		notes = append(notes, fmt.Sprintf("--gamma-g %g is %.3g× the mean diagonal of the Gram matrix, so the ridge rather than the data sets the taps: γ_G is in units of u² times samples%s; lower it (for example --gamma-g %g)",
			cfg.GammaG, r, unitsOf(cfg), suggest))
	}
	return notes
}

// collapseGap is the shortfall of closed- against open-loop validation Fit
// (points) from which train warns: a feedback model that predicts one step
// well from measured outputs but drifts on its own.
const collapseGap = 15

// closedLoopNote warns when an FB model's closed-loop validation Fit falls
// far below its open-loop one ("" otherwise).
func closedLoopNote(m *model.NFIR, val *data.Dataset, skip int) string {
	if m == nil || !m.Feedback || m.Branches == 0 || val == nil {
		return ""
	}
	ev, err := trainer.Evaluate(m, val, skip)
	if err != nil || !(ev.OpenLoop.Median-ev.ClosedLoop.Median >= collapseGap) {
		return ""
	}
	return fmt.Sprintf("the closed-loop validation Fit, %.2f%%, is far below the open-loop one, %.2f%%: the model predicts one step well from the measured output but drifts when it feeds back its own, which is how it is used; train on the simulation error (--bptt-epochs), or leave the structure to the search (no structure flag), which scores the closed loop", ev.ClosedLoop.Median, ev.OpenLoop.Median)
}

// heldAtMargin reports whether every FIR of m has Re G(e^{iω}) < 2·margin at
// every frequency: the sampled constraint Re G ≥ margin, not the data, then
// shapes them all (a margin in the wrong units makes the model a static gain).
func heldAtMargin(m *model.NFIR, margin float64) bool {
	firs := [][]float64{m.Lin}
	for j := range m.Branches {
		firs = append(firs, m.Branch(j))
	}
	any := false
	for _, g := range firs {
		if len(g) == 0 {
			continue
		}
		neg := make([]float64, len(g))
		for k, v := range g {
			neg[k] = -v
		}
		c, err := convex.Certify(neg) // min of −Re G: −MinRe bounds max Re G from above
		if err != nil || -c.MinRe >= 2*margin {
			return false
		}
		any = true
	}
	return any
}

// unitsOf says, in a note on a setting, which data its units are those of.
func unitsOf(cfg trainer.Config) string {
	if cfg.Scale == trainer.ScaleAuto {
		return " of the scaled data (--scale auto)"
	}
	return " of the data (--scale none)"
}

// shortValNote is the note for a --val at path, scored after skip
// samples, whose longest record scores only scored samples, fewer than the
// memory who (the structure search, compare's classes) may try
// (search.ShortValidation).
func shortValNote(path, who string, skip, scored, memory int) string {
	return fmt.Sprintf("note: --val %s: its longest record scores %d samples (after --val-skip %d), fewer than the longest memory %s may try (%d samples, from the length of the --data records): a model simulated from rest never uses its filters' taps past the samples it is scored on, so validation cannot tell those memories apart and the choice of memory is not the data's; give validation records at least as long as the training records", path, scored, skip, who, memory)
}
