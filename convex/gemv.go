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
