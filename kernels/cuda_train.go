//go:build nfircuda

package kernels

import (
	"fmt"
	"math"
	"unsafe"
)

// OpenLoopLossGrad is a whole open-loop training step's forward and
// backward pass in one call, on the device: features from u and the given
// q (one-step-ahead, q(t) = y(t−1) of the data), the MLP (cl.Sizes), the
// branch bank and linear FIR, the loss
//
//	loss = (1/N) Σ_t (ŷ(t) − y(t))²   (N = s.Total())
//
// and its gradient, written (overwritten) into grad = [θ_N (Flatten order) |
// g (mN×mG) | lin (mL)]. Every intermediate (features, activations, gains,
// z, residuals, adjoints) stays on the device; per call θ_N, g and lin go
// up, and the loss and gradient come back. Declare u, q and y Resident to
// keep the data on the device too: then nothing of size N crosses the bus.
// cl.Feedback selects the FB features (q is ignored, and may be nil,
// without it).
func (c *CUDA) OpenLoopLossGrad(cl *ClosedLoop, s Seqs, theta, g, lin, u, q, y, grad []float64) float64 {
	const op = "OpenLoopLossGrad"
	cl.checkCall(op, s, theta, g, lin, u)
	N := s.Total()
	mN, mG, mL := cl.MN, cl.MG, cl.ML
	np := cl.NumParams()
	need(op, "y", len(y), N)
	if cl.Feedback && mN > 0 {
		need(op, "q", len(q), N)
	}
	need(op, "grad", len(grad), np+mN*mG+mL)
	clear(grad[:np+mN*mG+mL])
	if N == 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, dy := c.up("u", u, N), c.up("y", y, N)
	dth, dg, dl := c.up("theta", theta, np), c.up("g", g, mN*mG), c.up("lin", lin, mL)
	dgrad := c.buf("grad", np+mN*mG+mL)
	check(drvZero(dgrad, 8*(np+mN*mG+mL)))
	yhat := c.buf("ol_yhat", N)
	check(drvZero(yhat, 8*N))

	// Forward.
	var sizes, aoff []int
	var act, nrow, z uint64
	if mN > 0 {
		sizes = cl.Sizes
		width := 0
		for _, w := range sizes {
			aoff = append(aoff, width)
			width += w
		}
		act = c.buf("ol_act", N*width)
		F := cl.Features()
		dq := du // any valid pointer when there is no feedback
		if cl.Feedback {
			dq = c.up("q", q, N)
		}
		gr, bl := grid1(int64(N), 128)
		c.launch(kFeatures, gr, bl, 0, N, cl.R1, cl.R2, b2i(cl.Feedback), b2i(cl.HoldU), dptr(c.ts.p), dptr(du), dptr(dq),
			cl.UA, cl.UB, cl.QA, cl.QB, dptr(act))
		_ = F
		woff := 0
		for l := 0; l+1 < len(sizes); l++ {
			in, out := sizes[l], sizes[l+1]
			gr, bl := grid1(int64(N)*int64(out), 128)
			c.launch(kDenseFwd, gr, bl, 0, N, in, out, dptr(act+uint64(8*N*aoff[l])), dptr(dth+uint64(8*woff)),
				dptr(dth+uint64(8*(woff+out*in))), dptr(act+uint64(8*N*aoff[l+1])))
			woff += out*in + out
		}
		nrow = act + uint64(8*N*aoff[len(sizes)-1])
		z = c.buf("ol_z", N*mN)
		c.convFwd(N, mN, mG, du, nrow, dg, z, yhat)
	}
	if mL > 0 {
		gr, bl := grid1(int64(N), 128)
		c.launch(kLinFwd, gr, bl, 0, N, mL, dptr(c.ts.p), dptr(du), dptr(dl), dptr(yhat))
	}
	r, ady := c.buf("ol_r", N), c.buf("ol_dy", N)
	gr, bl := grid1(int64(N), 128)
	c.launch(kResidual, gr, bl, 0, N, dptr(yhat), dptr(dy), 2/float64(N), dptr(r), dptr(ady))
	dloss := c.buf("ol_loss", 1)
	c.reduceRows(N, 1, 1, r, r, dloss, false)

	// Backward.
	if mL > 0 {
		c.xcorr(N, 1, mL, ady, 0, du, 0, dgrad+uint64(8*(np+mN*mG)), false)
	}
	if mN > 0 {
		dn := c.buf("ol_dn", N*mN)
		c.convBwd(N, mN, mG, du, nrow, dg, z, ady, dn)
		c.xcorr(N, mN, mG, ady, nrow, du, nrow, dgrad+uint64(8*np), false)
		L := len(sizes) - 1
		pre, pre2 := c.buf("ol_pre", N*maxInts(sizes)), c.buf("ol_pre2", N*maxInts(sizes))
		dx := c.buf("ol_dx", N*maxInts(sizes))
		gr, bl := grid1(int64(N)*int64(mN), 128)
		c.launch(kDensePre, gr, bl, 0, int64(N)*int64(mN), dptr(nrow), dptr(dn), dptr(pre))
		woff := np
		for l := L - 1; l >= 0; l-- {
			in, out := sizes[l], sizes[l+1]
			woff -= out*in + out
			h := act + uint64(8*N*aoff[l])
			c.reduceRows(N, out, in, pre, h, dgrad+uint64(8*woff), false)
			c.reduceRows(N, out, 1, pre, 0, dgrad+uint64(8*(woff+out*in)), false)
			if l > 0 {
				gr, bl := grid1(int64(N)*int64(in), 128)
				c.launch(kDenseDx, gr, bl, 0, N, in, out, dptr(pre), dptr(dth+uint64(8*woff)), dptr(dx))
				c.launch(kDensePre, gr, bl, 0, int64(N)*int64(in), dptr(h), dptr(dx), dptr(pre2))
				pre, pre2 = pre2, pre
			}
		}
	}
	down(grad, dgrad, np+mN*mG+mL)
	var loss [1]float64
	down(loss[:], dloss, 1)
	return loss[0] / float64(N)
}

func maxInts(v []int) int {
	m := 1
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// AdamStep is one AdamW step on the device with the maths of trainer/adam.go
// (β1 = 0.9, β2 = 0.999, ε = 1e-8, step count t ≥ 1), after scaling grad
// to Euclidean norm ≤ clip (clip ≤ 0: none): theta, m and v are updated in
// place; grad is not modified (the scaling is applied on the fly). It
// returns the norm of grad before clipping.
func (c *CUDA) AdamStep(theta, grad, m, v []float64, t int, lr, wd, clip float64) float64 {
	const op = "AdamStep"
	n := len(theta)
	need(op, "grad", len(grad), n)
	need(op, "m", len(m), n)
	need(op, "v", len(v), n)
	if t < 1 {
		panic(fmt.Errorf("kernels: %s: step %d, want ≥ 1: %w", op, t, ErrShape))
	}
	if n == 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	const b1, b2, eps = 0.9, 0.999, 1e-8
	dth, dgr, dm, dv := c.up("adam_theta", theta, n), c.up("adam_grad", grad, n), c.up("adam_m", m, n), c.up("adam_v", v, n)
	nsq := c.buf("adam_nsq", 1)
	c.reduceRows(n, 1, 1, dgr, dgr, nsq, false)
	c1 := 1 - math.Pow(b1, float64(t))
	c2 := 1 - math.Pow(b2, float64(t))
	gr, bl := grid1(int64(n), 128)
	c.launch(kAdam, gr, bl, 0, n, dptr(dth), dptr(dm), dptr(dv), dptr(dgr), dptr(nsq), clip, lr, wd, b1, b2, c1, c2, eps)
	down(theta, dth, n)
	down(m, dm, n)
	down(v, dv, n)
	var s [1]float64
	check(drvDtoH(unsafe.Pointer(&s[0]), nsq, 8))
	return math.Sqrt(s[0])
}
