package data

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
)

// System is a single-input single-output operator that maps an input signal (zero before
// t = 0) to its output signal of the same length.
type System interface {
	Simulate(u []float64) []float64
}

// FIR is a finite impulse response g(0..m−1): y(t) = Σ_k g(k) u(t−k).
type FIR []float64

// Simulate returns y(t) = Σ_{k=0}^{m−1} g(k) u(t−k) with u(t) = 0 for t < 0.
func (g FIR) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	for t := range y {
		s := 0.0
		for k := 0; k < len(g) && k <= t; k++ {
			s += g[k] * u[t-k]
		}
		y[t] = s
	}
	return y
}

// RealPart returns Re G(e^{iω}) = Σ_k g(k) cos(kω), the quantity passivity requires to
// be ≥ 0 on [0, π] (the project's convention, docs/DESIGN.md).
func (g FIR) RealPart(omega float64) float64 {
	s := 0.0
	for k, v := range g {
		s += v * math.Cos(float64(k)*omega)
	}
	return s
}

// PassiveFIR returns a random FIR of the given number of taps with
// Re G(e^{iω}) = |H(e^{iω})|²/‖h‖² + margin ≥ margin for every ω, so it is passive
// (strictly, when margin > 0) by construction. H is a random FIR h(j) = 0.9^j·N(0,1) and g
// is its one-sided autocorrelation r: g(0) = r(0), g(k) = 2 r(k) for k ≥ 1, because
// |H|² = r(0) + 2 Σ_{k≥1} r(k) cos(kω); g is then scaled to g(0) = 1 (the mean of Re G
// over ω) and margin is added to g(0). The taps decay like an impulse response.
func PassiveFIR(seed uint64, taps int, margin float64) (FIR, error) {
	if taps < 1 {
		return nil, fmt.Errorf("data: PassiveFIR: taps = %d, need ≥ 1: %w", taps, ErrConfig)
	}
	if margin < 0 || math.IsNaN(margin) || math.IsInf(margin, 0) {
		return nil, fmt.Errorf("data: PassiveFIR: margin = %v, need finite ≥ 0: %w", margin, ErrConfig)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	h := make([]float64, taps)
	for j := range h {
		h[j] = math.Pow(0.9, float64(j)) * rng.NormFloat64()
	}
	g := make(FIR, taps)
	for k := range g {
		r := 0.0
		for j := 0; j+k < taps; j++ {
			r += h[j] * h[j+k]
		}
		if k > 0 {
			r *= 2
		}
		g[k] = r
	}
	if g[0] > 0 { // normalize |H|² so that its mean over ω is 1 (a scale keeps passivity)
		s := 1 / g[0]
		for k := range g {
			g[k] *= s
		}
	}
	g[0] += margin
	return g, nil
}

// StateSpace is a discrete-time SISO system x(t+1) = A x(t) + B u(t),
// y(t) = C x(t) + D u(t), x(0) = 0. A is N×N row-major.
type StateSpace struct {
	N       int
	A, B, C []float64
	D       float64
}

// Simulate returns the output for input u from zero initial state.
func (s *StateSpace) Simulate(u []float64) []float64 {
	n := s.N
	x := make([]float64, n)
	nx := make([]float64, n)
	y := make([]float64, len(u))
	for t, ut := range u {
		out := s.D * ut
		for i := 0; i < n; i++ {
			out += s.C[i] * x[i]
		}
		y[t] = out
		for i := 0; i < n; i++ {
			v := s.B[i] * ut
			for j := 0; j < n; j++ {
				v += s.A[i*n+j] * x[j]
			}
			nx[i] = v
		}
		x, nx = nx, x
	}
	return y
}

// Response returns G(z) = C (zI − A)⁻¹ B + D at z = e^{iω}, by Gaussian elimination with
// partial pivoting (independent of how the system was built, so tests can check it).
func (s *StateSpace) Response(omega float64) complex128 {
	n := s.N
	z := cmplx.Exp(complex(0, omega))
	m := make([]complex128, n*(n+1)) // augmented [zI − A | B]
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			m[i*(n+1)+j] = complex(-s.A[i*n+j], 0)
		}
		m[i*(n+1)+i] += z
		m[i*(n+1)+n] = complex(s.B[i], 0)
	}
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if cmplx.Abs(m[r*(n+1)+c]) > cmplx.Abs(m[p*(n+1)+c]) {
				p = r
			}
		}
		if p != c {
			for j := 0; j <= n; j++ {
				m[c*(n+1)+j], m[p*(n+1)+j] = m[p*(n+1)+j], m[c*(n+1)+j]
			}
		}
		piv := m[c*(n+1)+c]
		for r := c + 1; r < n; r++ {
			f := m[r*(n+1)+c] / piv
			for j := c; j <= n; j++ {
				m[r*(n+1)+j] -= f * m[c*(n+1)+j]
			}
		}
	}
	x := make([]complex128, n)
	for i := n - 1; i >= 0; i-- {
		v := m[i*(n+1)+n]
		for j := i + 1; j < n; j++ {
			v -= m[i*(n+1)+j] * x[j]
		}
		x[i] = v / m[i*(n+1)+i]
	}
	g := complex(s.D, 0)
	for i := 0; i < n; i++ {
		g += complex(s.C[i], 0) * x[i]
	}
	return g
}

// PassiveSS returns a random strictly positive-real (hence passive) discrete-time system
// of the given order, built as a parallel connection of positive-real sections:
//
//	G(z) = d + Σ_pairs c_i [1/(1 − p_i z⁻¹) + 1/(1 − p̄_i z⁻¹)] + Σ_real c_j/(1 − a_j z⁻¹),
//
// with c > 0, d ≥ 0 and poles inside the unit circle (|p| ∈ [0.3, 0.95], a ∈ (−0.9, 0.95)).
// Each section has Re{1/(1 − p e^{−iω})} = (1 − |p| cos(ω − ∠p))/|1 − p e^{−iω}|² > 0, a
// sum of positive-real functions is positive real, and so
// Re G(e^{iω}) ≥ d + Σ c (1 − |p|)/(1 + |p|)² > 0. The realization is block diagonal:
// companion 2×2 blocks for pairs, scalars for real poles (an odd order adds one).
func PassiveSS(seed uint64, order int) (*StateSpace, error) {
	if order < 1 {
		return nil, fmt.Errorf("data: PassiveSS: order = %d, need ≥ 1: %w", order, ErrConfig)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	s := &StateSpace{N: order, A: make([]float64, order*order), B: make([]float64, order), C: make([]float64, order)}
	s.D = 0.1 * rng.Float64()
	i := 0
	for ; i+1 < order; i += 2 {
		r := 0.3 + 0.65*rng.Float64()
		th := math.Pi * (0.02 + 0.96*rng.Float64())
		c := 0.1 + 0.9*rng.Float64()
		re := r * math.Cos(th)
		// 1/(1−p z⁻¹) + 1/(1−p̄ z⁻¹) = 2 + (2 Re p·z − 2|p|²)/(z² − 2 Re p·z + |p|²).
		s.A[i*order+i+1] = 1
		s.A[(i+1)*order+i] = -r * r
		s.A[(i+1)*order+i+1] = 2 * re
		s.B[i+1] = 1
		s.C[i] = c * (-2 * r * r)
		s.C[i+1] = c * (2 * re)
		s.D += 2 * c
	}
	if i < order { // one real pole: c/(1 − a z⁻¹) = c + c·a/(z − a)
		a := -0.9 + 1.85*rng.Float64()
		c := 0.1 + 0.9*rng.Float64()
		s.A[i*order+i] = a
		s.B[i] = 1
		s.C[i] = c * a
		s.D += c
	}
	return s, nil
}

// GaussianInputs returns batches seeded white Gaussian input signals of the given length
// and standard deviation, a persistently exciting input for identification tests.
func GaussianInputs(seed uint64, batches, samples int, std float64) [][]float64 {
	rng := rand.New(rand.NewPCG(seed, seed))
	out := make([][]float64, max(batches, 0))
	for i := range out {
		u := make([]float64, max(samples, 0))
		for t := range u {
			u[t] = std * rng.NormFloat64()
		}
		out[i] = u
	}
	return out
}

// SimulateDataset runs sys on every input and returns the resulting noise-free Dataset.
// The inputs are copied.
func SimulateDataset(sys System, name string, ts float64, inputs [][]float64) *Dataset {
	d := &Dataset{Name: name, Ts: ts, Batches: make([]Batch, len(inputs))}
	for i, u := range inputs {
		uc := append([]float64(nil), u...)
		d.Batches[i] = Batch{U: uc, Y: sys.Simulate(uc)}
	}
	return d
}
