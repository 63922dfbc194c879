package kernels

import (
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/floats"
)

// denseBlock is the row block of one blas64.Gemm call. It keeps gonum's
// Dgemm serial (it goes parallel from 4 blocks of 64×64 on) so that the only
// parallelism is ours, over fixed row ranges.
const denseBlock = 192

// denseSmall: layers with in·out below this run as plain loops, which for the
// lifting network's widths (2→4→4→10) measure faster than Dgemm's blocking.
const denseSmall = 64

// DenseTanhForward implements Backend.DenseTanhForward, in parallel over
// fixed row ranges.
func (c *CPU) DenseTanhForward(rows, in, out int, x, w, b, y []float64) {
	const op = "DenseTanhForward"
	checkDims(op, rows, in, out)
	need(op, "x", len(x), rows*in)
	need(op, "w", len(w), out*in)
	need(op, "b", len(b), out)
	need(op, "y", len(y), rows*out)
	if rows == 0 || out == 0 {
		return
	}
	sc := c.get(c.rowWorkers(rows, 256))
	overRows(sc, rows, nil, func(_ *scratch, r0, r1 int) {
		if in*out < denseSmall {
			denseFwdLoops(r0, r1, in, out, x, w, b, y)
			return
		}
		for q0 := r0; q0 < r1; q0 += denseBlock {
			q1 := min(r1, q0+denseBlock)
			yb := y[q0*out : q1*out]
			for r := range q1 - q0 {
				copy(yb[r*out:(r+1)*out], b[:out])
			}
			if in > 0 {
				blas64.Gemm(blas.NoTrans, blas.Trans, 1,
					blas64.General{Rows: q1 - q0, Cols: in, Stride: in, Data: x[q0*in : q1*in]},
					blas64.General{Rows: out, Cols: in, Stride: in, Data: w[:out*in]},
					1, blas64.General{Rows: q1 - q0, Cols: out, Stride: out, Data: yb})
			}
			for i, v := range yb {
				yb[i] = math.Tanh(v)
			}
		}
	})
	c.put(sc)
}

func denseFwdLoops(r0, r1, in, out int, x, w, b, y []float64) {
	w = w[:out*in]
	b = b[:out]
	for r := r0; r < r1; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		for o := range yr {
			s := b[o]
			wr := w[o*in : (o+1)*in]
			for i, v := range xr {
				s += wr[i] * v
			}
			yr[o] = math.Tanh(s)
		}
	}
}

// DenseTanhBackward implements Backend.DenseTanhBackward. Every worker owns a
// fixed row range and private dw, db accumulators, added to dw, db in worker
// order.
func (c *CPU) DenseTanhBackward(rows, in, out int, x, w, y, dy, dx, dw, db []float64) {
	if denseBackwardArgs(rows, in, out, x, w, y, dy, dx, dw, db) {
		return
	}
	sc := c.get(c.rowWorkers(rows, 256))
	overRows(sc, rows, func(sc *scratch) {
		zbuf(&sc.acc, out*in)
		zbuf(&sc.acc2, out)
	}, func(sc *scratch, r0, r1 int) {
		dW, dB := sc.acc, sc.acc2
		if in*out < denseSmall {
			denseBwdLoops(r0, r1, in, out, x, w, y, dy, dx, dW, dB)
			return
		}
		dp := buf(&sc.a, denseBlock*out)
		for q0 := r0; q0 < r1; q0 += denseBlock {
			q1 := min(r1, q0+denseBlock)
			nr := q1 - q0
			d := dp[:nr*out]
			yb, dyb := y[q0*out:q1*out], dy[q0*out:q1*out]
			for i := range d {
				d[i] = dyb[i] * (1 - yb[i]*yb[i])
			}
			for r := range nr {
				floats.Add(dB, d[r*out:(r+1)*out])
			}
			if in == 0 {
				continue
			}
			D := blas64.General{Rows: nr, Cols: out, Stride: out, Data: d}
			X := blas64.General{Rows: nr, Cols: in, Stride: in, Data: x[q0*in : q1*in]}
			blas64.Gemm(blas.Trans, blas.NoTrans, 1, D, X, 1, blas64.General{Rows: out, Cols: in, Stride: in, Data: dW})
			if dx != nil {
				blas64.Gemm(blas.NoTrans, blas.NoTrans, 1, D,
					blas64.General{Rows: out, Cols: in, Stride: in, Data: w[:out*in]},
					0, blas64.General{Rows: nr, Cols: in, Stride: in, Data: dx[q0*in : q1*in]})
			}
		}
	})
	for _, s := range sc {
		floats.Add(dw[:out*in], s.acc[:out*in])
		floats.Add(db[:out], s.acc2[:out])
	}
	c.put(sc)
}

func denseBwdLoops(r0, r1, in, out int, x, w, y, dy, dx, dW, dB []float64) {
	w = w[:out*in]
	dW = dW[:out*in]
	dB = dB[:out]
	for r := r0; r < r1; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		dyr := dy[r*out : (r+1)*out]
		var dxr []float64
		if dx != nil {
			dxr = dx[r*in : (r+1)*in]
			clear(dxr)
		}
		for o, yv := range yr {
			d := dyr[o] * (1 - yv*yv)
			dB[o] += d
			wr := w[o*in : (o+1)*in]
			dwr := dW[o*in : (o+1)*in]
			for i, v := range xr {
				dwr[i] += d * v
			}
			if dxr != nil {
				for i, v := range wr {
					dxr[i] += d * v
				}
			}
		}
	}
}
