package model

import (
	"context"
	"fmt"
)

// SimulateInto is SimulateContext writing only the output, into y (one
// value per sample of u): the gains are kept for the last m_G samples only,
// in a ring, instead of T × m_N of them, so that simulating a record of 10⁷
// samples holds the record's output and a few kilobytes, not ten times the
// record. The sums are taken in SimulateContext's order, so y is bit for bit
// its output.
func (m *NFIR) SimulateInto(ctx context.Context, u, y []float64) error {
	if len(y) != len(u) {
		return fmt.Errorf("%w: output buffer of %d samples for %d inputs", ErrShape, len(y), len(u))
	}
	r := m.newRing()
	q := make([]float64, len(u)) // the feature window reads q(t−R2+1..t) = ŷ(t−R2..t−1)
	for t := range u {
		if t%simulateCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if t > 0 {
			q[t] = y[t-1]
		}
		y[t] = r.step(m, u, q, t)
	}
	return nil
}

// ForwardInto is Forward writing into y (one value per sample of u), with
// the gains of the last m_G samples only held, as SimulateInto; the output
// is bit for bit Forward's. It stops when ctx is cancelled.
func (m *NFIR) ForwardInto(ctx context.Context, u, q, y []float64) error {
	if m.Feedback && len(q) != len(u) {
		return fmt.Errorf("%w: q has %d samples, u has %d", ErrShape, len(q), len(u))
	}
	if len(y) != len(u) {
		return fmt.Errorf("%w: output buffer of %d samples for %d inputs", ErrShape, len(y), len(u))
	}
	r := m.newRing()
	for t := range u {
		if t%simulateCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		y[t] = r.step(m, u, q, t)
	}
	return nil
}

// gainRing holds the gains n(t−m_G+1..t) in a doubled ring, as Stepper
// does: every row is written at i and i+m_G, so that lag k of the newest
// row is row head+k, without a modulo in the inner loop.
type gainRing struct {
	n, p, work []float64
	head       int
}

func (m *NFIR) newRing() *gainRing {
	r := &gainRing{p: make([]float64, m.NumFeatures())}
	if m.Branches > 0 {
		r.n = make([]float64, 2*m.Taps*m.Branches)
		r.work = make([]float64, 2*maxInt(m.Lift.Sizes))
	}
	return r
}

// step computes the gains at t into the ring and returns y(t) with
// outputAt's arithmetic; steps must come in order t = 0, 1, 2, ….
func (r *gainRing) step(m *NFIR, u, q []float64, t int) float64 {
	mN, mG := m.Branches, m.Taps
	s := 0.0
	if mN > 0 {
		m.FeatureAt(u, q, t, r.p)
		r.head--
		if r.head < 0 {
			r.head = mG - 1
		}
		nt := r.n[r.head*mN : (r.head+1)*mN]
		m.Lift.Eval(r.p, nt, r.work)
		copy(r.n[(r.head+mG)*mN:], nt)
		nw := r.n[r.head*mN : (r.head+mG)*mN]
		for j := 0; j < mN; j++ {
			g := m.G[j*mG : (j+1)*mG]
			z := 0.0
			for k := 0; k < mG && k <= t; k++ {
				z += g[k] * nw[k*mN+j] * u[t-k]
			}
			s += nt[j] * z
		}
	}
	for k := 0; k < len(m.Lin) && k <= t; k++ {
		s += m.Lin[k] * u[t-k]
	}
	return s
}
