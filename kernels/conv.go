package kernels

import "gonum.org/v1/gonum/floats"

// ConvForward implements Backend.ConvForward.
//
// Per trajectory the worker builds, for every branch j, the padded
// branch-major signal w_j = [0 × (mG−1), n_j(0)u(0), …, n_j(T−1)u(T−1)] in
// its scratch (one pass over the row-major gains, all branches at once) and
// computes z_j = corr(reverse(g_j), w_j): every tap is then a contiguous
// operation over the trajectory instead of a strided gather from the T×mN
// gains. z and y are written in a last pass over the rows, y(t) summed over
// the branches in order in a register.
func (c *CPU) ConvForward(s Seqs, mN, mG int, u, n, g, z, y []float64) {
	if _, done := convForwardArgs(s, mN, mG, u, n, g, z, y); done {
		return
	}
	sc := c.get(c.seqWorkers(s))
	grev := reversed(&sc[0].e, g[:mN*mG], mN, mG)
	overSeqs(sc, s, nil, func(sc *scratch, o, T int) {
		P := mG - 1 + T
		W := buf(&sc.a, mN*P)
		Z := buf(&sc.b, mN*T)
		for j := range mN {
			clear(W[j*P : j*P+mG-1])
		}
		for t := range T {
			ut := u[o+t]
			for j, nv := range n[(o+t)*mN : (o+t+1)*mN] {
				W[j*P+mG-1+t] = nv * ut
			}
		}
		for j := range mN {
			corr(Z[j*T:(j+1)*T], grev[j*mG:(j+1)*mG], W[j*P:(j+1)*P])
		}
		for t := range T {
			i := (o + t) * mN
			zr := z[i : i+mN]
			v := 0.0
			for j, nv := range n[i : i+mN] {
				zj := Z[j*T+t]
				zr[j] = zj
				v += nv * zj
			}
			y[o+t] = v
		}
	})
	c.put(sc)
}

// ConvBackward implements Backend.ConvBackward.
//
// With v_j(t) = dy(t) n_j(t) padded by mG−1 trailing zeros (built for all
// branches in one pass over the rows), the transposed convolution is
// c_j = corr(g_j, v_j), dn_j(t) = dy(t) z_j(t) + u(t) c_j(t), written in one
// pass over the rows; the tap gradient dg_j(k) = Σ_t v_j(t) w_j(t−k) is one
// dot product per tap against the padded w_j. dg is accumulated per worker
// and the workers' sums are added to dg in worker order.
func (c *CPU) ConvBackward(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
	if _, done := convBackwardArgs(s, mN, mG, u, n, g, z, dy, dn, dg); done {
		return
	}
	withDg := dg != nil
	sc := c.get(c.seqWorkers(s))
	overSeqs(sc, s, func(sc *scratch) {
		if withDg {
			zbuf(&sc.acc, mN*mG)
		}
	}, func(sc *scratch, o, T int) {
		P := T + mG - 1
		V := buf(&sc.a, mN*P)
		C := buf(&sc.b, mN*T)
		for j := range mN {
			clear(V[j*P+T : (j+1)*P])
		}
		for t := range T {
			dv := dy[o+t]
			for j, nv := range n[(o+t)*mN : (o+t+1)*mN] {
				V[j*P+t] = dv * nv
			}
		}
		for j := range mN {
			corr(C[j*T:(j+1)*T], g[j*mG:(j+1)*mG], V[j*P:(j+1)*P])
		}
		for t := range T {
			i := (o + t) * mN
			dv, ut := dy[o+t], u[o+t]
			zr, dr := z[i:i+mN], dn[i:i+mN]
			for j := range dr {
				dr[j] = dv*zr[j] + ut*C[j*T+t]
			}
		}
		if withDg {
			wp := buf(&sc.c, mG-1+T)
			clear(wp[:mG-1])
			for j := 0; j < mN; j++ {
				for t := range T {
					wp[mG-1+t] = n[(o+t)*mN+j] * u[o+t]
				}
				acc := sc.acc[j*mG : (j+1)*mG]
				v := V[j*P : j*P+T]
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

// LinearForward implements Backend.LinearForward.
func (c *CPU) LinearForward(s Seqs, mL int, u, lin, y []float64) {
	if _, done := linearForwardArgs(s, mL, u, lin, y); done {
		return
	}
	sc := c.get(c.seqWorkers(s))
	lrev := reversed(&sc[0].e, lin[:mL], 1, mL)
	overSeqs(sc, s, nil, func(sc *scratch, o, T int) {
		up := buf(&sc.a, mL-1+T)
		clear(up[:mL-1])
		copy(up[mL-1:], u[o:o+T])
		yl := buf(&sc.b, T)
		corr(yl, lrev, up)
		floats.Add(y[o:o+T], yl)
	})
	c.put(sc)
}

// LinearBackward implements Backend.LinearBackward: one dot product per tap
// against the zero-padded trajectory input, per-worker sums added in worker
// order.
func (c *CPU) LinearBackward(s Seqs, mL int, u, dy, dlin []float64) {
	if _, done := linearBackwardArgs(s, mL, u, dy, dlin); done {
		return
	}
	sc := c.get(c.seqWorkers(s))
	overSeqs(sc, s, func(sc *scratch) { zbuf(&sc.acc, mL) }, func(sc *scratch, o, T int) {
		up := buf(&sc.a, mL-1+T)
		clear(up[:mL-1])
		copy(up[mL-1:], u[o:o+T])
		d := dy[o : o+T]
		for k := range mL {
			sc.acc[k] += floats.Dot(d, up[mL-1-k:mL-1-k+T])
		}
	})
	for _, w := range sc {
		floats.Add(dlin[:mL], w.acc[:mL])
	}
	c.put(sc)
}

// reversed returns the rows×m matrix g with every row reversed, in *p. It is
// written once per call into worker 0's scratch field e (which no kernel uses
// otherwise) and only read by the workers.
func reversed(p *[]float64, g []float64, rows, m int) []float64 {
	r := buf(p, rows*m)
	for j := range rows {
		for k := range m {
			r[j*m+m-1-k] = g[j*m+k]
		}
	}
	return r
}
