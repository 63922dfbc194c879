package data

import (
	"fmt"
	"math/rand/v2"
)

// HoldOutBatches is the fewest batches from which HoldOut holds out whole
// batches; with fewer, a part of each record is held out (HoldOutTails).
const HoldOutBatches = 5

// TailFraction is the part of each record HoldOutTails is given by
// gputrain train when the data have too few batches to hold out whole ones.
const TailFraction = 0.2

// HoldOut splits d into training and validation data: a seeded random
// fifth of its groups of batches (Groups: batches whose inputs repeat one
// another stay together, so that validation never sees an input training
// holds), at least one, is held out when d has at least HoldOutBatches
// groups; otherwise val is nil and train is d. The batches keep their
// order, and both parts keep d's sampling time and column names.
func HoldOut(d *Dataset, seed uint64) (train, val *Dataset) {
	if d.Len() < HoldOutBatches {
		return d, nil
	}
	return HoldOutGroups(d, Groups(d), seed)
}

// HoldOutGroups is HoldOut with d's groups given (Groups(d)), for a caller
// that also reports them.
func HoldOutGroups(d *Dataset, groups [][]int, seed uint64) (train, val *Dataset) {
	n := len(groups)
	if n < HoldOutBatches {
		return d, nil
	}
	nval := max(1, n/5)
	perm := rand.New(rand.NewPCG(seed, seed)).Perm(n)
	isVal := make([]bool, d.Len())
	for _, g := range perm[:nval] {
		for _, i := range groups[g] {
			isVal[i] = true
		}
	}
	train, val = d.part(" (training part)"), d.part(" (held-out 20%)")
	for i, b := range d.Batches {
		if isVal[i] {
			val.Batches = append(val.Batches, b)
		} else {
			train.Batches = append(train.Batches, b)
		}
	}
	return train, val
}

// HoldOutTails splits every batch of d into its first int(n·(1−frac))
// samples, for training, and the rest, preceded by lead samples of the
// training part, for validation. The validation data are to be scored after
// the lead-in (trainer.Config.ValSkip = lead): simulating it warms up the
// model's memory, so that the score is not a start-up transient. lead
// should therefore be the memory of the model (model.Structure.Memory), or
// of the longest model a search may choose. It is an error when a batch is
// too short: its training part must hold at least max(lead, 1) samples and
// its tail at least one.
//
// A batch whose input repeats within the tail's reach, periodic or
// antiperiodic (TailRepeat), is split by phase instead: the last fraction
// of every repeat is held out, so that no training sample has the input of
// a validation sample, with either sign (see HoldOutPhase).
func HoldOutTails(d *Dataset, frac float64, lead int) (train, val *Dataset, err error) {
	if !(frac > 0 && frac < 1) || lead < 0 {
		return nil, nil, fmt.Errorf("data: HoldOutTails with fraction %g and lead-in %d: want 0 < fraction < 1 and lead-in ≥ 0", frac, lead)
	}
	train, val = d.part(" (training part)"), d.part(fmt.Sprintf(" (last %.0f%% of each batch)", 100*frac))
	for i, b := range d.Batches {
		if r, ok := TailRepeat(b, frac, lead); ok {
			head, tails, err := HoldOutPhase(b, r.Lag, frac, lead)
			if err != nil {
				return nil, nil, fmt.Errorf("data: %s: %w", b.Name(i), err)
			}
			train.Batches = append(train.Batches, head...)
			val.Batches = append(val.Batches, tails...)
			continue
		}
		n := b.Len()
		cut := int(float64(n) * (1 - frac))
		if cut < max(lead, 1) || cut >= n {
			return nil, nil, fmt.Errorf("data: %s: %d samples are too few to hold out the last %.0f%% after a %d-sample lead-in", b.Name(i), n, 100*frac, lead)
		}
		head, tail := SplitSegment(b, cut, n, lead)
		train.Batches = append(train.Batches, head...)
		val.Batches = append(val.Batches, tail)
	}
	return train, val, nil
}

// MinPhasePiece is the fewest samples a training piece of a split by phase
// may hold: with shorter repeats (a sine input, say) no part of the input is
// left that validation does not see, and TailRepeat does not split by phase.
const MinPhasePiece = 64

// TailRepeat reports whether b is to be split by phase: its input repeats
// (FindRepeat, over at least the tail's n − int(n·(1−frac)) samples), with
// a period or an antiperiod, u(t+L) ≈ −u(t) (an odd multisine over one
// period, as the robot arm's record e), whose unheld part,
// L − int(L·frac), holds at least MinPhasePiece samples and twice the
// lead-in, so that the search's memory fits in it.
//
// Antiperiods count: a tail held out of an antiperiodic record holds
// training inputs with the sign flipped, and a nonlinear model that fits
// the record closely fits them too, so that validation rewards it. Split
// by the antiperiod, no training sample has a validation sample's input
// with either sign. Measured (docs/ZOO.md, session 38) on ten single
// antiperiodic records of four zoo plants, with the refit on the whole
// record that then follows the choice, the test Fit on other realizations
// of the excitation rose by 5.3 points on average (twomass +19.4, +6.3 and
// +31.4, where the tail chose models that fit the record closely; −3.1 at
// most), and on the robot arm, beside the tail's run, v1, an experiment of
// e's kind, rose from 86.5 to 89.9 (v3 56.0 → 71.4, v2 46.5 → −28.0: v2
// lacks e's slow input, which no split of e shows). Session 35, without
// the refit, had measured the split by the antiperiod within half a point
// of the tail on two odd multisines.
func TailRepeat(b Batch, frac float64, lead int) (Repeat, bool) {
	n := b.Len()
	tail := n - int(float64(n)*(1-frac))
	r, ok := FindRepeat(b.U, max(tail, 1))
	if !ok {
		return r, false
	}
	piece := r.Lag - PhaseWidth(r.Lag, frac)
	return r, piece >= max(MinPhasePiece, 2*lead)
}

// WorstRepeat returns, of the batches of d that HoldOutTails splits by
// their tails although their input repeats within the tail's reach
// (FindRepeat: a period or an antiperiod too short to split by phase), the
// first; its validation then sees inputs its training part holds, or holds
// with the sign flipped. ok is false when there is none.
func WorstRepeat(d *Dataset, frac float64, lead int) (batch int, r Repeat, ok bool) {
	for i, b := range d.Batches {
		if r, ok := tailRepeats(b, frac, lead); ok {
			return i, r, true
		}
	}
	return 0, Repeat{}, false
}

// TailsRepeat reports whether every batch of d repeats its input within
// the tail HoldOutTails holds out of it, as WorstRepeat's batch does (none
// split by phase): the held-out tails then hold no input, up to its sign,
// that the training parts lack. False for no batches.
func TailsRepeat(d *Dataset, frac float64, lead int) bool {
	for _, b := range d.Batches {
		if _, ok := tailRepeats(b, frac, lead); !ok {
			return false
		}
	}
	return len(d.Batches) > 0
}

// tailRepeats is FindRepeat's repeat of b within its tail, where b is split
// by that tail rather than by phase.
func tailRepeats(b Batch, frac float64, lead int) (Repeat, bool) {
	n := b.Len()
	tail := n - int(float64(n)*(1-frac))
	r, ok := FindRepeat(b.U, max(tail, 1))
	if !ok {
		return r, false
	}
	if _, phase := TailRepeat(b, frac, lead); phase {
		return r, false
	}
	return r, true
}

// PhaseWidth is the part of each repeat of lag samples that HoldOutPhase
// holds out: int(lag·frac), at least one sample.
func PhaseWidth(lag int, frac float64) int { return max(1, int(float64(lag)*frac)) }

// HoldOutPhase splits b, whose input repeats every lag samples (with the
// same sign or the opposite one), by phase:
// the samples whose phase t mod lag falls in the last int(lag·frac) of the
// repeat are held out, each run of them for validation preceded by lead
// samples (as SplitSegment; runs that start before sample lead, which
// cannot be warmed up, are dropped), and the runs between are training
// pieces, a partial one at the record's end dropped: the memory a model may
// have is bounded by the shortest record it trains on
// (trainer.LinearTapGrid), and a short piece would cut it for a few samples.
// No training sample then has an input that a validation sample repeats,
// with either sign.
// It is an error when no validation run or no training piece is left.
func HoldOutPhase(b Batch, lag int, frac float64, lead int) (train, val []Batch, err error) {
	n := b.Len()
	if lag < 2 || !(frac > 0 && frac < 1) || lead < 0 {
		return nil, nil, fmt.Errorf("data: HoldOutPhase with lag %d, fraction %g and lead-in %d: want lag ≥ 2, 0 < fraction < 1 and lead-in ≥ 0", lag, frac, lead)
	}
	w := PhaseWidth(lag, frac)
	for k := 1; (k-1)*lag < n; k++ {
		lo, hi := k*lag-w, min(k*lag, n)
		if lo <= n {
			train = append(train, b.slice((k-1)*lag, lo))
		}
		if lo < n && lo >= lead {
			val = append(val, b.slice(lo-lead, hi))
		}
	}
	if len(val) == 0 || len(train) == 0 {
		return nil, nil, fmt.Errorf("%d samples repeating every %d are too few to hold out the last %.0f%% of each repeat after a %d-sample lead-in", n, lag, 100*frac, lead)
	}
	return train, val, nil
}

// SplitSegment holds out the samples lo..hi−1 of b: train is what precedes
// and what follows them (the parts that are not empty), val the segment
// preceded by its lead samples (0 ≤ lead ≤ lo ≤ hi ≤ b.Len()). y_clean is
// cut alike, labels are kept, and each part's line is that of its first
// sample when b's is known.
func SplitSegment(b Batch, lo, hi, lead int) (train []Batch, val Batch) {
	part := b.slice
	if lo > 0 {
		train = append(train, part(0, lo))
	}
	if hi < b.Len() {
		train = append(train, part(hi, b.Len()))
	}
	return train, part(lo-lead, hi)
}

// slice returns the samples i..j−1 of b, y_clean cut alike, its label kept
// and its line that of sample i when b's is known.
func (b Batch) slice(i, j int) Batch {
	p := Batch{U: b.U[i:j], Y: b.Y[i:j], Label: b.Label}
	if b.YClean != nil {
		p.YClean = b.YClean[i:j]
	}
	if b.Line > 0 {
		p.Line = b.Line + i
	}
	return p
}

// part returns an empty data set named after d with the given suffix, with
// d's sampling time and column names (which plots and messages use).
func (d *Dataset) part(suffix string) *Dataset {
	return &Dataset{Name: d.Name + suffix, Ts: d.Ts, UCol: d.UCol, YCol: d.YCol}
}
