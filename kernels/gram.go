package kernels

import (
	"context"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"

	"github.com/passivenfir/gputrain/internal/chol"
)

// gramRows is the number of samples per Φ block (the k dimension of the
// rank-k updates). With Φᵀ stored nθ × gramRows, gonum's Dsyrk (NoTrans,
// upper) computes every P entry as one SSE2 dot product of length gramRows.
// Measured (CPU time, one worker): ≈4.5 GMAC/s for nθ = 500 and ≈4.3 GMAC/s
// for nθ = 2000; a j-tiled variant of the same dot products and a 4×2
// register-blocked plain-Go micro-kernel were no faster (the latter 1.3–1.6×
// slower: Go emits scalar multiply-adds), so Dsyrk stays.
const gramRows = 256

// fastRows is the block height of the AVX2 path: a block of Φ (fastRows ×
// nθ, sample-major) stays in the L2 cache while chol.SubATA sweeps it once
// per four columns of P.
const fastRows = 64

// fastGram selects the AVX2 path (chol.SubATA on sample-major blocks of Φ)
// over gonum's Dsyrk; a variable so that the tests run both on one machine.
var fastGram = chol.Fast()

// Gram implements Backend.Gram.
//
// The samples [0, Total()) are split into fixed contiguous ranges, one per
// worker, regardless of trajectory boundaries (so one long trajectory, the
// robot case, still uses every worker). A worker walks its range in blocks of
// gramRows samples, writes the block's regressors transposed, Φᵀ (nθ ×
// rows, row c = regressor c over the block's samples, contiguous products of
// the branch-major gains and w_j = n_j u), and adds the upper triangle of
// ΦᵀΦ, Φᵀy and yᵀy to its accumulators. Worker 0 accumulates directly in P;
// the others' sums are added in worker order, then P is mirrored. On
// machines with AVX2 and FMA (fastGram) the blocks are fastRows samples of
// Φ itself, sample-major, and chol.SubATA's micro-kernel does the update.
func (c *CPU) Gram(s Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) float64 {
	yy, _ := c.GramContext(context.Background(), s, mN, mG, mL, u, n, y, P, b)
	return yy
}

// GramContext is Gram that stops when ctx is cancelled: every worker checks
// ctx before each block of gramRows samples (about 0.1 s of work at nθ = 2000),
// so that Ctrl-C during the Gram matrix of a 10⁷-sample record acts at once
// instead of after minutes. On cancellation it returns ctx.Err() and P, b
// hold partial sums.
func (c *CPU) GramContext(ctx context.Context, s Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) (float64, error) {
	N, nt := gramArgs(s, mN, mG, mL, u, n, y, P, b)
	P, b = P[:nt*nt], b[:nt]
	clear(b)
	for i := range nt {
		clear(P[i*nt+i : (i+1)*nt])
	}
	if N == 0 || nt == 0 {
		clear(P)
		return 0, ctx.Err()
	}
	// The AVX2 path writes Φ sample-major and lets chol.SubATA subtract
	// ΦᵀΦ, so its accumulators hold −P until the workers' sums are added
	// in worker order and negated (exactly); gonum's path writes Φᵀ and
	// adds with Dsyrk.
	fast := fastGram
	rows := gramRows
	if fast {
		rows = fastRows
	}
	sc := c.get(c.rowWorkers(N, gramRows))
	overRows(sc, N, nil, func(sc *scratch, r0, r1 int) {
		var acc, bw []float64
		if r0 == 0 {
			acc, bw = P, b
		} else {
			acc = buf(&sc.acc, nt*nt)
			for i := range nt {
				clear(acc[i*nt+i : (i+1)*nt])
			}
			bw = zbuf(&sc.acc2, nt)
		}
		sc.yy = 0
		A := buf(&sc.a, nt*rows)
		bi := 0 // trajectory holding sample r0
		for s.Off[bi+1] <= r0 {
			bi++
		}
		for q0 := r0; q0 < r1; q0 += rows {
			if ctx.Err() != nil {
				return
			}
			q1 := min(r1, q0+rows)
			L := q1 - q0
			// Fill the block piece by piece (one piece per trajectory
			// overlapping it).
			for a := q0; a < q1; {
				for s.Off[bi+1] <= a {
					bi++
				}
				e := min(q1, s.Off[bi+1])
				if fast {
					gramRowsPiece(sc, A[(a-q0)*nt:], nt, s.Off[bi], a, e, mN, mG, mL, u, n)
				} else {
					gramPiece(sc, A, a-q0, s.Off[bi], a, e, mN, mG, mL, u, n)
				}
				a = e
			}
			yb := y[q0:q1]
			sc.yy += floats.Dot(yb, yb)
			yv, bv := blas64.Vector{N: L, Inc: 1, Data: yb}, blas64.Vector{N: nt, Inc: 1, Data: bw}
			if fast {
				blas64.Gemv(blas.Trans, 1, blas64.General{Rows: L, Cols: nt, Stride: nt, Data: A}, yv, 1, bv)
				chol.SubATA(acc, nt, A, nt, L, nt)
			} else {
				Ab := blas64.General{Rows: nt, Cols: L, Stride: gramRows, Data: A}
				blas64.Gemv(blas.NoTrans, 1, Ab, yv, 1, bv)
				blas64.Syrk(blas.NoTrans, 1, Ab, 1, blas64.Symmetric{Uplo: blas.Upper, N: nt, Stride: nt, Data: acc})
			}
		}
	})
	yy := sc[0].yy
	for _, w := range sc[1:] {
		floats.Add(b, w.acc2[:nt])
		for i := range nt {
			floats.Add(P[i*nt+i:(i+1)*nt], w.acc[i*nt+i:(i+1)*nt])
		}
		yy += w.yy
	}
	c.put(sc)
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	for i := range nt {
		if fast {
			for j := i; j < nt; j++ {
				P[i*nt+j] = -P[i*nt+j]
			}
		}
		for j := i + 1; j < nt; j++ {
			P[j*nt+i] = P[i*nt+j]
		}
	}
	return yy, nil
}

// gramPiece writes the regressors of samples [a, e) of the trajectory
// starting at s0 into columns col0… of Φᵀ (row stride gramRows).
func gramPiece(sc *scratch, A []float64, col0, s0, a, e, mN, mG, mL int, u, n []float64) {
	L := e - a
	if mN > 0 && mG > 0 {
		// nl = n_j over [a, e); wl = w_j over [a−mG+1, e), zero before s0.
		nl := buf(&sc.b, L)
		wl := buf(&sc.c, mG-1+L)
		h := min(mG-1, a-s0) // history samples available
		clear(wl[:mG-1-h])
		for j := range mN {
			for i := range L {
				nl[i] = n[(a+i)*mN+j]
			}
			for i := mG - 1 - h; i < mG-1+L; i++ {
				t := a - (mG - 1) + i
				wl[i] = n[t*mN+j] * u[t]
			}
			for k := range mG {
				row := A[(j*mG+k)*gramRows+col0 : (j*mG+k)*gramRows+col0+L]
				floats.MulTo(row, nl, wl[mG-1-k:mG-1-k+L])
			}
		}
	}
	if mL > 0 {
		ul := buf(&sc.c, mL-1+L)
		h := min(mL-1, a-s0)
		clear(ul[:mL-1-h])
		copy(ul[mL-1-h:], u[a-h:e])
		base := mN * mG
		for k := range mL {
			copy(A[(base+k)*gramRows+col0:(base+k)*gramRows+col0+L], ul[mL-1-k:mL-1-k+L])
		}
	}
}

// gramRowsPiece writes the regressors of samples [a, e) of the trajectory
// starting at s0 as rows 0… of A (row stride nt): gramPiece's Φᵀ
// transposed.
func gramRowsPiece(sc *scratch, A []float64, nt, s0, a, e, mN, mG, mL int, u, n []float64) {
	L := e - a
	if mN > 0 && mG > 0 {
		// wl = w_j over [a−mG+1, e), zero before s0.
		wl := buf(&sc.c, mG-1+L)
		h := min(mG-1, a-s0)
		clear(wl[:mG-1-h])
		for j := range mN {
			for i := mG - 1 - h; i < mG-1+L; i++ {
				t := a - (mG - 1) + i
				wl[i] = n[t*mN+j] * u[t]
			}
			for i := range L {
				nv := n[(a+i)*mN+j]
				row := A[i*nt+j*mG : i*nt+j*mG+mG]
				w := wl[i : i+mG] // w_j(a+i−mG+1 … a+i)
				for k := range row {
					row[k] = nv * w[mG-1-k]
				}
			}
		}
	}
	if mL > 0 {
		ul := buf(&sc.c, mL-1+L)
		h := min(mL-1, a-s0)
		clear(ul[:mL-1-h])
		copy(ul[mL-1-h:], u[a-h:e])
		base := mN * mG
		for i := range L {
			row := A[i*nt+base : i*nt+base+mL]
			w := ul[i : i+mL]
			for k := range row {
				row[k] = w[mL-1-k]
			}
		}
	}
}
