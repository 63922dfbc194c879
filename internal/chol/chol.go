package chol

import (
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"

	"github.com/passivenfir/gputrain/internal/gopanic"
)

// nb is the panel height: the depth of the trailing updates. 64 keeps a
// panel row of a 4×8 tile's operands in L1 across the tile's k loop and the
// gonum parts (the diagonal blocks, the panels' triangular solves, about
// nb/n of the flops) small.
const nb = 64

// minBlocked is the order from which Upper uses the blocked path; below it
// gonum's Dpotrf is as fast.
const minBlocked = 192

// useFast selects the blocked AVX2 path; a variable so that the tests can
// compare it with gonum on the same machine.
var useFast = haveFMA

// Upper factorizes the symmetric positive definite matrix in the upper
// triangle of a (row-major, a.Uplo must be blas.Upper) in place as a = UᵀU,
// U upper triangular, like lapack64.Potrf. It reports whether a was
// numerically positive definite; if not, a holds partial results. The lower
// triangle of a is neither read nor written.
func Upper(a blas64.Symmetric) bool {
	if a.Uplo != blas.Upper {
		panic("chol: Upper needs an upper-triangular blas64.Symmetric")
	}
	n, lda := a.N, a.Stride
	if !useFast || n < minBlocked {
		_, ok := lapack64.Potrf(a)
		return ok
	}
	d := a.Data
	W := runtime.GOMAXPROCS(0)
	for k := 0; k < n; k += nb {
		b := min(nb, n-k)
		diag := blas64.Symmetric{Uplo: blas.Upper, N: b, Stride: lda, Data: d[k*lda+k:]}
		if _, ok := lapack64.Potrf(diag); !ok {
			return false
		}
		m := n - k - b
		if m == 0 {
			break
		}
		U11 := blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: b, Stride: lda, Data: d[k*lda+k:]}
		A12 := blas64.General{Rows: b, Cols: m, Stride: lda, Data: d[k*lda+k+b:]}
		blas64.Trsm(blas.Left, blas.Trans, 1, U11, A12)
		update(d[(k+b)*lda+k+b:], lda, d[k*lda+k+b:], lda, b, m, W)
	}
	return true
}

// update sets C −= AᵀA on the upper triangle of the m×m matrix C, A being
// k×m (rows of stride lda), with W workers over interleaved row tiles.
func update(c []float64, ldc int, a []float64, lda, k, m, W int) {
	tiles := (m + 3) / 4
	W = max(1, min(W, tiles/4))
	if W == 1 {
		updateRows(c, ldc, a, lda, k, m, 0, 1)
		return
	}
	var wg sync.WaitGroup
	var pc gopanic.Catcher // a worker's panic is raised again here, not in its goroutine
	for w := 1; w < W; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pc.Catch()
			updateRows(c, ldc, a, lda, k, m, w, W)
		}()
	}
	updateRows(c, ldc, a, lda, k, m, 0, W)
	wg.Wait()
	pc.Repanic()
}

// updateRows does the row tiles w, w+W, w+2W, … of update: four rows i..i+3
// at a time. The 4×4 block at the diagonal is computed whole into a scratch
// tile (syrk4x4), of which the upper triangle is added; right of it come
// 8-column tiles (syrk4x8), then at most one 4-column tile; the last up to
// three columns and a last partial row tile go through plain loops.
func updateRows(c []float64, ldc int, a []float64, lda, k, m, w, W int) {
	var tile [16]float64
	for t := w; 4*t < m; t += W {
		i := 4 * t
		r := min(4, m-i)
		j := i
		if r == 4 {
			tile = [16]float64{}
			syrk4x4(&tile[0], 4, &a[i], &a[i], lda, k)
			for p := range 4 {
				for q := p; q < 4; q++ {
					c[(i+p)*ldc+i+q] += tile[p*4+q]
				}
			}
			j = i + 4
			for ; j+8 <= m; j += 8 {
				syrk4x8(&c[i*ldc+j], ldc, &a[i], &a[j], lda, k)
			}
			if j+4 <= m {
				syrk4x4(&c[i*ldc+j], ldc, &a[i], &a[j], lda, k)
				j += 4
			}
		}
		scalar(c, ldc, a, lda, k, i, i+r, j, m)
	}
}

// scalar is update on rows [i0, i1) and columns [j0, j1), upper triangle
// only, each entry's products summed by FMA in order of p as syrk4x8 does.
func scalar(c []float64, ldc int, a []float64, lda, k, i0, i1, j0, j1 int) {
	for i := i0; i < i1; i++ {
		for j := max(j0, i); j < j1; j++ {
			s := 0.0
			for p := range k {
				s = math.FMA(a[p*lda+i], a[p*lda+j], s)
			}
			c[i*ldc+j] -= s
		}
	}
}

// Fast reports whether this machine runs the AVX2/FMA micro-kernels (amd64
// with AVX2 and FMA, built without the noasm tag); SubATA needs them.
func Fast() bool { return haveFMA }

// SubATA sets C −= AᵀA on the upper triangle of the m×m matrix C (row-major,
// row stride ldc), A being k×m (row stride lda), on the calling goroutine,
// with the micro-kernels of Upper's trailing update: each entry's k products
// are summed by FMA in order and then subtracted. It is for callers that
// accumulate a Gram matrix ΦᵀΦ over blocks of rows of Φ (kernels.Gram), at
// two to three times the rate of gonum's Dsyrk. It panics unless Fast().
func SubATA(c []float64, ldc int, a []float64, lda, k, m int) {
	if !haveFMA {
		panic("chol: SubATA needs the AVX2/FMA kernels")
	}
	if m == 0 || k == 0 {
		return
	}
	if ldc < m || lda < m || len(c) < (m-1)*ldc+m || len(a) < (k-1)*lda+m {
		panic("chol: SubATA: bad dimensions")
	}
	updateRows(c, ldc, a, lda, k, m, 0, 1)
}
