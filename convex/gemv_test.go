package convex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// TestGemvPar compares the split products with one gonum Dgemv on tables below and above
// parGemvMin (a padded stride, a partial last chunk), and checks that the number of workers
// changes no bit.
func TestGemvPar(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 23))
	keep := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(keep)
	for _, c := range []struct{ rows, cols, stride int }{{7, 5, 9}, {600, 300, 301}, {2100, 999, 999}, {1537, 700, 720}} {
		A := blas64.General{Rows: c.rows, Cols: c.cols, Stride: c.stride, Data: make([]float64, (c.rows-1)*c.stride+c.cols)}
		for i := range A.Data {
			A.Data[i] = rng.NormFloat64()
		}
		for _, trans := range []bool{false, true} {
			t.Run(fmt.Sprintf("%dx%d/trans=%v", c.rows, c.cols, trans), func(t *testing.T) {
				nx, ny, tr := c.cols, c.rows, blas.NoTrans
				if trans {
					nx, ny, tr = c.rows, c.cols, blas.Trans
				}
				x := make([]float64, nx)
				for i := range x {
					x[i] = rng.NormFloat64()
				}
				ref := make([]float64, ny)
				blas64.Gemv(tr, 2, A, blas64.Vector{N: nx, Inc: 1, Data: x}, 0, blas64.Vector{N: ny, Inc: 1, Data: ref})
				var first []float64
				for _, W := range []int{1, 2, 3} {
					runtime.GOMAXPROCS(W)
					var g gemvPar
					y := make([]float64, ny)
					for i := range y {
						y[i] = math.NaN() // overwritten, not accumulated
					}
					g.gemv(trans, 2, A, x, y)
					for i := range y {
						if math.Abs(y[i]-ref[i]) > 1e-12*(1+math.Abs(ref[i])) {
							t.Fatalf("W=%d: y[%d] = %v, Dgemv %v", W, i, y[i], ref[i])
						}
					}
					if first == nil {
						first = y
					} else if !slices.Equal(first, y) {
						t.Fatalf("W=%d: the result differs from W=1's", W)
					}
				}
			})
		}
	}
}

// TestCholSolvePar: the blocked solve agrees with two gonum Dtrsv (sizes with a partial last
// block, and the smallest it serves) and does not depend on the number of workers.
func TestCholSolvePar(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 29))
	keep := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(keep)
	for _, n := range []int{parSolveMin, 777} {
		U, _ := randCholesky(rng, n)
		b := make([]float64, n)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		ref := append([]float64(nil), b...)
		x := blas64.Vector{N: n, Inc: 1, Data: ref}
		blas64.Trsv(blas.Trans, U, x)
		blas64.Trsv(blas.NoTrans, U, x)
		var first []float64
		for _, W := range []int{1, 2, 3} {
			runtime.GOMAXPROCS(W)
			v := append([]float64(nil), b...)
			cholSolvePar(U, v)
			for i := range v {
				if math.Abs(v[i]-ref[i]) > 1e-12*(1+math.Abs(ref[i])) {
					t.Fatalf("n=%d, W=%d: x[%d] = %v, Dtrsv %v", n, W, i, v[i], ref[i])
				}
			}
			if first == nil {
				first = v
			} else if !slices.Equal(first, v) {
				t.Fatalf("n=%d: W=%d differs from W=1", n, W)
			}
		}
	}
}
