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

// gainRing holds the gains n(t−m_G+1..t), row t at t mod m_G.
type gainRing struct {
	n, p, work []float64
}

func (m *NFIR) newRing() *gainRing {
	r := &gainRing{p: make([]float64, m.NumFeatures())}
	if m.Branches > 0 {
		r.n = make([]float64, m.Taps*m.Branches)
		r.work = make([]float64, 2*maxInt(m.Lift.Sizes))
	}
	return r
}

// step computes the gains at t into the ring and returns y(t): outputAt's
// arithmetic, reading lag k at row (t−k) mod m_G.
func (r *gainRing) step(m *NFIR, u, q []float64, t int) float64 {
	mN, mG := m.Branches, m.Taps
	s := 0.0
	if mN > 0 {
		m.FeatureAt(u, q, t, r.p)
		row := t % mG
		m.Lift.Eval(r.p, r.n[row*mN:(row+1)*mN], r.work)
		for j := 0; j < mN; j++ {
			g := m.G[j*mG : (j+1)*mG]
			z := 0.0
			for k := 0; k < mG && k <= t; k++ {
				z += g[k] * r.n[((t-k)%mG)*mN+j] * u[t-k]
			}
			s += r.n[row*mN+j] * z
		}
	}
	for k := 0; k < len(m.Lin) && k <= t; k++ {
		s += m.Lin[k] * u[t-k]
	}
	return s
}
