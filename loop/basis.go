package loop

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Laguerre returns the first k discrete Laguerre functions of pole a,
// truncated to m samples and orthonormalized there (QR), as the columns of
// an m×k matrix (k ≤ m, 0 ≤ a < 1):
//
//	L_i(z) = √(1−a²)/(1 − a z⁻¹) · ((z⁻¹ − a)/(1 − a z⁻¹))^i.
//
// With a = 0 they are the first k unit vectors: a FIR of k taps. With a
// near the pole of a slow mode they hold an impulse response of hundreds of
// samples in a few coefficients (Wahlberg 1991; Heuberger, Van den Hof and
// Wahlberg, Modelling and Identification with Rational Orthogonal Basis
// Functions, 2005), which is what a loop's factors are expanded in when
// Config.Basis is set.
func Laguerre(m, k int, a float64) (*mat.Dense, error) {
	if k < 1 || k > m || !(a >= 0 && a < 1) {
		return nil, fmt.Errorf("%w: Laguerre basis of %d functions on %d samples with pole %g: want 1 ≤ k ≤ m and 0 ≤ a < 1", ErrShape, k, m, a)
	}
	b := mat.NewDense(m, k, nil)
	prev := make([]float64, m)
	cur := make([]float64, m)
	g := math.Sqrt(1 - a*a)
	for t := range m {
		cur[t] = g * math.Pow(a, float64(t))
	}
	for i := range k {
		b.SetCol(i, cur)
		// the next function: the all-pass (z⁻¹ − a)/(1 − a z⁻¹) applied to this one
		prev, cur = cur, prev
		for t := range m {
			v := -a * prev[t]
			if t > 0 {
				v += prev[t-1] + a*cur[t-1]
			}
			cur[t] = v
		}
	}
	var qr mat.QR
	qr.Factorize(b)
	var q mat.Dense
	qr.QTo(&q)
	out := mat.NewDense(m, k, nil)
	out.Copy(q.Slice(0, m, 0, k))
	// keep each column's sign that of the Laguerre function it spans first
	var r mat.Dense
	qr.RTo(&r)
	for i := range k {
		if r.At(i, i) < 0 {
			for t := range m {
				out.Set(t, i, -out.At(t, i))
			}
		}
	}
	return out, nil
}

// PoleGrid are the Laguerre poles ChoosePole tries: a fine grid toward 1,
// where slow modes sit, time constants −1/ln a of up to 200 samples.
var PoleGrid = []float64{0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995}

// ChoosePole returns the pole of PoleGrid whose k Laguerre functions on
// len(f) samples hold most of f's energy (the least-squares residual of f in
// their span), and that share of the energy. f is typically the factor of a
// passive FIR fitted by the convex solver (Factor): the pole then comes
// from a linear model of the data, as the basis functions of system
// identification take theirs.
func ChoosePole(f []float64, k int) (pole, share float64, err error) {
	m := len(f)
	if k < 1 || k > m {
		return 0, 0, fmt.Errorf("%w: %d basis functions for a factor of %d samples", ErrShape, k, m)
	}
	e := 0.0
	for _, v := range f {
		e += v * v
	}
	if e == 0 {
		return 0, 1, nil
	}
	fv := mat.NewVecDense(m, append([]float64(nil), f...))
	best, bestShare := 0.0, math.Inf(-1)
	for _, a := range PoleGrid {
		q, err := Laguerre(m, k, a)
		if err != nil {
			return 0, 0, err
		}
		var c mat.VecDense
		c.MulVec(q.T(), fv)
		s := mat.Dot(&c, &c) / e
		if s > bestShare+1e-12 {
			best, bestShare = a, s
		}
	}
	return best, bestShare, nil
}

// basis expands a loop's trained vector into the model's Flatten order:
// every factor (each branch of H1 and H2, and each linear FIR) longer than
// k taps is Q·c for the orthonormal Laguerre basis Q of its length (the
// factor lies in the span of k functions), the other parameters are
// themselves. The taps of every factor value are passive (Taps), so the
// loop stays passive by parameterization; the model keeps the expanded
// factors, and a model file is the same as without a basis.
type basis struct {
	full, reduced int
	segs          []segment
}

// segment is a run of the flat vector: n parameters copied, or blocks
// factors of length m each expanded from k coefficients by q.
type segment struct {
	n         int // copied (q == nil)
	blocks, m int
	q         *mat.Dense // m×k
}

// newBasis is the expansion of m's factors in k Laguerre functions of pole
// a (factors of at most k taps stay free).
func newBasis(m *Model, k int, a float64) (*basis, error) {
	b := &basis{}
	qs := map[int]*mat.Dense{}
	add := func(blocks, length int) error {
		if blocks == 0 || length == 0 {
			return nil
		}
		if length <= k {
			b.segs = append(b.segs, segment{n: blocks * length})
			b.full += blocks * length
			b.reduced += blocks * length
			return nil
		}
		q := qs[length]
		if q == nil {
			var err error
			if q, err = Laguerre(length, k, a); err != nil {
				return err
			}
			qs[length] = q
		}
		b.segs = append(b.segs, segment{blocks: blocks, m: length, q: q})
		b.full += blocks * length
		b.reduced += blocks * k
		return nil
	}
	copyN := func(n int) {
		if n > 0 {
			b.segs = append(b.segs, segment{n: n})
			b.full += n
			b.reduced += n
		}
	}
	copyN(m.Lift.NumParams())
	for _, s := range [][2]int{{m.B1, m.T1}, {1, m.L1}, {m.B2, m.T2}, {1, m.L2}} {
		if err := add(s[0], s[1]); err != nil {
			return nil, err
		}
	}
	copyN(len(m.SA) + len(m.SB) + len(m.RT))
	if b.full != m.NumParams() {
		return nil, fmt.Errorf("%w: basis of %d parameters for a model of %d", ErrShape, b.full, m.NumParams())
	}
	return b, nil
}

// expand writes the model's parameters for coefficients c into theta.
func (b *basis) expand(c, theta []float64) {
	i, o := 0, 0
	for _, s := range b.segs {
		if s.q == nil {
			copy(theta[o:o+s.n], c[i:i+s.n])
			i, o = i+s.n, o+s.n
			continue
		}
		_, k := s.q.Dims()
		for range s.blocks {
			out := mat.NewVecDense(s.m, theta[o:o+s.m])
			out.MulVec(s.q, mat.NewVecDense(k, c[i:i+k]))
			i, o = i+k, o+s.m
		}
	}
}

// project writes into c the coefficients whose expansion is nearest theta
// (Qᵀf for each factor: Q is orthonormal); the gradient of a loss through
// expand is the same map applied to the model's gradient.
func (b *basis) project(theta, c []float64) {
	i, o := 0, 0
	for _, s := range b.segs {
		if s.q == nil {
			copy(c[i:i+s.n], theta[o:o+s.n])
			i, o = i+s.n, o+s.n
			continue
		}
		_, k := s.q.Dims()
		for range s.blocks {
			out := mat.NewVecDense(k, c[i:i+k])
			out.MulVec(s.q.T(), mat.NewVecDense(s.m, theta[o:o+s.m]))
			i, o = i+k, o+s.m
		}
	}
}
