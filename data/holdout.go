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
// fifth of its batches (at least one) is held out when d has at least
// HoldOutBatches batches; otherwise val is nil and train is d. The batches
// keep their order, and both parts keep d's sampling time and column names.
func HoldOut(d *Dataset, seed uint64) (train, val *Dataset) {
	n := d.Len()
	if n < HoldOutBatches {
		return d, nil
	}
	nval := max(1, n/5)
	perm := rand.New(rand.NewPCG(seed, seed)).Perm(n)
	isVal := make([]bool, n)
	for _, i := range perm[:nval] {
		isVal[i] = true
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
func HoldOutTails(d *Dataset, frac float64, lead int) (train, val *Dataset, err error) {
	if !(frac > 0 && frac < 1) || lead < 0 {
		return nil, nil, fmt.Errorf("data: HoldOutTails with fraction %g and lead-in %d: want 0 < fraction < 1 and lead-in ≥ 0", frac, lead)
	}
	train, val = d.part(" (training part)"), d.part(fmt.Sprintf(" (last %.0f%% of each batch)", 100*frac))
	for i, b := range d.Batches {
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

// SplitSegment holds out the samples lo..hi−1 of b: train is what precedes
// and what follows them (the parts that are not empty), val the segment
// preceded by its lead samples (0 ≤ lead ≤ lo ≤ hi ≤ b.Len()). y_clean is
// cut alike, labels are kept, and each part's line is that of its first
// sample when b's is known.
func SplitSegment(b Batch, lo, hi, lead int) (train []Batch, val Batch) {
	part := func(i, j int) Batch {
		p := Batch{U: b.U[i:j], Y: b.Y[i:j], Label: b.Label}
		if b.YClean != nil {
			p.YClean = b.YClean[i:j]
		}
		if b.Line > 0 {
			p.Line = b.Line + i
		}
		return p
	}
	if lo > 0 {
		train = append(train, part(0, lo))
	}
	if hi < b.Len() {
		train = append(train, part(hi, b.Len()))
	}
	return train, part(lo-lead, hi)
}

// part returns an empty data set named after d with the given suffix, with
// d's sampling time and column names (which plots and messages use).
func (d *Dataset) part(suffix string) *Dataset {
	return &Dataset{Name: d.Name + suffix, Ts: d.Ts, UCol: d.UCol, YCol: d.YCol}
}
