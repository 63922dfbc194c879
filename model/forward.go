package model

import (
	"context"
	"fmt"
)

// FeatureAt writes the lifting network's input p(t) into p (length
// NumFeatures()): the scaled window u(t−R1+1..t) followed, for feedback models,
// by the scaled window q(t−R2+1..t), oldest sample first. Samples before
// t = 0 are zero before scaling, except for u with HoldStart, where they
// repeat u(0).
func (m *NFIR) FeatureAt(u, q []float64, t int, p []float64) {
	for i := 0; i < m.R1; i++ {
		s := t - m.R1 + 1 + i
		if m.HoldStart {
			s = max(s, 0)
		}
		v := 0.0
		if s >= 0 {
			v = u[s]
		}
		p[i] = m.UScaler.Apply(v)
	}
	if !m.Feedback {
		return
	}
	for i := 0; i < m.R2; i++ {
		s := t - m.R2 + 1 + i
		v := 0.0
		if s >= 0 {
			v = q[s]
		}
		p[m.R1+i] = m.QScaler.Apply(v)
	}
}

// Features returns the T × NumFeatures() matrix (row-major) of network inputs
// for a trajectory with q given (open loop).
func (m *NFIR) Features(u, q []float64) []float64 {
	f := m.NumFeatures()
	x := make([]float64, len(u)*f)
	for t := range u {
		m.FeatureAt(u, q, t, x[t*f:(t+1)*f])
	}
	return x
}

// Gains returns the T × m_N gains n_j(t) (row-major) with q given.
func (m *NFIR) Gains(u, q []float64) []float64 {
	T, f := len(u), m.NumFeatures()
	n := make([]float64, T*m.Branches)
	if m.Branches == 0 {
		return n
	}
	p := make([]float64, f)
	work := make([]float64, 2*maxInt(m.Lift.Sizes))
	for t := 0; t < T; t++ {
		m.FeatureAt(u, q, t, p)
		m.Lift.Eval(p, n[t*m.Branches:(t+1)*m.Branches], work)
	}
	return n
}

// Output returns y for the given gains (T × m_N) and input u: the FIR part of
// the operator, y(t) = Σ_j n_j(t) Σ_k g_j(k) n_j(t−k) u(t−k) + Σ_k lin(k) u(t−k).
func (m *NFIR) Output(u, n []float64) []float64 {
	y := make([]float64, len(u))
	for t := range u {
		y[t] = m.outputAt(u, n, t)
	}
	return y
}

func (m *NFIR) outputAt(u, n []float64, t int) float64 {
	mN, mG := m.Branches, m.Taps
	s := 0.0
	for j := 0; j < mN; j++ {
		g := m.G[j*mG : (j+1)*mG]
		z := 0.0
		for k := 0; k < mG && k <= t; k++ {
			z += g[k] * n[(t-k)*mN+j] * u[t-k]
		}
		s += n[t*mN+j] * z
	}
	for k := 0; k < len(m.Lin) && k <= t; k++ {
		s += m.Lin[k] * u[t-k]
	}
	return s
}

// Forward evaluates the operator with the extra input q given (open loop;
// for an FB model pass q = data.Q(y) of the measured y for the one-step-ahead
// predictor). q is ignored by feed-forward models and may be nil then.
func (m *NFIR) Forward(u, q []float64) ([]float64, error) {
	if m.Feedback && len(q) != len(u) {
		return nil, fmt.Errorf("%w: q has %d samples, u has %d", ErrShape, len(q), len(u))
	}
	return m.Output(u, m.Gains(u, q)), nil
}

// Simulate runs the deployed model: a feedback model feeds back its own
// output, q(t) = ŷ(t−1), q(0) = 0 (closed loop). For a feed-forward model it
// equals Forward. It returns the output and the gains used.
func (m *NFIR) Simulate(u []float64) (y, n []float64) {
	y, n, _ = m.SimulateContext(context.Background(), u)
	return y, n
}

// simulateCheck is the number of samples SimulateContext runs between two
// looks at its context: microseconds of work, so Ctrl-C acts at once.
const simulateCheck = 4096

// SimulateContext is Simulate that stops when ctx is cancelled, returning
// ctx.Err() (and partial outputs): a long record takes seconds.
func (m *NFIR) SimulateContext(ctx context.Context, u []float64) (y, n []float64, err error) {
	T, f, mN := len(u), m.NumFeatures(), m.Branches
	y = make([]float64, T)
	n = make([]float64, T*mN)
	q := make([]float64, T)
	p := make([]float64, f)
	var work []float64
	if mN > 0 {
		work = make([]float64, 2*maxInt(m.Lift.Sizes))
	}
	for t := 0; t < T; t++ {
		if t%simulateCheck == 0 {
			if err := ctx.Err(); err != nil {
				return y, n, err
			}
		}
		if t > 0 {
			q[t] = y[t-1]
		}
		if mN > 0 {
			m.FeatureAt(u, q, t, p)
			m.Lift.Eval(p, n[t*mN:(t+1)*mN], work)
		}
		y[t] = m.outputAt(u, n, t)
	}
	return y, n, nil
}

func maxInt(v []int) int {
	m := 0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}
