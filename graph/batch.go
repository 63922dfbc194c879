package graph

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// Batch is a set of trajectories stored back to back (see kernels.Seqs),
// with the lifting network's input features computed once.
type Batch struct {
	Seqs kernels.Seqs
	// X holds rows × F features, F = m.NumFeatures(), in the layout of
	// (*model.NFIR).Features: the scaled u window, then (FB) the scaled q window.
	X []float64
	// U and Y are the input and measured output, one entry per row.
	U, Y []float64
}

// Rows returns the number of samples in the batch.
func (b *Batch) Rows() int { return len(b.U) }

// NewBatch builds a batch for model m from trajectories us with outputs ys.
// For a feedback model the features use q from the data: qs[i] if qs is
// not nil, otherwise q = data.Q(ys[i]), q(t) = y(t−1) (the one-step-ahead
// predictor of the open-loop step). qs is ignored for feed-forward models.
// ys may be nil for a batch used only for Gains.
func NewBatch(m *model.NFIR, us, qs, ys [][]float64) (*Batch, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil model", ErrShape)
	}
	if err := m.Structure.Check(); err != nil {
		return nil, fmt.Errorf("graph: batch: %w", err)
	}
	if ys != nil && len(ys) != len(us) {
		return nil, fmt.Errorf("%w: %d input and %d output trajectories", ErrShape, len(us), len(ys))
	}
	if m.Feedback && qs != nil && len(qs) != len(us) {
		return nil, fmt.Errorf("%w: %d input and %d q trajectories", ErrShape, len(us), len(qs))
	}
	if m.Feedback && qs == nil && ys == nil && m.Branches > 0 {
		return nil, fmt.Errorf("%w: a feedback model needs q or y to build its features", ErrShape)
	}
	lens := make([]int, len(us))
	for i, u := range us {
		lens[i] = len(u)
		if ys != nil && len(ys[i]) != len(u) {
			return nil, fmt.Errorf("%w: trajectory %d: u has %d samples, y has %d", ErrShape, i, len(u), len(ys[i]))
		}
		if m.Feedback && qs != nil && len(qs[i]) != len(u) {
			return nil, fmt.Errorf("%w: trajectory %d: u has %d samples, q has %d", ErrShape, i, len(u), len(qs[i]))
		}
	}
	s, err := kernels.NewSeqs(lens...)
	if err != nil {
		return nil, fmt.Errorf("graph: batch: %w", err)
	}
	rows, f := s.Total(), m.NumFeatures()
	b := &Batch{Seqs: s, X: make([]float64, rows*f), U: make([]float64, rows), Y: make([]float64, rows)}
	for i, u := range us {
		o := s.Off[i]
		if !finite(u) {
			return nil, fmt.Errorf("graph: batch: trajectory %d: non-finite input", i)
		}
		copy(b.U[o:], u)
		var q []float64
		if ys != nil {
			if !finite(ys[i]) {
				return nil, fmt.Errorf("graph: batch: trajectory %d: non-finite output", i)
			}
			copy(b.Y[o:], ys[i])
		}
		if m.Feedback {
			if qs != nil {
				q = qs[i]
			} else if ys != nil {
				q = data.Q(ys[i])
			} else {
				q = make([]float64, len(u))
			}
			if !finite(q) {
				return nil, fmt.Errorf("graph: batch: trajectory %d: non-finite q", i)
			}
		}
		if f > 0 {
			for t := range u {
				m.FeatureAt(u, q, t, b.X[(o+t)*f:(o+t+1)*f])
			}
		}
	}
	return b, nil
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
