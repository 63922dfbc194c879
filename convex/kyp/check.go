package kyp

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Check evaluates the LMI of Theorem 4 for the FIR taps g (m = len(g)) and a
// candidate X ((m−1)×(m−1)), exactly as written in the paper: with A the
// (m−1)×(m−1) upper shift, B = e_{m−1}, C = [g(m−1) … g(1)], D = g(0),
//
//	M = [[X − AᵀXA, Cᵀ − AᵀXB], [C − BᵀXA, D + Dᵀ − BᵀXB]],
//
// it returns the smallest eigenvalues of X and of M and whether both are
// ≥ −tol (which together imply Re G(e^{iω}) ≥ 0 for all ω, up to tol). For
// m = 1 there is no state: X must be nil, minEigX is +Inf and M = [2g(0)].
// A nil X or one of the wrong size is reported as not ok with NaN eigenvalues.
func Check(g []float64, X *mat.SymDense, tol float64) (minEigX, minEigLMI float64, ok bool) {
	m := len(g)
	if m == 0 {
		return math.NaN(), math.NaN(), false
	}
	for _, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return math.NaN(), math.NaN(), false
		}
	}
	if m == 1 {
		if X != nil && !X.IsEmpty() {
			return math.NaN(), math.NaN(), false
		}
		minEigLMI = 2 * g[0]
		return math.Inf(1), minEigLMI, minEigLMI >= -tol
	}
	if X == nil || X.IsEmpty() || X.SymmetricDim() != m-1 {
		return math.NaN(), math.NaN(), false
	}
	n := m - 1
	A := mat.NewDense(n, n, nil)
	for i := 0; i+1 < n; i++ {
		A.Set(i, i+1, 1)
	}
	B := mat.NewDense(n, 1, nil)
	B.Set(n-1, 0, 1)
	C := mat.NewDense(1, n, nil)
	for i := 0; i < n; i++ {
		C.Set(0, i, g[m-1-i])
	}
	D := g[0]

	var XA, AtXA, XB, AtXB, BtXB mat.Dense
	XA.Mul(X, A)
	AtXA.Mul(A.T(), &XA)
	XB.Mul(X, B)
	AtXB.Mul(A.T(), &XB)
	BtXB.Mul(B.T(), &XB)

	M := mat.NewSymDense(m, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			M.SetSym(i, j, X.At(i, j)-AtXA.At(i, j))
		}
		// Cᵀ − AᵀXB (and its transpose C − BᵀXA, which is the same by symmetry of X).
		M.SetSym(i, n, C.At(0, i)-AtXB.At(i, 0))
	}
	M.SetSym(n, n, D+D-BtXB.At(0, 0))

	minEigX = minEig(X)
	minEigLMI = minEig(M)
	ok = minEigX >= -tol && minEigLMI >= -tol
	return minEigX, minEigLMI, ok
}

// minEig returns the smallest eigenvalue of a symmetric matrix (NaN on failure).
func minEig(S mat.Symmetric) float64 {
	var es mat.EigenSym
	if !es.Factorize(S, false) {
		return math.NaN()
	}
	v := es.Values(nil)
	return v[0]
}

// xFromY returns the KYP matrix X of Theorem 4 that belongs to a Gram matrix Y
// of the trace parameterization (2g(0) = tr Y, g(k) = Σ_i Y_{i,i+k}):
// X_{ij} = Σ_{s=0}^{min(i,j)} Y_{i−s,j−s} over the leading (m−1)×(m−1) block,
// i.e. X = Σ_k (Aᵀ)^k W A^k with W the leading block of Y. Then X − AᵀXA = W
// and the whole KYP matrix of Theorem 4 equals Y, so Y ⪰ 0 ⇒ LMI ⪰ 0 and X ⪰ 0.
func xFromY(Y *mat.SymDense) *mat.SymDense {
	m := Y.SymmetricDim()
	if m < 2 {
		return nil
	}
	n := m - 1
	X := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			v := Y.At(i, j)
			if i > 0 {
				v += X.At(i-1, j-1)
			}
			X.SetSym(i, j, v)
		}
	}
	return X
}
