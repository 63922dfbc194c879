package kernels

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// ClosedLoop is the shape of an NFIR operator simulated in closed loop (the
// deployed FB model feeding back its own output), for BPTT.
//
// For every trajectory (samples t = 0…T−1, all signals zero before t = 0):
//
//	q(t)  = ŷ(t−1), q(0) = 0                                  (Feedback only)
//	p(t)  = [UA·u(t−R1+1)+UB, …, UA·u(t)+UB,  QA·q(t−R2+1)+QB, …, QA·q(t)+QB]
//	        (oldest first; a sample before t = 0 is a raw 0, so its feature is UB or QB,
//	         except that with HoldU a u-sample before t = 0 is u(0);
//	         without Feedback only the R1 u-features)
//	h_0 = p(t),  h_{l+1} = tanh(W_l h_l + b_l)  (l = 0…L−1, tanh on the output layer too)
//	n(t) = h_L (MN gains)
//	z_j(t) = Σ_{k<MG} g_j(k) n_j(t−k) u(t−k)
//	ŷ(t) = Σ_j n_j(t) z_j(t) + Σ_{k<ML} lin(k) u(t−k)
//
// θ_N (theta) is the MLP in model.MLP.Flatten order: for each layer l,
// W_l (Sizes[l+1]×Sizes[l], row-major) then b_l. The scalers are affine,
// s(x) = A·x + B; for a data.Scaler {Scale, Mean, Std},
// A = 1/(Scale·Std) and B = −Mean/Std.
type ClosedLoop struct {
	MN, MG, ML     int     // branches m_N, taps per branch m_G, linear taps m_L
	R1, R2         int     // memories of u and (Feedback only) q in the features
	Feedback       bool    // q(t) = ŷ(t−1) features; without it R2 is ignored
	HoldU          bool    // u-features before t = 0 repeat u(0) (model.Structure.HoldStart)
	Sizes          []int   // MLP widths: Sizes[0] = Features(), Sizes[L] = MN (unused when MN = 0)
	UA, UB, QA, QB float64 // feature scalers s_u(x) = UA·x+UB, s_q(x) = QA·x+QB
}

// Features returns the width of p(t): R1, plus R2 with Feedback.
func (c *ClosedLoop) Features() int {
	if c.Feedback {
		return c.R1 + c.R2
	}
	return c.R1
}

// NumParams returns the length of θ_N (0 when MN = 0).
func (c *ClosedLoop) NumParams() int {
	if c.MN == 0 {
		return 0
	}
	n := 0
	for l := 0; l+1 < len(c.Sizes); l++ {
		n += c.Sizes[l+1]*c.Sizes[l] + c.Sizes[l+1]
	}
	return n
}

// Check reports whether the shape is consistent; the error wraps ErrShape.
func (c *ClosedLoop) Check() error {
	if c.MN < 0 || c.MG < 0 || c.ML < 0 || c.R1 < 0 || c.R2 < 0 {
		return fmt.Errorf("kernels: ClosedLoop: negative size in %+v: %w", *c, ErrShape)
	}
	for _, v := range []float64{c.UA, c.UB, c.QA, c.QB} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("kernels: ClosedLoop: non-finite scaler coefficient in %+v: %w", *c, ErrShape)
		}
	}
	if c.MN == 0 {
		return nil
	}
	L := len(c.Sizes) - 1
	switch {
	case c.MG == 0:
		return fmt.Errorf("kernels: ClosedLoop: %d branches with 0 taps: %w", c.MN, ErrShape)
	case c.Features() == 0:
		return fmt.Errorf("kernels: ClosedLoop: the lifting network has no inputs: %w", ErrShape)
	case L < 1:
		return fmt.Errorf("kernels: ClosedLoop: MLP sizes %v need an input and an output layer: %w", c.Sizes, ErrShape)
	case c.Sizes[0] != c.Features() || c.Sizes[L] != c.MN:
		return fmt.Errorf("kernels: ClosedLoop: MLP sizes %v, want %d inputs and %d outputs: %w", c.Sizes, c.Features(), c.MN, ErrShape)
	}
	for _, w := range c.Sizes {
		if w <= 0 {
			return fmt.Errorf("kernels: ClosedLoop: MLP sizes %v: %w", c.Sizes, ErrShape)
		}
	}
	return nil
}

// Forward runs ClosedLoopForward on a package-level CPU backend with
// GOMAXPROCS workers.
func (c *ClosedLoop) Forward(s Seqs, theta, g, lin, u, y []float64, tape *Tape) {
	defaultCPU.ClosedLoopForward(c, s, theta, g, lin, u, y, tape)
}

// Backward runs ClosedLoopBackward on a package-level CPU backend with
// GOMAXPROCS workers.
func (c *ClosedLoop) Backward(s Seqs, theta, g, lin, u []float64, tape *Tape, dy, dtheta, dg, dlin []float64) {
	defaultCPU.ClosedLoopBackward(c, s, theta, g, lin, u, tape, dy, dtheta, dg, dlin)
}

var defaultCPU = &CPU{}

// Tape is what ClosedLoopForward records for ClosedLoopBackward. The CPU
// backend fills Act and Z; their layout is part of the contract so that
// another backend can fill or read them (a CUDA backend may instead keep its
// own device buffers in Dev). A Tape is reused across calls: its slices only
// grow.
type Tape struct {
	// Act[l] holds h_l(t) for every global sample t, Total()×Sizes[l]
	// row-major: Act[0] the features p(t), Act[L] the gains n(t).
	Act [][]float64
	// Z holds z_j(t), Total()×MN row-major.
	Z []float64
	// Dev is backend-private state; the CPU backend ignores it.
	Dev any
}

// Gains returns the gains n(t) (Total()×MN row-major) of the last forward
// pass, or nil without branches.
func (tp *Tape) Gains() []float64 {
	if len(tp.Act) == 0 {
		return nil
	}
	return tp.Act[len(tp.Act)-1]
}

// checkBackward checks ClosedLoopBackward's arguments, beyond checkCall's:
// the output gradient, the tape and the optional accumulators.
func (c *ClosedLoop) checkBackward(op string, s Seqs, theta, g, lin, u []float64, tape *Tape, dy, dtheta, dg, dlin []float64) {
	c.checkCall(op, s, theta, g, lin, u)
	need(op, "dy", len(dy), s.Total())
	if tape == nil {
		panic(fmt.Errorf("kernels: %s: nil tape: %w", op, ErrShape))
	}
	if dtheta != nil {
		need(op, "dtheta", len(dtheta), c.NumParams())
	}
	if dg != nil {
		need(op, "dg", len(dg), c.MN*c.MG)
	}
	if dlin != nil {
		need(op, "dlin", len(dlin), c.ML)
	}
}

func (c *ClosedLoop) checkCall(op string, s Seqs, theta, g, lin, u []float64) {
	if err := c.Check(); err != nil {
		panic(fmt.Errorf("kernels: %s: %w", op, err))
	}
	checkSeqs(op, s)
	N := s.Total()
	need(op, "theta", len(theta), c.NumParams())
	need(op, "g", len(g), c.MN*c.MG)
	need(op, "lin", len(lin), c.ML)
	need(op, "u", len(u), N)
}

// sharedTaps writes the reversed branch taps (MN×MG) followed by the reversed
// linear taps into worker 0's table.
func (c *ClosedLoop) sharedTaps(sc0 *scratch, g, lin []float64) (grev, lrev []float64) {
	tab := buf(&sc0.e, c.MN*c.MG+c.ML)
	grev, lrev = tab[:c.MN*c.MG], tab[c.MN*c.MG:]
	for j := range c.MN {
		for k := range c.MG {
			grev[j*c.MG+c.MG-1-k] = g[j*c.MG+k]
		}
	}
	for k := range c.ML {
		lrev[c.ML-1-k] = lin[k]
	}
	return grev, lrev
}

// ClosedLoopForward implements Backend.ClosedLoopForward: one trajectory at a
// time per worker (fixed partition), the time loop inside. The branch
// convolution at step t is one dot product per branch between the reversed
// taps and the worker's padded branch-major history w_j = n_j u, appended to
// as the gains become known; the linear FIR does not depend on ŷ and is
// computed for the whole trajectory first.
func (cpu *CPU) ClosedLoopForward(c *ClosedLoop, s Seqs, theta, g, lin, u, y []float64, tape *Tape) {
	const op = "ClosedLoopForward"
	c.checkCall(op, s, theta, g, lin, u)
	N := s.Total()
	need(op, "y", len(y), N)
	if tape == nil {
		panic(fmt.Errorf("kernels: %s: nil tape: %w", op, ErrShape))
	}
	mN, mG, mL := c.MN, c.MG, c.ML
	L := 0
	if mN > 0 {
		L = len(c.Sizes) - 1
		if len(tape.Act) != L+1 {
			tape.Act = make([][]float64, L+1)
		}
		for l := range L + 1 {
			tape.Act[l] = buf(&tape.Act[l], N*c.Sizes[l])
		}
	} else {
		tape.Act = tape.Act[:0]
	}
	tape.Z = buf(&tape.Z, N*mN)
	F := c.Features()
	sc := cpu.get(cpu.seqWorkers(s))
	grev, lrev := c.sharedTaps(sc[0], g, lin)
	overSeqs(sc, s, nil, func(sc *scratch, o, T int) {
		yo := y[o : o+T]
		if mL > 0 {
			up := buf(&sc.b, mL-1+T)
			clear(up[:mL-1])
			copy(up[mL-1:], u[o:o+T])
			corr(yo, lrev, up)
		} else {
			clear(yo)
		}
		if mN == 0 {
			return
		}
		P := mG - 1 + T // padded length of one branch history
		wp := buf(&sc.a, mN*P)
		for j := range mN {
			clear(wp[j*P : j*P+mG-1])
		}
		for t := range T {
			gt := o + t
			p := tape.Act[0][gt*F : (gt+1)*F]
			for i := range c.R1 {
				s := t - c.R1 + 1 + i
				if c.HoldU {
					s = max(s, 0)
				}
				v := 0.0
				if s >= 0 {
					v = u[o+s]
				}
				p[i] = c.UA*v + c.UB
			}
			if c.Feedback {
				for i := range c.R2 {
					v := 0.0
					if s := t - c.R2 + 1 + i; s >= 1 {
						v = yo[s-1]
					}
					p[c.R1+i] = c.QA*v + c.QB
				}
			}
			mlpRow(c.Sizes, theta, tape.Act, gt)
			n := tape.Act[L][gt*mN : (gt+1)*mN]
			z := tape.Z[gt*mN : (gt+1)*mN]
			ut := u[gt]
			acc := 0.0
			for j, nj := range n {
				wj := wp[j*P : (j+1)*P]
				wj[mG-1+t] = nj * ut
				zj := floats.Dot(grev[j*mG:(j+1)*mG], wj[t:t+mG])
				z[j] = zj
				acc += nj * zj
			}
			yo[t] += acc
		}
	})
	cpu.put(sc)
}

// mlpRow evaluates the MLP for sample gt: act[l+1] row gt from act[l] row gt.
func mlpRow(sizes []int, theta []float64, act [][]float64, gt int) {
	off := 0
	for l := 0; l+1 < len(sizes); l++ {
		in, out := sizes[l], sizes[l+1]
		W := theta[off : off+out*in]
		b := theta[off+out*in : off+out*in+out]
		off += out*in + out
		h := act[l][gt*in : (gt+1)*in]
		hn := act[l+1][gt*out : (gt+1)*out]
		for o := range hn {
			s := b[o]
			for i, w := range W[o*in : (o+1)*in] {
				s += w * h[i]
			}
			hn[o] = math.Tanh(s)
		}
	}
}

// ClosedLoopBackward implements Backend.ClosedLoopBackward by reverse-mode
// differentiation of ClosedLoopForward, backwards in time per trajectory.
// With a_y(t) the adjoint of ŷ(t) (initialised to dy(t)) and a_w_j the
// adjoint of w_j = n_j u, at step t (from T−1 down to 0):
//
//  1. a_y(t) is complete: its only later uses, the q-features of steps
//     t+1…t+R2, have already been processed.
//  2. For every branch: a_n_j(t) = a_y(t) z_j(t); a_w_j(t−k) += a_y(t) n_j(t) g_j(k);
//     dg_j(k) += a_y(t) n_j(t) w_j(t−k).  dlin(k) += a_y(t) u(t−k).
//  3. a_w_j(t) is now complete (it only receives from steps ≥ t):
//     a_n_j(t) += a_w_j(t) u(t).
//  4. a_n(t) is backpropagated through the MLP at t (tanh' = 1 − h²) into
//     dθ, and into the features; the q-features give
//     a_y(t−R2+i) += QA · a_p_{R1+i}(t) for the sources t−R2+1+i ≥ 1.
//
// The cost is O(T·(MN·MG + MLP)) per trajectory. Accumulators (dθ, dg, dlin)
// are private per worker, summed over its trajectories in order, and added to
// the outputs in worker order.
func (cpu *CPU) ClosedLoopBackward(c *ClosedLoop, s Seqs, theta, g, lin, u []float64, tape *Tape, dy, dtheta, dg, dlin []float64) {
	const op = "ClosedLoopBackward"
	c.checkBackward(op, s, theta, g, lin, u, tape, dy, dtheta, dg, dlin)
	N := s.Total()
	mN, mG, mL := c.MN, c.MG, c.ML
	np := c.NumParams()
	L := 0
	if mN > 0 {
		L = len(c.Sizes) - 1
		if len(tape.Act) != L+1 {
			panic(fmt.Errorf("kernels: %s: tape has %d activation layers, want %d: %w", op, len(tape.Act), L+1, ErrShape))
		}
		for l := range L + 1 {
			need(op, fmt.Sprintf("tape.Act[%d]", l), len(tape.Act[l]), N*c.Sizes[l])
		}
		need(op, "tape.Z", len(tape.Z), N*mN)
	}
	wantTheta := dtheta != nil && mN > 0
	wantG := dg != nil && mN > 0
	wantLin := dlin != nil && mL > 0
	mlpBack := mN > 0 && (wantTheta || c.Feedback)
	wmax := 0
	for _, w := range c.Sizes {
		wmax = max(wmax, w)
	}
	sc := cpu.get(cpu.seqWorkers(s))
	grev, _ := c.sharedTaps(sc[0], g, lin)
	overSeqs(sc, s, func(sc *scratch) {
		if wantG {
			zbuf(&sc.acc, mN*mG)
		}
		if wantLin {
			zbuf(&sc.acc2, mL)
		}
		if wantTheta {
			zbuf(&sc.acc3, np)
		}
	}, func(sc *scratch, o, T int) {
		ay := buf(&sc.b, T)
		copy(ay, dy[o:o+T])
		var up []float64
		if wantLin {
			up = buf(&sc.c, mL-1+T)
			clear(up[:mL-1])
			copy(up[mL-1:], u[o:o+T])
		}
		P := mG - 1 + T
		var wp, awp, b0, b1 []float64
		if mN > 0 {
			wp = buf(&sc.a, mN*P)
			awp = zbuf(&sc.d, mN*P)
			n := tape.Act[L]
			for j := range mN {
				wj := wp[j*P : (j+1)*P]
				clear(wj[:mG-1])
				for t := range T {
					wj[mG-1+t] = n[(o+t)*mN+j] * u[o+t]
				}
			}
			db := buf(&sc.f, 2*wmax)
			b0, b1 = db[:wmax:wmax], db[wmax:2*wmax:2*wmax]
		}
		for t := T - 1; t >= 0; t-- {
			gt := o + t
			a := ay[t]
			if wantLin {
				floats.AddScaled(sc.acc2[:mL], a, up[t:t+mL])
			}
			if mN == 0 {
				continue
			}
			n := tape.Act[L][gt*mN : (gt+1)*mN]
			z := tape.Z[gt*mN : (gt+1)*mN]
			ut := u[gt]
			for j, nj := range n {
				cj := a * nj
				if cj != 0 {
					floats.AddScaled(awp[j*P+t:j*P+t+mG], cj, grev[j*mG:(j+1)*mG])
					if wantG {
						floats.AddScaled(sc.acc[j*mG:(j+1)*mG], cj, wp[j*P+t:j*P+t+mG])
					}
				}
				// a_n_j(t), then through the output tanh.
				an := a*z[j] + awp[j*P+mG-1+t]*ut
				b0[j] = an * (1 - nj*nj)
			}
			if !mlpBack {
				continue
			}
			// Backpropagate delta (the pre-activation adjoint of layer l+1)
			// down the layers at time t.
			off := np
			d, other := b0[:mN], b1
			for l := L - 1; l >= 0; l-- {
				in, out := c.Sizes[l], c.Sizes[l+1]
				off -= out*in + out
				W := theta[off : off+out*in]
				h := tape.Act[l][gt*in : (gt+1)*in]
				if wantTheta {
					dW := sc.acc3[off : off+out*in]
					dB := sc.acc3[off+out*in : off+out*in+out]
					for oi, dv := range d {
						dB[oi] += dv
						row := dW[oi*in : (oi+1)*in]
						for i, hv := range h {
							row[i] += dv * hv
						}
					}
				}
				if l == 0 && !c.Feedback {
					break
				}
				pv := other[:in]
				clear(pv)
				for oi, dv := range d {
					for i, w := range W[oi*in : (oi+1)*in] {
						pv[i] += w * dv
					}
				}
				if l > 0 {
					for i, hv := range h {
						pv[i] *= 1 - hv*hv
					}
				}
				d, other = pv, d[:cap(d)]
				if l == 0 {
					// d is now a_p(t); feed the q-features back in time.
					for i := range c.R2 {
						if s := t - c.R2 + 1 + i; s >= 1 {
							ay[s-1] += c.QA * d[c.R1+i]
						}
					}
				}
			}
		}
	})
	for _, w := range sc {
		if wantG {
			for j := range mN {
				for k := range mG {
					dg[j*mG+k] += w.acc[j*mG+mG-1-k]
				}
			}
		}
		if wantLin {
			for k := range mL {
				dlin[k] += w.acc2[mL-1-k]
			}
		}
		if wantTheta {
			floats.Add(dtheta[:np], w.acc3[:np])
		}
	}
	cpu.put(sc)
}
