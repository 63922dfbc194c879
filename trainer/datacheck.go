package trainer

import (
	"context"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/model"
)

// DataCheck holds two properties of a training set that limit every passive
// model started at rest, whatever its structure, and that come from how the
// data were measured more often than from the plant: a sign convention or a
// non-collocated output, and a sensor offset.
type DataCheck struct {
	// Supply is Σ u(t)·y(t) over all samples over ‖u‖·‖y‖, in [−1, 1]: the
	// energy the input supplied, relative. A passive plant started at rest
	// has Σ_{t≤τ} u(t)·y(t) ≥ 0 in every record, so a negative Supply means
	// that the data, as given, are not those of a passive plant from u to y
	// (a flipped sign, or an output not collocated with the input).
	Supply float64 `json:"supply"`
	// NegativeBatches counts the batches whose own Σ u·y is negative.
	NegativeBatches int `json:"negative_batches"`
	Batches         int `json:"batches"`
	// DipBatches counts the batches whose running Σ_{t≤τ} u·y falls below
	// −DipLevel·‖u‖‖y‖ (of the batch) at some τ, and Dip is the lowest such
	// relative value over all batches: energy given back partway through a
	// record, which a passive plant can only do out of what it stored
	// before the record began. Position measured for a force does it in
	// most records; records that begin mid-motion do it a little.
	DipBatches int     `json:"dip_batches"`
	Dip        float64 `json:"dip"`
	// Offset is the mean of y − ŷ over rms(y), where ŷ is the output of the
	// least-squares linear FIR of OffsetTaps taps without passivity
	// constraint: the part of y's mean that no operator mapping u = 0 to
	// y = 0, passive or not, explains. A sensor bias shows here. It is
	// computed on the first 2^21 samples.
	Offset     float64 `json:"offset"`
	OffsetTaps int     `json:"offset_taps"`
	// PassiveGap is the Fit (percentage points, in sample, on the same
	// samples) that the same FIR (of at most gapTaps taps) loses when it
	// is constrained to be passive (the trainer's sampled mode): near 0 for a passive pair,
	// large when the data ask for energy a passive model cannot give back.
	// It catches what the dips miss when the energy stored from rest hides
	// them: a delay, a non-collocated output (GapNote).
	PassiveGap float64 `json:"passive_gap"`
	// NegativeRe is the share of the unconstrained FIR's real part Re G(ω)
	// that is negative, weighted by the input's spectrum S(ω): ∫S·min(Re
	// G, 0) / ∫S·|Re G|, in [−1, 0]. A passive plant has Re G ≥ 0. It is
	// noisy where the data determine G poorly (the robot arm's reaches
	// −0.5 while a passive FIR fits it within 1 point), so it only names
	// the causes: a sign flip or an advance of y that brings it near 0.
	NegativeRe float64 `json:"negative_re"`
	// Passive is the verdict: Supply ≥ 0, at most DipNote of the batches
	// dip and PassiveGap < GapNote. When false, Causes names the likely
	// reasons (CauseSign, CauseDelay, ...) and Delay the lag in samples
	// when one is found.
	Passive bool     `json:"passive"`
	Causes  []string `json:"causes,omitempty"`
	Delay   int      `json:"delay,omitempty"`
}

// DipLevel is the relative dip of the running Σu·y that DataCheck counts,
// and DipNote the share of such batches from which gputrain train warns: on
// the data they were checked on, position measured for a force dipped below
// 0.01 in 35 of 60 records (down to −0.24), records starting mid-motion in 7
// of 60 (down to −0.023), passive plants from rest in none.
const (
	DipLevel = 0.01
	DipNote  = 0.25
)

// OffsetNote is the |DataCheck.Offset| from which gputrain train warns of an
// output offset: on the data it was checked on, passive plants without
// offsets stayed below 0.07 (0.066 for a plant whose memory was longer than
// the check's FIR), and a bias of 0.3·rms(y) gave 0.14 to 0.19.
const OffsetNote = 0.1

// CheckData computes the DataCheck of d with a linear FIR of the given
// number of taps (at least 1) for the offset, fitted on the data scaled to
// the reference scale (Config.Scale "auto") with the default ridge, with
// one worker per CPU.
func CheckData(ctx context.Context, d *data.Dataset, taps int) (DataCheck, error) {
	return CheckDataWorkers(ctx, d, taps, 0)
}

// CheckDataWorkers is CheckData with the given number of workers (0: one per
// CPU), so that a run given --workers keeps to it: trainings running side
// by side, one worker each, must not each take every core for their check.
func CheckDataWorkers(ctx context.Context, d *data.Dataset, taps, workers int) (DataCheck, error) {
	if d == nil || len(d.Batches) == 0 {
		return DataCheck{}, fmt.Errorf("%w: no data to check", ErrConfig)
	}
	if taps < 1 {
		return DataCheck{}, fmt.Errorf("%w: CheckData with %d taps", ErrConfig, taps)
	}
	c := DataCheck{Batches: len(d.Batches), OffsetTaps: taps}
	var uy, uu, yy float64
	for _, b := range d.Batches {
		var s, bu, by, low float64
		for t := range b.U {
			s += b.U[t] * b.Y[t]
			low = math.Min(low, s)
			bu += b.U[t] * b.U[t]
			by += b.Y[t] * b.Y[t]
		}
		if s < 0 {
			c.NegativeBatches++
		}
		if bu > 0 && by > 0 {
			rel := low / math.Sqrt(bu) / math.Sqrt(by)
			c.Dip = math.Min(c.Dip, rel)
			if rel < -DipLevel {
				c.DipBatches++
			}
		}
		uy += s
		uu += bu
		yy += by
	}
	if uu > 0 && yy > 0 {
		c.Supply = uy / math.Sqrt(uu) / math.Sqrt(yy)
	}
	if yy == 0 || uu == 0 {
		c.Passive = c.Supply >= 0 && float64(c.DipBatches) <= DipNote*float64(c.Batches)
		return c, nil
	}
	sub := head(d, checkSamples)
	fir, err := checkFIR(ctx, sub, taps, PassivityNone, workers)
	if err != nil {
		return c, err
	}
	var r float64
	n := 0
	for _, b := range sub.Batches {
		yh := fir.Simulate(b.U)
		for t, v := range yh {
			r += b.Y[t] - v
		}
		n += len(yh)
	}
	yySub := 0.0
	for _, b := range sub.Batches {
		for _, v := range b.Y {
			yySub += v * v
		}
	}
	c.Offset = r / float64(n) / math.Sqrt(yySub/float64(n))
	free := fir
	if taps > gapTaps {
		if free, err = checkFIR(ctx, sub, gapTaps, PassivityNone, workers); err != nil {
			return c, err
		}
	}
	pas, err := checkFIR(ctx, sub, min(taps, gapTaps), PassivitySampled, workers)
	if err != nil {
		return c, err
	}
	c.PassiveGap = firFit(sub, free) - firFit(sub, pas)
	spec := inputSpectrum(sub)
	c.NegativeRe = negativeRe(fir, spec)
	c.Passive = c.Supply >= 0 && float64(c.DipBatches) <= DipNote*float64(c.Batches) && c.PassiveGap < GapNote
	if !c.Passive {
		c.Causes, c.Delay = causes(c, fir, spec)
	}
	return c, nil
}

// gapTaps bounds the taps of the FIRs PassiveGap compares: the passive
// solve of 1000 taps on 40000 samples takes 20 s, of 200 taps 0.4 s.
const gapTaps = 300

// checkFIR fits a linear FIR of the given taps to d in the passivity mode
// (PassivityNone or a passive one), on the data scaled to the reference scale
// (Config.Scale "auto") with the default ridge and no decay bound.
func checkFIR(ctx context.Context, d *data.Dataset, taps int, mode Passivity, workers int) (data.FIR, error) {
	cfg := DefaultConfig()
	cfg.Structure = model.Structure{LinearTaps: taps}
	cfg.Passivity, cfg.Rho, cfg.Scale = mode, 0, ScaleAuto
	cfg.Workers = workers
	res, err := Train(ctx, cfg, d, nil)
	if err != nil {
		return nil, fmt.Errorf("trainer: CheckData: %w", err)
	}
	return data.FIR(res.Model.Lin), nil
}

// firFit is the Fit 100·(1 − ‖y − ŷ‖/‖y − mean y‖) of the FIR g on d.
func firFit(d *data.Dataset, g data.FIR) float64 {
	var sum float64
	n := 0
	for _, b := range d.Batches {
		for _, v := range b.Y {
			sum += v
		}
		n += len(b.Y)
	}
	mean := sum / float64(n)
	var e, v float64
	for _, b := range d.Batches {
		yh := g.Simulate(b.U)
		for t, y := range b.Y {
			e += (y - yh[t]) * (y - yh[t])
			v += (y - mean) * (y - mean)
		}
	}
	if v == 0 {
		return 0
	}
	return 100 * (1 - math.Sqrt(e/v))
}

// checkSamples bounds the samples the offset's least squares reads: an offset shows in
// any long stretch of data, and the fit costs O(samples·taps).
const checkSamples = 1 << 21

// head returns d's first batches up to max samples in all, the last one cut short (d
// itself when it is no longer).
func head(d *data.Dataset, max int) *data.Dataset {
	if d.Samples() <= max {
		return d
	}
	h := &data.Dataset{Name: d.Name, Ts: d.Ts}
	for _, b := range d.Batches {
		n := min(len(b.U), max)
		if n == 0 {
			break
		}
		h.Batches = append(h.Batches, data.Batch{U: b.U[:n], Y: b.Y[:n], Label: b.Label, Line: b.Line})
		max -= n
	}
	return h
}
