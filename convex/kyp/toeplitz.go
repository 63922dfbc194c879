package kyp

import (
	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/mat"
)

// toepBarrier evaluates the barrier −log det T(z) of the dual cone
// {z : T(z) ⪰ 0}, T(z) the symmetric Toeplitz matrix with first column z,
// together with its gradient and Hessian. With R = T(z)⁻¹ and the basis
// T(z) = Σ_k z_k E_k (E_0 = I, E_k = J^k + J^kᵀ, J the upper shift):
//
//	∂/∂z_k  log det T = tr(R E_k)          (tr R, and 2·(k-th diagonal sum of R))
//	∂²/∂z_a∂z_b (−log det T) = tr(R E_a R E_b).
//
// The Hessian is assembled from the 2-D autocorrelation
// AC(s,t) = Σ_{i,q} R_{iq} R_{i+s,q+t}, because tr(R J^a R J^b) = AC(−b,a) and
// tr(R J^a R J^bᵀ) = AC(b,a): the whole m×m Hessian costs one 2-D FFT of
// size ≈2m×2m (O(m² log m)) on top of the O(m³) inverse, instead of the O(m⁴)
// of forming every trace directly.
type toepBarrier struct {
	m    int
	S    *mat.SymDense
	R    *mat.SymDense
	chol mat.Cholesky

	// FFT workspace (nil until first Hessian with m > directMax).
	n    int
	rfft *fourier.FFT
	cfft *fourier.CmplxFFT
	spec [][]complex128 // n rows × (n/2+1)
	col  []complex128
	row  []float64
	ac   [][]float64 // (2m−1) rows (s = −(m−1)..m−1) × m columns (t = 0..m−1)
}

// directMax is the order up to which the Hessian is formed by direct
// summation (exact, O(m⁴)); above it the FFT route is used.
const directMax = 16

func newToepBarrier(m int) *toepBarrier {
	return &toepBarrier{m: m, S: mat.NewSymDense(m, nil), R: mat.NewSymDense(m, nil)}
}

// fillToeplitz writes T(z) into S.
func fillToeplitz(S *mat.SymDense, z []float64) {
	m := len(z)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			S.SetSym(i, j, z[j-i])
		}
	}
}

// factor factorizes T(z); it reports false when T(z) is not positive definite
// (z outside the interior of the dual cone).
func (tb *toepBarrier) factor(z []float64) bool {
	fillToeplitz(tb.S, z)
	return tb.chol.Factorize(tb.S)
}

// logDet returns log det T(z) of the last successful factor call.
func (tb *toepBarrier) logDet() float64 { return tb.chol.LogDet() }

// invert forms R = T(z)⁻¹ from the last factorization.
func (tb *toepBarrier) invert() error {
	return tb.chol.InverseTo(tb.R)
}

// gradLogDet writes ∇ log det T(z) = (tr(R E_k))_k into dst.
func gradLogDet(R *mat.SymDense, dst []float64) {
	m := len(dst)
	for k := 0; k < m; k++ {
		s := 0.0
		for i := 0; i+k < m; i++ {
			s += R.At(i, i+k)
		}
		if k > 0 {
			s *= 2
		}
		dst[k] = s
	}
}

// hessian writes the Hessian of −log det T(z), H_ab = tr(R E_a R E_b), into H.
func (tb *toepBarrier) hessian(H *mat.SymDense) {
	m := tb.m
	var ac func(s, t int) float64
	if m <= directMax {
		R := tb.R
		ac = func(s, t int) float64 { return autocorrDirect(R, s, t) }
	} else {
		tb.autocorrFFT()
		ac = func(s, t int) float64 {
			if t < 0 {
				s, t = -s, -t
			}
			return tb.ac[s+m-1][t]
		}
	}
	for a := 0; a < m; a++ {
		for b := a; b < m; b++ {
			var h float64
			switch {
			case a == 0 && b == 0:
				h = ac(0, 0)
			case a == 0:
				h = 2 * ac(b, 0)
			default:
				h = 2*ac(b, a) + 2*ac(-b, a)
			}
			H.SetSym(a, b, h)
		}
	}
}

// autocorrDirect returns AC(s,t) = Σ_{i,q} R_{iq} R_{i+s,q+t} by direct summation.
func autocorrDirect(R *mat.SymDense, s, t int) float64 {
	m, _ := R.Dims()
	sum := 0.0
	for i := max(0, -s); i < m && i+s < m; i++ {
		for q := max(0, -t); q < m && q+t < m; q++ {
			sum += R.At(i, q) * R.At(i+s, q+t)
		}
	}
	return sum
}

// fftSize returns the smallest even n ≥ k whose only prime factors are 2, 3, 5.
func fftSize(k int) int {
	for n := k; ; n++ {
		if n%2 != 0 {
			continue
		}
		r := n
		for _, p := range []int{2, 3, 5} {
			for r%p == 0 {
				r /= p
			}
		}
		if r == 1 {
			return n
		}
	}
}

// autocorrFFT fills tb.ac with AC(s,t), s ∈ (−m, m), t ∈ [0, m), via
// AC = IFFT2(|FFT2(R zero-padded)|²).
func (tb *toepBarrier) autocorrFFT() {
	m := tb.m
	if tb.rfft == nil {
		n := fftSize(2*m - 1)
		tb.n = n
		tb.rfft = fourier.NewFFT(n)
		tb.cfft = fourier.NewCmplxFFT(n)
		tb.spec = make([][]complex128, n)
		for i := range tb.spec {
			tb.spec[i] = make([]complex128, n/2+1)
		}
		tb.col = make([]complex128, n)
		tb.row = make([]float64, n)
		tb.ac = make([][]float64, 2*m-1)
		for i := range tb.ac {
			tb.ac[i] = make([]float64, m)
		}
	}
	n, h := tb.n, tb.n/2+1
	for i := range tb.row {
		tb.row[i] = 0
	}
	for i := 0; i < n; i++ {
		if i < m {
			for j := 0; j < m; j++ {
				tb.row[j] = tb.R.At(i, j)
			}
			tb.rfft.Coefficients(tb.spec[i], tb.row)
		} else {
			clear(tb.spec[i])
		}
	}
	for k := 0; k < h; k++ {
		for i := 0; i < n; i++ {
			tb.col[i] = tb.spec[i][k]
		}
		tb.cfft.Coefficients(tb.col, tb.col)
		for i, c := range tb.col {
			re, im := real(c), imag(c)
			tb.col[i] = complex(re*re+im*im, 0)
		}
		tb.cfft.Sequence(tb.col, tb.col)
		for i := 0; i < n; i++ {
			tb.spec[i][k] = tb.col[i]
		}
	}
	scale := 1 / float64(n*n)
	for s := -(m - 1); s < m; s++ {
		i := s
		if i < 0 {
			i += n
		}
		tb.rfft.Sequence(tb.row, tb.spec[i])
		dst := tb.ac[s+m-1]
		for t := 0; t < m; t++ {
			dst[t] = tb.row[t] * scale
		}
	}
}
