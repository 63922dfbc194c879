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
		panel(d[k*lda+k:], lda, b, m, W)
		update(d[(k+b)*lda+k+b:], lda, d[k*lda+k+b:], lda, b, m, W)
	}
	return true
}

// panelCols is the number of columns of a panel from which panel splits them
// among workers.
const panelCols = 256

// panel solves U₁₁ᵀX = A₁₂ in place for the b×m panel A₁₂ right of the b×b
// upper factor U₁₁ (a points at U₁₁, A₁₂ starts at column b): what gonum's
// Dtrsm(Left, Trans) does, left-looking in groups of four rows. The rows
// above a group are applied by the trailing update's micro-kernels (depth =
// the rows solved so far, 4×8 tiles), then the group's 4×4 triangle by plain
// loops. gonum's Dtrsm, an AXPY per entry of U₁₁, took 70 % of the
// factorization at n = 200. Columns are independent; wide panels are split
// among W workers in chunks of whole tiles, each column computed the same way
// whatever W, so the result does not depend on it.
func panel(a []float64, lda, b, m, W int) {
	W = max(1, min(W, m/panelCols))
	if W == 1 {
		panelCols0(a, lda, b, 0, m)
		return
	}
	chunk := ((m+W-1)/W + 7) &^ 7
	var wg sync.WaitGroup
	var pc gopanic.Catcher
	for w := 1; w < W; w++ {
		j0, j1 := w*chunk, min(m, (w+1)*chunk)
		if j0 >= j1 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pc.Catch()
			panelCols0(a, lda, b, j0, j1)
		}()
	}
	panelCols0(a, lda, b, 0, min(m, chunk))
	wg.Wait()
	pc.Repanic()
}

// panelCols0 is panel for the columns [j0, j1) of A₁₂.
func panelCols0(a []float64, lda, b, j0, j1 int) {
	x := a[b:] // A₁₂, overwritten by X
	for r0 := 0; r0 < b; r0 += 4 {
		g := min(4, b-r0)
		if r0 > 0 {
			j := j0
			if g == 4 {
				for ; j+8 <= j1; j += 8 {
					syrk4x8(&x[r0*lda+j], lda, &a[r0], &x[j], lda, r0)
				}
				if j+4 <= j1 {
					syrk4x4(&x[r0*lda+j], lda, &a[r0], &x[j], lda, r0)
					j += 4
				}
			}
			for r := r0; r < r0+g; r++ {
				for jj := j; jj < j1; jj++ {
					s := 0.0
					for p := range r0 {
						s = math.FMA(a[p*lda+r], x[p*lda+jj], s)
					}
					x[r*lda+jj] -= s
				}
			}
		}
		for r := r0; r < r0+g; r++ {
			xr := x[r*lda+j0 : r*lda+j1]
			for p := r0; p < r; p++ {
				u := a[p*lda+r]
				xp := x[p*lda+j0 : p*lda+j1]
				for jj := range xr {
					xr[jj] -= u * xp[jj]
				}
			}
			inv := 1 / a[r*lda+r]
			for jj := range xr {
				xr[jj] *= inv
			}
		}
	}
}

// parUpdateMin is the number of multiply-adds of a trailing update below which it runs on
// the calling goroutine: waking a worker costs more than it saves there. At n = 200 (Table I,
// m_G = 200) every update is below it, and the exact-mode solve, which factorizes such a
// matrix every iteration, took 44 CPU-ms with one thread against 48–51 with two.
const parUpdateMin = 1 << 20

// update sets C −= AᵀA on the upper triangle of the m×m matrix C, A being
// k×m (rows of stride lda), with W workers over interleaved row tiles.
func update(c []float64, ldc int, a []float64, lda, k, m, W int) {
	tiles := (m + 3) / 4
	W = max(1, min(W, tiles/4))
	if k*m*m/2 < parUpdateMin {
		W = 1
	}
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
