package kernels

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/floats"
)

// convForwardGather is ConvForward as it was before the loop interchange
// (one strided gather and scatter per branch), its bit-exact reference.
//
// Per trajectory and branch j the worker builds the padded branch-major
// signal w_j = [0 × (mG−1), n_j(0)u(0), …, n_j(T−1)u(T−1)] in its scratch and
// computes z_j = corr(reverse(g_j), w_j): every tap is then a contiguous AXPY
// over the trajectory instead of a strided gather from the T×mN gains.
func (c *CPU) convForwardGather(s Seqs, mN, mG int, u, n, g, z, y []float64) {
	if _, done := convForwardArgs(s, mN, mG, u, n, g, z, y); done {
		return
	}
	sc := c.get(c.seqWorkers(s))
	grev := reversed(&sc[0].e, g[:mN*mG], mN, mG)
	overSeqs(sc, s, nil, func(sc *scratch, o, T int) {
		wp := buf(&sc.a, mG-1+T)
		clear(wp[:mG-1])
		zj := buf(&sc.b, T)
		yt := zbuf(&sc.c, T)
		for j := 0; j < mN; j++ {
			for t := range T {
				wp[mG-1+t] = n[(o+t)*mN+j] * u[o+t]
			}
			corr(zj, grev[j*mG:(j+1)*mG], wp)
			for t, v := range zj {
				i := (o+t)*mN + j
				z[i] = v
				yt[t] += n[i] * v
			}
		}
		copy(y[o:o+T], yt)
	})
	c.put(sc)
}

// convBackwardGather is ConvBackward before the loop interchange, its
// bit-exact reference.
//
// With v_j(t) = dy(t) n_j(t) padded by mG−1 trailing zeros, the transposed
// convolution is c_j = corr(g_j, v_j), dn_j(t) = dy(t) z_j(t) + u(t) c_j(t);
// the tap gradient dg_j(k) = Σ_t v_j(t) w_j(t−k) is one dot product per tap
// against the padded w_j. dg is accumulated per worker and the workers' sums
// are added to dg in worker order.
func (c *CPU) convBackwardGather(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
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
		vp := buf(&sc.a, T+mG-1)
		clear(vp[T:])
		cj := buf(&sc.b, T)
		var wp []float64
		if withDg {
			wp = buf(&sc.c, mG-1+T)
			clear(wp[:mG-1])
		}
		for j := 0; j < mN; j++ {
			for t := range T {
				vp[t] = dy[o+t] * n[(o+t)*mN+j]
			}
			corr(cj, g[j*mG:(j+1)*mG], vp)
			for t, v := range cj {
				i := (o+t)*mN + j
				dn[i] = dy[o+t]*z[i] + u[o+t]*v
			}
			if withDg {
				for t := range T {
					wp[mG-1+t] = n[(o+t)*mN+j] * u[o+t]
				}
				acc := sc.acc[j*mG : (j+1)*mG]
				v := vp[:T]
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

// TestConvInterchange checks ConvForward and ConvBackward against the
// per-branch gather loops they replaced, bit for bit, with either corr.
func TestConvInterchange(t *testing.T) {
	keep := fastCorr
	defer func() { fastCorr = keep }()
	for _, fast := range []bool{false, true} {
		if fast && !haveFMA {
			continue
		}
		fastCorr = fast
		for _, cc := range convCases {
			if cc.mN == 0 {
				continue
			}
			t.Run(fmt.Sprintf("fma=%v/%s", fast, cc.name), func(t *testing.T) {
				s, u, n, g, _, rng := cc.inputs(11)
				N := s.Total()
				dy := randVec(rng, N, 1)
				for _, be := range backends() {
					z0, y0 := make([]float64, N*cc.mN), make([]float64, N)
					z1, y1 := make([]float64, N*cc.mN), make([]float64, N)
					be.convForwardGather(s, cc.mN, cc.mG, u, n, g, z0, y0)
					be.ConvForward(s, cc.mN, cc.mG, u, n, g, z1, y1)
					dn0, dn1 := make([]float64, N*cc.mN), make([]float64, N*cc.mN)
					dg0, dg1 := make([]float64, cc.mN*cc.mG), make([]float64, cc.mN*cc.mG)
					be.convBackwardGather(s, cc.mN, cc.mG, u, n, g, z0, dy, dn0, dg0)
					be.ConvBackward(s, cc.mN, cc.mG, u, n, g, z1, dy, dn1, dg1)
					for _, p := range []struct {
						name      string
						want, got []float64
					}{{"z", z0, z1}, {"y", y0, y1}, {"dn", dn0, dn1}, {"dg", dg0, dg1}} {
						for i := range p.want {
							if math.Float64bits(p.got[i]) != math.Float64bits(p.want[i]) {
								t.Fatalf("workers %d: %s[%d] = %v, want %v", be.Workers, p.name, i, p.got[i], p.want[i])
							}
						}
					}
				}
			})
		}
	}
}
