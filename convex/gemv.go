package convex

import (
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/passivenfir/gputrain/internal/gopanic"
)

// The products with the cosine rows of the exchange (mulG, mulGT, formM) read the whole
// table, len(omega)×(2L−1) values, several times per iteration: at the robot's n = 2000
// (four blocks of 500 taps, thousands of rows each) that is memory-bound gonum Dgemv, a fifth
// of the solve, on one core while the Cholesky uses both. From parGemvMin multiply-adds on,
// the rows are split into chunks of parGemvRows, handed to the workers in turn; the
// transposed product sums the chunks' partial results in chunk order, so neither product
// depends on the number of workers.
const (
	parGemvRows = 512
	parGemvMin  = 1 << 20
)

// gemvPar holds the scratch of the split transposed products.
type gemvPar struct {
	part []float64
}

// gemv sets y = alpha·A·x (trans false; len(y) = A.Rows) or y = alpha·Aᵀx (trans true;
// len(y) = A.Cols), A row-major.
func (g *gemvPar) gemv(trans bool, alpha float64, A blas64.General, x, y []float64) {
	r, c := A.Rows, A.Cols
	W := runtime.GOMAXPROCS(0)
	chunks := (r + parGemvRows - 1) / parGemvRows
	if r*c < parGemvMin || chunks == 1 {
		tr := blas.NoTrans
		nx, ny := c, r
		if trans {
			tr, nx, ny = blas.Trans, r, c
		}
		blas64.Gemv(tr, alpha, A, blas64.Vector{N: nx, Inc: 1, Data: x}, 0, blas64.Vector{N: ny, Inc: 1, Data: y})
		return
	}
	if trans {
		if cap(g.part) < chunks*c {
			g.part = make([]float64, chunks*c)
		}
		g.part = g.part[:chunks*c]
	}
	chunk := func(k int) {
		r0 := k * parGemvRows
		r1 := min(r, r0+parGemvRows)
		sub := blas64.General{Rows: r1 - r0, Cols: c, Stride: A.Stride, Data: A.Data[r0*A.Stride:]}
		if trans {
			blas64.Gemv(blas.Trans, alpha, sub, blas64.Vector{N: r1 - r0, Inc: 1, Data: x[r0:r1]}, 0,
				blas64.Vector{N: c, Inc: 1, Data: g.part[k*c : (k+1)*c]})
			return
		}
		blas64.Gemv(blas.NoTrans, alpha, sub, blas64.Vector{N: c, Inc: 1, Data: x}, 0,
			blas64.Vector{N: r1 - r0, Inc: 1, Data: y[r0:r1]})
	}
	W = min(W, chunks)
	var wg sync.WaitGroup
	var pc gopanic.Catcher
	for w := 1; w < W; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pc.Catch()
			for k := w; k < chunks; k += W {
				chunk(k)
			}
		}()
	}
	for k := 0; k < chunks; k += W {
		chunk(k)
	}
	wg.Wait()
	pc.Repanic()
	if trans {
		copy(y[:c], g.part[:c])
		for k := 1; k < chunks; k++ {
			p := g.part[k*c : (k+1)*c]
			for j := range p {
				y[j] += p[j]
			}
		}
	}
}

// Triangular solves with the Newton matrix's factor, two per solve and several solves per
// iteration, read the n×n factor twice each: at n = 2000 gonum's Dtrsv was a tenth of the
// solve, serial and memory-bound. From parSolveMin on, cholSolvePar does them by blocks of
// solveBlock rows: a small Dtrsv on the diagonal block, then the update of the rest of the
// vector with the block's rows (a Dgemv), split into chunks of solveChunk columns or rows
// among the workers. The chunks do not depend on the number of workers, nor does the result.
const (
	parSolveMin = 512
	solveBlock  = 128
	solveChunk  = 256
)

// cholSolvePar solves UᵀU v = v in place, U upper triangular (row-major).
func cholSolvePar(U blas64.Triangular, v []float64) {
	n, s, d := U.N, U.Stride, U.Data
	W := runtime.GOMAXPROCS(0)
	diag := func(k0, k1 int) blas64.Triangular {
		return blas64.Triangular{Uplo: blas.Upper, Diag: blas.NonUnit, N: k1 - k0, Stride: s, Data: d[k0*s+k0:]}
	}
	// Uᵀy = v, forward: y_k from the diagonal block, then v[k1:] −= U[k0:k1, k1:]ᵀ y_k.
	for k0 := 0; k0 < n; k0 += solveBlock {
		k1 := min(n, k0+solveBlock)
		blas64.Trsv(blas.Trans, diag(k0, k1), blas64.Vector{N: k1 - k0, Inc: 1, Data: v[k0:k1]})
		if k1 == n {
			break
		}
		yk := blas64.Vector{N: k1 - k0, Inc: 1, Data: v[k0:k1]}
		parChunks(n-k1, W, func(c0, c1 int) {
			A := blas64.General{Rows: k1 - k0, Cols: c1 - c0, Stride: s, Data: d[k0*s+k1+c0:]}
			blas64.Gemv(blas.Trans, -1, A, yk, 1, blas64.Vector{N: c1 - c0, Inc: 1, Data: v[k1+c0 : k1+c1]})
		})
	}
	// Ux = y, backward: v[k0:k1] −= U[k0:k1, k1:] x[k1:], then the diagonal block.
	for k1 := n; k1 > 0; {
		k0 := max(0, k1-solveBlock)
		if k1 < n {
			xr := blas64.Vector{N: n - k1, Inc: 1, Data: v[k1:]}
			parChunks(k1-k0, W, func(r0, r1 int) {
				A := blas64.General{Rows: r1 - r0, Cols: n - k1, Stride: s, Data: d[(k0+r0)*s+k1:]}
				blas64.Gemv(blas.NoTrans, -1, A, xr, 1, blas64.Vector{N: r1 - r0, Inc: 1, Data: v[k0+r0 : k0+r1]})
			})
		}
		blas64.Trsv(blas.NoTrans, diag(k0, k1), blas64.Vector{N: k1 - k0, Inc: 1, Data: v[k0:k1]})
		k1 = k0
	}
}

// parChunks calls f on [c0, c1) for the chunks of solveChunk of [0, m) (rows: halves of
// solveChunk), handed to W workers in turn.
func parChunks(m, W int, f func(c0, c1 int)) {
	size := solveChunk
	if m <= solveBlock {
		size = solveBlock / 2 // the rows of one block: two chunks
	}
	chunks := (m + size - 1) / size
	parStrided(chunks, W, func(k int) { f(k*size, min(m, (k+1)*size)) })
}

// parStrided calls f(k) for every k in [0, n) on up to W workers, worker w taking k = w,
// w+W, …; the calling goroutine is worker 0, and a panic in any worker is raised again here
// once all have stopped.
func parStrided(n, W int, f func(k int)) {
	W = min(W, n)
	run := func(w int) {
		for k := w; k < n; k += W {
			f(k)
		}
	}
	if W <= 1 {
		run(0)
		return
	}
	var wg sync.WaitGroup
	var pc gopanic.Catcher
	for w := 1; w < W; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pc.Catch()
			run(w)
		}()
	}
	run(0)
	wg.Wait()
	pc.Repanic()
}
