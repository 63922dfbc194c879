package baselines

import (
	"math"
	"math/cmplx"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/data"
)

// StateSpace is a discrete-time single-input single-output linear model
//
//	x(t+1) = A x(t) + B u(t),  y(t) = C x(t) + D u(t),  x(0) = 0,
//
// as identified by Subspace (N4SID, MOESP). The state starts at rest because every batch
// of the project's datasets does.
type StateSpace struct {
	A *mat.Dense    // n×n state matrix
	B *mat.VecDense // input vector, length n
	C *mat.VecDense // output row, length n
	D float64       // direct feed-through

	// Ts is the sampling time of the data the model was identified from (s; 0 = unknown).
	Ts float64
	// SingularValues are the singular values of the weighted projection the order was
	// read from, largest first (length Horizon); a gap after the n-th one supports order n.
	SingularValues []float64
	// Stabilized reports that the plain shift-invariance estimate of A had a pole on or
	// outside the unit circle and A was re-estimated with the stabilising zero-padded
	// shift of Chui and Maciejowski (1996).
	Stabilized bool
}

// Both baselines are data.System values, so generic evaluation code can simulate them.
var (
	_ data.System = (*StateSpace)(nil)
	_ data.System = (*FIRMLP)(nil)
)

// Order returns the state dimension n.
func (s *StateSpace) Order() int {
	r, _ := s.A.Dims()
	return r
}

// Simulate returns the output of the model for input u from x(0) = 0, len(u) samples.
func (s *StateSpace) Simulate(u []float64) []float64 {
	n := s.Order()
	a := s.A.RawMatrix()
	b, c := s.B.RawVector(), s.C.RawVector()
	x := make([]float64, n)
	xn := make([]float64, n)
	y := make([]float64, len(u))
	for t, ut := range u {
		yt := s.D * ut
		for i := 0; i < n; i++ {
			yt += c.Data[i*c.Inc] * x[i]
		}
		y[t] = yt
		for i := 0; i < n; i++ {
			row := a.Data[i*a.Stride : i*a.Stride+n]
			v := b.Data[i*b.Inc] * ut
			for j, aij := range row {
				v += aij * x[j]
			}
			xn[i] = v
		}
		x, xn = xn, x
	}
	return y
}

// Poles returns the eigenvalues of A (the model's poles), or nil if the eigenvalue
// decomposition fails.
func (s *StateSpace) Poles() []complex128 {
	var e mat.Eigen
	if !e.Factorize(s.A, mat.EigenNone) {
		return nil
	}
	return e.Values(nil)
}

// SpectralRadius returns max |λ(A)|; a value below 1 means the model is stable. It is
// +Inf if the eigenvalue decomposition fails.
func (s *StateSpace) SpectralRadius() float64 {
	p := s.Poles()
	if p == nil {
		return math.Inf(1)
	}
	return spectralRadius(p)
}

func spectralRadius(p []complex128) float64 {
	r := 0.0
	for _, v := range p {
		r = math.Max(r, cmplx.Abs(v))
	}
	return r
}

// Response returns the frequency response C (e^{iω} I − A)^{-1} B + D at ω rad/sample,
// computed from the equivalent real 2n×2n linear system.
func (s *StateSpace) Response(omega float64) complex128 {
	n := s.Order()
	// (zI − A) x = B with z = cos ω + i sin ω; write x = xr + i xi:
	// [cI − A, −sI; sI, cI − A] [xr; xi] = [B; 0].
	c, sn := math.Cos(omega), math.Sin(omega)
	m := mat.NewDense(2*n, 2*n, nil)
	rhs := mat.NewVecDense(2*n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := -s.A.At(i, j)
			if i == j {
				v += c
			}
			m.Set(i, j, v)
			m.Set(n+i, n+j, v)
		}
		m.Set(i, n+i, -sn)
		m.Set(n+i, i, sn)
		rhs.SetVec(i, s.B.AtVec(i))
	}
	var x mat.VecDense
	if err := x.SolveVec(m, rhs); err != nil {
		return cmplx.Inf()
	}
	var re, im float64
	for i := 0; i < n; i++ {
		re += s.C.AtVec(i) * x.AtVec(i)
		im += s.C.AtVec(i) * x.AtVec(n+i)
	}
	return complex(re+s.D, im)
}
