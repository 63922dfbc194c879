package chol

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// spd returns a random symmetric positive definite n×n matrix with row
// stride lda (BᵀB/n + δI, condition number about 1/δ), upper triangle set, and
// NaN in the lower triangle and the padding, which Upper must not touch.
func spd(rng *rand.Rand, n, lda int, delta float64) []float64 {
	B := make([]float64, n*n)
	for i := range B {
		B[i] = rng.NormFloat64()
	}
	a := make([]float64, n*lda)
	for i := range a {
		a[i] = math.NaN()
	}
	for i := range n {
		for j := i; j < n; j++ {
			s := 0.0
			for p := range n {
				s += B[p*n+i] * B[p*n+j]
			}
			a[i*lda+j] = s / float64(n)
		}
		a[i*lda+i] += delta
	}
	return a
}

// TestUpper compares the blocked factor with gonum's Dpotrf on random SPD
// matrices of orders around the panel and tile sizes, with padded rows, and
// checks that UᵀU reproduces the matrix and the lower triangle is untouched.
func TestUpper(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA: Upper is gonum's Dpotrf")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for _, c := range []struct {
		n, pad int
		delta  float64
	}{{192, 0, 1}, {193, 3, 1}, {255, 0, 1e-3}, {256, 1, 1}, {300, 5, 1e-6}, {411, 0, 1e-2}} {
		t.Run(fmt.Sprintf("n=%d/pad=%d/δ=%g", c.n, c.pad, c.delta), func(t *testing.T) {
			n, lda := c.n, c.n+c.pad
			a := spd(rng, n, lda, c.delta)
			ref := append([]float64(nil), a...)
			orig := append([]float64(nil), a...)
			if !Upper(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: lda, Data: a}) {
				t.Fatal("Upper failed on an SPD matrix")
			}
			if _, ok := lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: lda, Data: ref}); !ok {
				t.Fatal("Dpotrf failed")
			}
			var maxDiff, maxU, maxRes, maxA float64
			for i := range n {
				for j := range lda {
					v := a[i*lda+j]
					if j < i || j >= n {
						if !math.IsNaN(v) {
							t.Fatalf("a[%d][%d] = %v written outside the upper triangle", i, j, v)
						}
						continue
					}
					maxDiff = math.Max(maxDiff, math.Abs(v-ref[i*lda+j]))
					maxU = math.Max(maxU, math.Abs(ref[i*lda+j]))
					// (UᵀU)[i][j] = Σ_{p ≤ i} U[p][i] U[p][j]
					s := 0.0
					for p := 0; p <= i; p++ {
						s += a[p*lda+i] * a[p*lda+j]
					}
					maxRes = math.Max(maxRes, math.Abs(s-orig[i*lda+j]))
					maxA = math.Max(maxA, math.Abs(orig[i*lda+j]))
				}
			}
			// The factor's forward error grows with the condition number
			// (about 1/δ here); the backward error does not.
			if tol := 1e-13 / c.delta * float64(n); maxDiff > tol*maxU {
				t.Errorf("max |U − U_gonum| = %g, more than %g × max|U|", maxDiff, tol)
			}
			if maxRes > 1e-13*float64(n)*maxA {
				t.Errorf("max |UᵀU − A| = %g (max |A| %g)", maxRes, maxA)
			}
		})
	}
}

// TestUpperNotPD checks that an indefinite matrix is reported, in the
// diagonal blocks of a later panel too.
func TestUpperNotPD(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	n := 300
	for _, bad := range []int{0, 70, 299} {
		a := spd(rng, n, n, 1)
		a[bad*n+bad] = -1e3
		if Upper(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a}) {
			t.Errorf("diagonal %d negative: Upper reported success", bad)
		}
	}
}

// TestUpperWorkers checks that the factor does not depend on the number of
// workers (every entry is summed by one goroutine in a fixed order).
func TestUpperWorkers(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(3, 3))
	n := 333
	a := spd(rng, n, n, 1)
	b := append([]float64(nil), a...)
	Upper(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a})
	for k := 0; k < n; k += nb {
		bk := min(nb, n-k)
		lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: bk, Stride: n, Data: b[k*n+k:]})
		m := n - k - bk
		if m == 0 {
			break
		}
		panel(b[k*n+k:], n, bk, m, 3)
		update(b[(k+bk)*n+k+bk:], n, b[k*n+k+bk:], n, bk, m, 3)
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			t.Fatalf("entry %d: %v with GOMAXPROCS workers, %v with 3", i, a[i], b[i])
		}
	}
}

// TestPanel compares the panel solve with gonum's Dtrsm on random panels
// (heights around the group size, widths around the tile and chunk sizes, a
// padded stride) and checks that splitting the columns among workers changes
// no bit.
func TestPanel(t *testing.T) {
	if !haveFMA {
		t.Skip("no AVX2/FMA")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for _, c := range []struct{ b, m, pad int }{{64, 1, 0}, {64, 13, 2}, {61, 300, 0}, {64, 1009, 3}, {7, 520, 1}} {
		t.Run(fmt.Sprintf("b=%d/m=%d", c.b, c.m), func(t *testing.T) {
			b, m := c.b, c.m
			lda := b + m + c.pad
			a := make([]float64, b*lda)
			for i := range b {
				for j := i; j < lda; j++ {
					a[i*lda+j] = rng.NormFloat64()
				}
				a[i*lda+i] = 2 + rng.Float64() // a well-conditioned triangle
			}
			ref := append([]float64(nil), a...)
			blas64.Trsm(blas.Left, blas.Trans, 1, blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: b, Stride: lda, Data: ref},
				blas64.General{Rows: b, Cols: m, Stride: lda, Data: ref[b:]})
			var one []float64
			for _, W := range []int{1, 2, 3, 5} {
				x := append([]float64(nil), a...)
				panel(x, lda, b, m, W)
				for i := range b {
					for j := b; j < b+m; j++ {
						if d := math.Abs(x[i*lda+j] - ref[i*lda+j]); d > 1e-12*(1+math.Abs(ref[i*lda+j])) {
							t.Fatalf("W=%d: X(%d,%d) = %v, Dtrsm %v", W, i, j-b, x[i*lda+j], ref[i*lda+j])
						}
					}
					for j := b + m; j < lda; j++ {
						if x[i*lda+j] != a[i*lda+j] {
							t.Fatalf("W=%d: padding (%d,%d) written", W, i, j)
						}
					}
				}
				if one == nil {
					one = x
					continue
				}
				for i := range x {
					if math.Float64bits(x[i]) != math.Float64bits(one[i]) {
						t.Fatalf("entry %d: %v with %d workers, %v with 1", i, x[i], W, one[i])
					}
				}
			}
		})
	}
}

// BenchmarkUpper compares the blocked factor with gonum's Dpotrf at the
// orders of Table I at m_G = 200 and of the robot's θ_G step (n = 1000, 2000).
func BenchmarkUpper(b *testing.B) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{200, 500, 1000, 2000} {
		// diagonally dominant: cheap to build at n = 2000
		a0 := make([]float64, n*n)
		for i := range n {
			for j := i; j < n; j++ {
				a0[i*n+j] = rng.Float64() - 0.5
			}
			a0[i*n+i] = float64(n)
		}
		a := make([]float64, len(a0))
		for _, fast := range []bool{false, true} {
			if fast && !haveFMA {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/blocked=%v", n, fast), func(b *testing.B) {
				keep := useFast
				useFast = fast
				defer func() { useFast = keep }()
				for b.Loop() {
					copy(a, a0)
					Upper(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: a})
				}
				b.ReportMetric(float64(n)*float64(n)*float64(n)/3*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
