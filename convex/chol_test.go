package convex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// randCholesky returns the upper Cholesky factor of a random SPD n×n matrix and the matrix.
func randCholesky(rng *rand.Rand, n int) (blas64.Triangular, []float64) {
	a := make([]float64, n*n)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	m := make([]float64, n*n)
	blas64.Gemm(blas.NoTrans, blas.Trans, 1, blas64.General{Rows: n, Cols: n, Stride: n, Data: a},
		blas64.General{Rows: n, Cols: n, Stride: n, Data: a}, 0, blas64.General{Rows: n, Cols: n, Stride: n, Data: m})
	for i := 0; i < n; i++ {
		m[i*n+i] += float64(n)
	}
	u := append([]float64(nil), m...)
	lapack64.Potrf(blas64.Symmetric{Uplo: blas.Upper, N: n, Stride: n, Data: u})
	return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: n, Stride: n, Data: u}, m
}

// TestCholSolve: cholSolve agrees with LAPACK's Potrs and solves the system.
func TestCholSolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{1, 2, 7, 64, 201, 600} {
		U, m := randCholesky(rng, n)
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		x := append([]float64(nil), b...)
		cholSolve(U, x)
		ref := append([]float64(nil), b...)
		lapack64.Potrs(U, blas64.General{Rows: n, Cols: 1, Stride: 1, Data: ref})
		for i := 0; i < n; i++ {
			if math.Abs(x[i]-ref[i]) > 1e-12*(1+math.Abs(ref[i])) {
				t.Fatalf("n=%d: x[%d] = %g, Potrs %g", n, i, x[i], ref[i])
			}
			r := -b[i]
			for j := 0; j < n; j++ {
				r += m[i*n+j] * x[j]
			}
			if math.Abs(r) > 1e-10*(1+math.Abs(b[i])) {
				t.Fatalf("n=%d: residual %g in row %d", n, r, i)
			}
		}
	}
}

// BenchmarkCholSolve compares cholSolve with lapack64.Potrs for one right-hand side.
func BenchmarkCholSolve(b *testing.B) {
	U, _ := randCholesky(rand.New(rand.NewPCG(1, 1)), 200)
	v := make([]float64, 200)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"cholSolve", func() { cholSolve(U, v) }},
		{"Potrs", func() { lapack64.Potrs(U, blas64.General{Rows: 200, Cols: 1, Stride: 1, Data: v}) }},
	} {
		b.Run(fmt.Sprintf("%s/n=200", c.name), func(b *testing.B) {
			for b.Loop() {
				for i := range v {
					v[i] = 1
				}
				c.f()
			}
		})
	}
}
