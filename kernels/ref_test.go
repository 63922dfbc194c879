package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Plain-loop float64 references, written straight from the formulas of the
// Backend documentation (no padding, no reversal, no parallelism).

func refConv(s Seqs, mN, mG int, u, n, g []float64) (z, y []float64) {
	N := s.Total()
	z, y = make([]float64, N*mN), make([]float64, N)
	for b := 0; b < s.Batches(); b++ {
		for t := s.Off[b]; t < s.Off[b+1]; t++ {
			for j := range mN {
				v := 0.0
				for k := 0; k < mG && t-k >= s.Off[b]; k++ {
					v += g[j*mG+k] * n[(t-k)*mN+j] * u[t-k]
				}
				z[t*mN+j] = v
				y[t] += n[t*mN+j] * v
			}
		}
	}
	return z, y
}

func refConvBackward(s Seqs, mN, mG int, u, n, g, z, dy []float64) (dn, dg []float64) {
	N := s.Total()
	dn, dg = make([]float64, N*mN), make([]float64, mN*mG)
	for b := 0; b < s.Batches(); b++ {
		o, e := s.Off[b], s.Off[b+1]
		for t := o; t < e; t++ {
			for j := range mN {
				v := 0.0
				for k := 0; k < mG && t+k < e; k++ {
					v += g[j*mG+k] * dy[t+k] * n[(t+k)*mN+j]
				}
				dn[t*mN+j] = dy[t]*z[t*mN+j] + u[t]*v
				for k := 0; k < mG && t-k >= o; k++ {
					dg[j*mG+k] += dy[t] * n[t*mN+j] * n[(t-k)*mN+j] * u[t-k]
				}
			}
		}
	}
	return dn, dg
}

func refLinear(s Seqs, mL int, u, lin []float64) []float64 {
	y := make([]float64, s.Total())
	for b := 0; b < s.Batches(); b++ {
		for t := s.Off[b]; t < s.Off[b+1]; t++ {
			for k := 0; k < mL && t-k >= s.Off[b]; k++ {
				y[t] += lin[k] * u[t-k]
			}
		}
	}
	return y
}

// refPhi builds the dense regressor matrix Φ (Total × nθ).
func refPhi(s Seqs, mN, mG, mL int, u, n []float64) []float64 {
	nt := mN*mG + mL
	phi := make([]float64, s.Total()*nt)
	for b := 0; b < s.Batches(); b++ {
		for t := s.Off[b]; t < s.Off[b+1]; t++ {
			for k := 0; k < mG && t-k >= s.Off[b]; k++ {
				for j := range mN {
					phi[t*nt+j*mG+k] = n[t*mN+j] * n[(t-k)*mN+j] * u[t-k]
				}
			}
			for k := 0; k < mL && t-k >= s.Off[b]; k++ {
				phi[t*nt+mN*mG+k] = u[t-k]
			}
		}
	}
	return phi
}

func refDense(rows, in, out int, x, w, b []float64) []float64 {
	y := make([]float64, rows*out)
	for r := range rows {
		for o := range out {
			s := b[o]
			for i := range in {
				s += w[o*in+i] * x[r*in+i]
			}
			y[r*out+o] = math.Tanh(s)
		}
	}
	return y
}

// refClosedLoop simulates the ClosedLoop documentation formulas directly.
func refClosedLoop(c *ClosedLoop, s Seqs, theta, g, lin, u []float64) []float64 {
	y := make([]float64, s.Total())
	F := c.Features()
	for b := 0; b < s.Batches(); b++ {
		o, e := s.Off[b], s.Off[b+1]
		T := e - o
		n := make([]float64, T*c.MN)
		at := func(x []float64, t int) float64 { // x(t) of this trajectory, 0 before 0
			if t < 0 {
				return 0
			}
			return x[o+t]
		}
		for t := range T {
			if c.MN > 0 {
				p := make([]float64, F)
				for i := range c.R1 {
					su := t - c.R1 + 1 + i
					if c.HoldU && su < 0 {
						su = 0 // u(0) held before the start
					}
					p[i] = c.UA*at(u, su) + c.UB
				}
				if c.Feedback {
					for i := range c.R2 {
						sq := t - c.R2 + 1 + i
						q := 0.0
						if sq >= 1 {
							q = y[o+sq-1]
						}
						p[c.R1+i] = c.QA*q + c.QB
					}
				}
				h := p
				off := 0
				for l := 0; l+1 < len(c.Sizes); l++ {
					in, out := c.Sizes[l], c.Sizes[l+1]
					h = refDense(1, in, out, h, theta[off:off+out*in], theta[off+out*in:off+out*in+out])
					off += out*in + out
				}
				copy(n[t*c.MN:], h)
			}
			v := 0.0
			for j := range c.MN {
				zj := 0.0
				for k := 0; k < c.MG && t-k >= 0; k++ {
					zj += g[j*c.MG+k] * n[(t-k)*c.MN+j] * u[o+t-k]
				}
				v += n[t*c.MN+j] * zj
			}
			for k := 0; k < c.ML && t-k >= 0; k++ {
				v += lin[k] * u[o+t-k]
			}
			y[o+t] = v
		}
	}
	return y
}

func randVec(rng *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = scale * (2*rng.Float64() - 1)
	}
	return x
}

// relErr returns max_i |a_i − b_i| / max(max_i |b_i|, tiny).
func relErr(a, b []float64) float64 {
	num, den := 0.0, 1e-300
	for i := range b {
		num = math.Max(num, math.Abs(a[i]-b[i]))
		den = math.Max(den, math.Abs(b[i]))
	}
	return num / den
}

func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	if e := relErr(got[:len(want)], want); !(e <= tol) {
		t.Errorf("%s: relative error %.3g > %.3g", what, e, tol)
	}
}

// fdGrad returns the central finite-difference gradient of f at x (x is
// restored).
func fdGrad(f func() float64, x []float64, h float64) []float64 {
	d := make([]float64, len(x))
	for i := range x {
		x0 := x[i]
		x[i] = x0 + h
		fp := f()
		x[i] = x0 - h
		fm := f()
		x[i] = x0
		d[i] = (fp - fm) / (2 * h)
	}
	return d
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
