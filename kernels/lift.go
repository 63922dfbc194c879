package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// The feature-major ("T") kernels of the open-loop θ_N step. Backend's dense
// layers and convolution bank take the gains row-major (rows×m_N), which is
// what a row-by-row MLP writes, and every branch's signal is then strided by
// m_N: the convolution bank spends as much time gathering and scattering
// rows as the corr kernels take. Here every activation of the lifting network
// is stored feature-major instead, sizes[l]×rows, unit by unit: each layer
// is a few contiguous vector sums over the rows (denseFwdT), its weight
// gradients are dot products over the rows (dots4T), the last layer's output
// is already the branch-major gains the convolutions want, and the gradients
// flow back in the same layout. One call runs the whole network.
//
// LiftForwardT and ConvForwardT give the bits of DenseTanhForward and
// ConvForward (transposed); ConvBackwardT those of ConvBackward; only
// LiftBackwardT sums in another order (dots4T's lanes instead of row by row),
// so its dw, db differ from DenseTanhBackward's by rounding.

// liftArgs checks the arguments the two lift kernels share and returns the
// number of layers and of parameters.
func liftArgs(op string, rows int, sizes []int, theta, x []float64, acts [][]float64) (L, nTheta int) {
	checkDims(op, rows)
	checkDims(op, sizes...)
	L = len(sizes) - 1
	if L < 1 || len(acts) != L {
		panic(fmt.Errorf("kernels: %s: %d sizes and %d activations: %w", op, len(sizes), len(acts), ErrShape))
	}
	for l := range L {
		nTheta += sizes[l+1]*sizes[l] + sizes[l+1]
		need(op, fmt.Sprintf("acts[%d]", l), len(acts[l]), sizes[l+1]*rows)
	}
	need(op, "θ", len(theta), nTheta)
	need(op, "x", len(x), rows*sizes[0])
	return L, nTheta
}

// LiftForwardT runs the lifting network, tanh on every layer, on rows
// feature vectors x (rows×sizes[0], row-major) with θ_N in model.MLP.Flatten
// order, writing layer l's output feature-major into acts[l]:
// acts[l][o*rows+r] = tanh(b_l[o] + Σ_i W_l[o,i] a_{l−1}[i, r]), a_{−1} = xᵀ.
// acts[L−1] is the branch-major gains n_j(r) = acts[L−1][j*rows+r] of
// ConvForwardT. Every value equals DenseTanhForward's, layer by layer.
func (c *CPU) LiftForwardT(rows int, sizes []int, theta, x []float64, acts [][]float64) {
	L, _ := liftArgs("LiftForwardT", rows, sizes, theta, x, acts)
	if rows == 0 {
		return
	}
	sc := c.get(c.rowWorkers(rows, 256))
	overRows(sc, rows, nil, func(ws *scratch, r0, r1 int) {
		n := r1 - r0
		in, ld := transposeRows(buf(&ws.a, sizes[0]*n), x, sizes[0], r0, r1), n
		off := 0
		for l := range L {
			nin, nout := sizes[l], sizes[l+1]
			w, b := theta[off:off+nout*nin], theta[off+nout*nin:off+nout*nin+nout]
			off += nout*nin + nout
			for o := range nout {
				yo := acts[l][o*rows+r0 : o*rows+r1]
				denseRowT(yo, in, ld, w[o*nin:(o+1)*nin], b[o])
				tanhTo(yo, yo)
			}
			in, ld = acts[l][r0:], rows
		}
	})
	c.put(sc)
}

// LiftBackwardT is the adjoint of LiftForwardT for the adjoint dn of its
// output (sizes[L]×rows, feature-major): it adds dL/dθ_N (Flatten order) to
// dtheta. acts must be LiftForwardT's output for the same θ_N and x. Every
// worker sums its fixed row range (dots4T's order within it) into private
// accumulators, added to dtheta in worker order.
func (c *CPU) LiftBackwardT(rows int, sizes []int, theta, x []float64, acts [][]float64, dn, dtheta []float64) {
	const op = "LiftBackwardT"
	L, nTheta := liftArgs(op, rows, sizes, theta, x, acts)
	need(op, "dn", len(dn), sizes[L]*rows)
	need(op, "dθ", len(dtheta), nTheta)
	if rows == 0 {
		return
	}
	width := 0
	for _, s := range sizes {
		width = max(width, s)
	}
	sc := c.get(c.rowWorkers(rows, 256))
	overRows(sc, rows, func(ws *scratch) { zbuf(&ws.acc, nTheta) }, func(ws *scratch, r0, r1 int) {
		n := r1 - r0
		xT := transposeRows(buf(&ws.a, sizes[0]*n), x, sizes[0], r0, r1)
		D, DX := buf(&ws.b, width*n), buf(&ws.c, width*n)
		wT := buf(&ws.d, width*width)
		dy, dyLd := dn[r0:], rows
		off := nTheta
		for l := L - 1; l >= 0; l-- {
			nin, nout := sizes[l], sizes[l+1]
			off -= nout*nin + nout
			w := theta[off : off+nout*nin]
			dW, dB := ws.acc[off:off+nout*nin], ws.acc[off+nout*nin:off+nout*nin+nout]
			xl, ld := xT, n
			if l > 0 {
				xl, ld = acts[l-1][r0:], rows
			}
			// dpre = dy ⊙ (1 − y²), then dW, db as dot products over the
			// rows, four inputs and the bias per pass over dpre (d itself
			// stands in for the missing inputs of a last group).
			for o := range nout {
				d := D[o*n : (o+1)*n]
				dtanhRow(d, dy[o*dyLd:o*dyLd+n], acts[l][o*rows+r0:o*rows+r1])
				for i0 := 0; i0 < max(nin, 1); i0 += 4 {
					var xs [4][]float64
					for k := range xs {
						xs[k] = d
						if i0+k < nin {
							xs[k] = xl[(i0+k)*ld : (i0+k)*ld+n]
						}
					}
					var sums [5]float64
					liftDots(d, &xs, &sums)
					for k := range min(4, nin-i0) {
						dW[o*nin+i0+k] += sums[k]
					}
					if i0 == 0 {
						dB[o] += sums[4]
					}
				}
			}
			if l == 0 {
				break
			}
			// dx_i = Σ_o W[o,i] dpre_o, outputs ascending from 0, as
			// DenseTanhBackward sums it.
			for o := range nout {
				for i := range nin {
					wT[i*nout+o] = w[o*nin+i]
				}
			}
			for i := range nin {
				denseRowT(DX[i*n:(i+1)*n], D, n, wT[i*nout:(i+1)*nout], 0)
			}
			dy, dyLd = DX, n
			D, DX = DX, D
		}
	})
	for _, s := range sc {
		floats.Add(dtheta[:nTheta], s.acc[:nTheta])
	}
	c.put(sc)
}

// transposeRows writes rows [r0, r1) of the row-major rows×F matrix x into
// dst feature-major (F×(r1−r0)) and returns dst.
func transposeRows(dst, x []float64, F, r0, r1 int) []float64 {
	n := r1 - r0
	x = x[r0*F : r1*F]
	for i := range F {
		di := dst[i*n : (i+1)*n]
		for t := range di {
			di[t] = x[t*F+i]
		}
	}
	return dst
}

// denseRowT sets y[t] = b + w[0]·x[t] + w[1]·x[ld+t] + … (in that order,
// each product rounded) for t < len(y): one unit of a feature-major layer.
func denseRowT(y, x []float64, ld int, w []float64, b float64) {
	n := len(y)
	t := 0
	if fastDense && len(w) >= 1 && n >= 4 {
		_ = x[(len(w)-1)*ld+n-1]
		denseFwdT(&x[0], &w[0], &b, &y[0], n&^3, len(w), ld)
		t = n &^ 3
	}
	for ; t < n; t++ {
		s := b
		for i, wv := range w {
			s += wv * x[i*ld+t]
		}
		y[t] = s
	}
}

// dtanhRow sets d[t] = dy[t]·(1 − y[t]²), the adjoint through tanh given its
// output y.
func dtanhRow(d, dy, y []float64) {
	n := len(d)
	dy, y = dy[:n], y[:n]
	t := 0
	if fastDense && n >= 4 {
		dtanhT(&d[0], &dy[0], &y[0], n&^3)
		t = n &^ 3
	}
	for ; t < n; t++ {
		d[t] = dy[t] * (1 - y[t]*y[t])
	}
}

// liftDots sets out[i] = Σ_t d[t]·x_i[t] for i < 4 and out[4] = Σ_t d[t],
// in dots4T's order: 8 lanes (t mod 8) summed over the whole blocks of 8,
// reduced as liftDotsGo, then the last len(d) mod 8 terms in order (by FMA;
// adds for out[4]).
func liftDots(d []float64, x *[4][]float64, out *[5]float64) {
	n := len(d)
	for i := range x {
		x[i] = x[i][:n]
	}
	n8 := n &^ 7
	if fastDense && n8 > 0 {
		dots4T(&d[0], &x[0][0], &x[1][0], &x[2][0], &x[3][0], n8, out)
	} else {
		liftDotsGo(d[:n8], x, out)
	}
	for t := n8; t < n; t++ {
		for i := range x {
			out[i] = math.FMA(d[t], x[i][t], out[i])
		}
		out[4] += d[t]
	}
}

// liftDotsGo is dots4T in Go, bit for bit, for len(d) a multiple of 8.
func liftDotsGo(d []float64, x *[4][]float64, out *[5]float64) {
	var acc [5][8]float64
	for t := 0; t+8 <= len(d); t += 8 {
		for l := range 8 {
			for i := range x {
				acc[i][l] = math.FMA(d[t+l], x[i][t+l], acc[i][l])
			}
			acc[4][l] += d[t+l]
		}
	}
	for i, a := range acc {
		var v [4]float64
		for l := range v {
			v[l] = a[l] + a[l+4]
		}
		out[i] = (v[0] + v[2]) + (v[1] + v[3])
	}
}

// ConvForwardT is ConvForward with the gains n and the convolutions z
// branch-major (m_N×Total(): n_j(t) = n[j*Total()+t], as LiftForwardT writes
// them); u, g and y are as in ConvForward, and so is every value. Each
// branch's signal is contiguous, so the padded w_j = n_j·u of a trajectory
// is one vector product and z_j is written by corr in place.
func (c *CPU) ConvForwardT(s Seqs, mN, mG int, u, n, g, z, y []float64) {
	N, done := convForwardArgs(s, mN, mG, u, n, g, z, y)
	if done {
		return
	}
	sc := c.get(c.seqWorkers(s))
	grev := reversed(&sc[0].e, g[:mN*mG], mN, mG)
	overSeqs(sc, s, nil, func(sc *scratch, o, T int) {
		// W is padded with zeros for corrT's interleaved segments.
		W := buf(&sc.a, corrTPad(T, mG))
		clear(W[:mG-1])
		clear(W[mG-1+T:])
		w := W[mG-1 : mG-1+T]
		uo, yo := u[o:o+T], y[o:o+T]
		clear(yo)
		for j := range mN {
			nj, zj := n[j*N+o:j*N+o+T], z[j*N+o:j*N+o+T]
			mulRow(w, nj, uo)
			corrT(zj, grev[j*mG:(j+1)*mG], W, &sc.f)
			mulAddRow(yo, nj, zj)
		}
	})
	c.put(sc)
}

// ConvBackwardT is ConvBackward with n, z and dn branch-major, as
// ConvForwardT; every value is ConvBackward's.
func (c *CPU) ConvBackwardT(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
	N, done := convBackwardArgs(s, mN, mG, u, n, g, z, dy, dn, dg)
	if done {
		// m_G = 0: dn = dy·z, which convBackwardArgs wrote row-major.
		for j := range mN {
			for t := range N {
				dn[j*N+t] = dy[t] * z[j*N+t]
			}
		}
		return
	}
	withDg := dg != nil
	sc := c.get(c.seqWorkers(s))
	overSeqs(sc, s, func(sc *scratch) {
		if withDg {
			zbuf(&sc.acc, mN*mG)
		}
	}, func(sc *scratch, o, T int) {
		V := buf(&sc.a, corrTPad(T, mG))
		clear(V[T:])
		v := V[:T]
		C := buf(&sc.b, T)
		var wp []float64
		if withDg {
			wp = buf(&sc.c, mG-1+T)
			clear(wp[:mG-1])
		}
		uo, dyo := u[o:o+T], dy[o:o+T]
		for j := range mN {
			nj, zj, dnj := n[j*N+o:j*N+o+T], z[j*N+o:j*N+o+T], dn[j*N+o:j*N+o+T]
			mulRow(v, dyo, nj)
			corrT(C, g[j*mG:(j+1)*mG], V, &sc.f)
			mul2AddRow(dnj, dyo, zj, uo, C)
			if withDg {
				mulRow(wp[mG-1:], nj, uo)
				acc := sc.acc[j*mG : (j+1)*mG]
				for k := range acc {
					acc[k] += floats.Dot(v, wp[mG-1-k:mG-1-k+T])
				}
			}
		}
	})
	if withDg {
		for _, w := range sc {
			floats.Add(dg[:mN*mG], w.acc[:mN*mG])
		}
	}
	c.put(sc)
}

// mulRow sets dst[t] = a[t]·b[t].
func mulRow(dst, a, b []float64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	t := 0
	if fastDense && n >= 4 {
		mulT(&dst[0], &a[0], &b[0], n&^3)
		t = n &^ 3
	}
	for ; t < n; t++ {
		dst[t] = a[t] * b[t]
	}
}

// mulAddRow sets dst[t] += a[t]·b[t] (the product rounded first).
func mulAddRow(dst, a, b []float64) {
	n := len(dst)
	a, b = a[:n], b[:n]
	t := 0
	if fastDense && n >= 4 {
		mulAddT(&dst[0], &a[0], &b[0], n&^3)
		t = n &^ 3
	}
	for ; t < n; t++ {
		dst[t] += a[t] * b[t]
	}
}

// mul2AddRow sets dst[t] = a[t]·b[t] + c[t]·d[t] (both products rounded
// first).
func mul2AddRow(dst, a, b, c, d []float64) {
	n := len(dst)
	a, b, c, d = a[:n], b[:n], c[:n], d[:n]
	t := 0
	if fastDense && n >= 4 {
		mul2AddT(&dst[0], &a[0], &b[0], &c[0], &d[0], n&^3)
		t = n &^ 3
	}
	for ; t < n; t++ {
		dst[t] = a[t]*b[t] + c[t]*d[t]
	}
}
