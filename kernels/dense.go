package kernels

import (
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

// fastDense selects the AVX kernels (denseFwd4, denseBwdW4, denseBwdX4) in
// the small-layer loops; they give the loops' results bit for bit. A
// variable so that the tests run both paths.
var fastDense = haveFMA

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
	overRows(sc, rows, nil, func(ws *scratch, r0, r1 int) {
		if in*out < denseSmall {
			denseFwdSmall(r0, r1, in, out, x, w, b, y, buf(&ws.d, in*out))
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
			tanhTo(yb, yb)
		}
	})
	c.put(sc)
}

// denseFwdSmall is the small-layer forward over rows [r0, r1): four outputs
// at a time per row, so that four independent sums share each load of x and
// the loop over the few inputs is paid once per four outputs. Every sum is
// b[o] + w[o,0]x[0] + w[o,1]x[1] + … in that order, as in the one-output
// loop it replaced, then the activations go through tanhTo in one pass.
func denseFwdSmall(r0, r1, in, out int, x, w, b, y, wT []float64) {
	w = w[:out*in]
	b = b[:out]
	if fastDense && out >= 4 && in >= 1 && r1 > r0 {
		// Four outputs per YMM register, wᵀ rows as the vectors; a last
		// partial group is recomputed as the last four outputs.
		wT = wT[:in*out]
		for o := range out {
			for i := range in {
				wT[i*out+o] = w[o*in+i]
			}
		}
		_, _ = x[r1*in-1], y[r1*out-1]
		for o := 0; o < out; o += 4 {
			o = min(o, out-4)
			denseFwd4(&x[r0*in], &wT[o], &b[o], &y[r0*out+o], r1-r0, in, out)
		}
		tanhTo(y[r0*out:r1*out], y[r0*out:r1*out])
		return
	}
	for r := r0; r < r1; r++ {
		xr := x[r*in : (r+1)*in]
		yr := y[r*out : (r+1)*out]
		o := 0
		for ; o+4 <= out; o += 4 {
			w0 := w[o*in : (o+1)*in]
			w1 := w[(o+1)*in : (o+2)*in]
			w2 := w[(o+2)*in : (o+3)*in]
			w3 := w[(o+3)*in : (o+4)*in]
			s0, s1, s2, s3 := b[o], b[o+1], b[o+2], b[o+3]
			for i, v := range xr {
				s0 += w0[i] * v
				s1 += w1[i] * v
				s2 += w2[i] * v
				s3 += w3[i] * v
			}
			yr[o], yr[o+1], yr[o+2], yr[o+3] = s0, s1, s2, s3
		}
		for ; o < out; o++ {
			s := b[o]
			wr := w[o*in : (o+1)*in]
			for i, v := range xr {
				s += wr[i] * v
			}
			yr[o] = s
		}
	}
	tanhTo(y[r0*out:r1*out], y[r0*out:r1*out])
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
			denseBwdSmall(r0, r1, in, out, x, w, y, dy, dx, dW, dB, buf(&sc.a, (r1-r0)*out), buf(&sc.d, in*out))
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

// denseBwdSmall is the small-layer backward over rows [r0, r1) with d as
// scratch for dpre ((r1−r0)·out). Every sum keeps the order of the row-by-row
// loop (rows ascending into dW and dB, outputs ascending into dx), so the
// results are bit for bit those of that loop; but each accumulator lives in
// a register through its loop instead of being loaded and stored per row.
func denseBwdSmall(r0, r1, in, out int, x, w, y, dy, dx, dW, dB, d, dWT []float64) {
	n := r1 - r0
	w = w[:out*in]
	dW = dW[:out*in]
	dB = dB[:out]
	x = x[r0*in : r1*in]
	d = d[:n*out]
	yb, dyb := y[r0*out:r1*out], dy[r0*out:r1*out]
	for i, yv := range yb {
		d[i] = dyb[i] * (1 - yv*yv)
	}
	// With the vector kernel, whole groups of four outputs go through
	// denseBwdW4 (on wᵀ-shaped dW) and only the rest through the loops.
	o0 := 0
	if fastDense && in >= 1 && n > 0 {
		o0 = out &^ 3
		dWT = dWT[:in*out]
		for o := range o0 {
			for i := range in {
				dWT[i*out+o] = dW[o*in+i]
			}
		}
		for o := 0; o < o0; o += 4 {
			denseBwdW4(&d[o], &x[0], &dB[o], &dWT[o], n, in, out)
		}
		for o := range o0 {
			for i := range in {
				dW[o*in+i] = dWT[i*out+o]
			}
		}
	}
	o := o0
	for ; o+4 <= out; o += 4 {
		s0, s1, s2, s3 := dB[o], dB[o+1], dB[o+2], dB[o+3]
		for r := o; r+3 < len(d); r += out {
			dr := d[r : r+4]
			s0 += dr[0]
			s1 += dr[1]
			s2 += dr[2]
			s3 += dr[3]
		}
		dB[o], dB[o+1], dB[o+2], dB[o+3] = s0, s1, s2, s3
	}
	for ; o < out; o++ {
		s := dB[o]
		for r := o; r < len(d); r += out {
			s += d[r]
		}
		dB[o] = s
	}
	for o := o0; o < out; o++ {
		dWo := dW[o*in : (o+1)*in]
		i := 0
		for ; i+4 <= in; i += 4 {
			s0, s1, s2, s3 := dWo[i], dWo[i+1], dWo[i+2], dWo[i+3]
			for r := range n {
				dv := d[r*out+o]
				xr := x[r*in+i : r*in+i+4]
				s0 += dv * xr[0]
				s1 += dv * xr[1]
				s2 += dv * xr[2]
				s3 += dv * xr[3]
			}
			dWo[i], dWo[i+1], dWo[i+2], dWo[i+3] = s0, s1, s2, s3
		}
		for ; i < in; i++ {
			s := dWo[i]
			for r := range n {
				s += d[r*out+o] * x[r*in+i]
			}
			dWo[i] = s
		}
	}
	if dx == nil {
		return
	}
	// dx row by row, four inputs at a time: four independent sums hide the
	// add latency that one sum over the outputs would wait on.
	dx = dx[r0*in : r1*in]
	if fastDense && in >= 4 && n > 0 {
		for i := 0; i < in; i += 4 {
			i = min(i, in-4)
			denseBwdX4(&d[0], &w[i], &dx[i], n, in, out)
		}
		return
	}
	for r := range n {
		dr := d[r*out : (r+1)*out]
		dxr := dx[r*in : (r+1)*in]
		i := 0
		for ; i+4 <= in; i += 4 {
			var s0, s1, s2, s3 float64
			for o, dv := range dr {
				wo := w[o*in+i : o*in+i+4]
				s0 += dv * wo[0]
				s1 += dv * wo[1]
				s2 += dv * wo[2]
				s3 += dv * wo[3]
			}
			dxr[i], dxr[i+1], dxr[i+2], dxr[i+3] = s0, s1, s2, s3
		}
		for ; i < in; i++ {
			s := 0.0
			for o, dv := range dr {
				s += dv * w[o*in+i]
			}
			dxr[i] = s
		}
	}
}
