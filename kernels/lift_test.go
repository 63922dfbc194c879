package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// transpose returns the rows×cols row-major a as cols×rows.
func transpose(a []float64, rows, cols int) []float64 {
	t := make([]float64, len(a))
	for r := range rows {
		for c := range cols {
			t[c*rows+r] = a[r*cols+c]
		}
	}
	return t
}

// bitsEqual reports the first index where a and b differ in their bits.
func bitsEqual(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			t.Fatalf("%s[%d] = %v, want %v bit for bit", what, i, got[i], want[i])
		}
	}
}

// setFastDense switches the vector dense kernels and returns the restore.
func setFastDense(fast bool) func() {
	old, oldT := fastDense, fastCorrT
	fastDense, fastCorrT = fast && haveFMA, fast && haveFMA
	return func() { fastDense, fastCorrT = old, oldT }
}

// liftCase is one network and batch for the lift kernels' tests.
type liftCase struct {
	sizes []int
	rows  int
}

var liftCases = []liftCase{
	{[]int{2, 4, 4, 10}, 2000}, // the msd step
	{[]int{2, 4, 4, 10}, 37},   // tails of 16 and of 4
	{[]int{3, 5, 1}, 130},
	{[]int{1, 7}, 3},
}

func (lc liftCase) inputs(seed uint64) (theta, x []float64, acts [][]float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	n := 0
	for l := range len(lc.sizes) - 1 {
		n += lc.sizes[l+1]*lc.sizes[l] + lc.sizes[l+1]
		acts = append(acts, make([]float64, lc.sizes[l+1]*lc.rows))
	}
	return randVec(rng, n, 1), randVec(rng, lc.rows*lc.sizes[0], 2), acts
}

// TestLiftForwardT compares LiftForwardT with DenseTanhForward layer by
// layer (transposed), bit for bit, for 1, 2 and 5 workers and both the
// vector and the Go kernels.
func TestLiftForwardT(t *testing.T) {
	for _, lc := range liftCases {
		theta, x, acts := lc.inputs(1)
		// The reference: row-major layers.
		var want [][]float64
		in, off := x, 0
		for l := range len(lc.sizes) - 1 {
			nin, nout := lc.sizes[l], lc.sizes[l+1]
			y := make([]float64, lc.rows*nout)
			(&CPU{Workers: 1}).DenseTanhForward(lc.rows, nin, nout, in, theta[off:off+nout*nin], theta[off+nout*nin:off+nout*nin+nout], y)
			off += nout*nin + nout
			want = append(want, transpose(y, lc.rows, nout))
			in = y
		}
		for _, fast := range []bool{true, false} {
			restore := setFastDense(fast)
			for _, c := range backends() {
				t.Run(fmt.Sprintf("%v/rows=%d/fast=%v/W=%d", lc.sizes, lc.rows, fast, c.Workers), func(t *testing.T) {
					c.LiftForwardT(lc.rows, lc.sizes, theta, x, acts)
					for l := range acts {
						bitsEqual(t, fmt.Sprintf("layer %d", l), acts[l], want[l])
					}
				})
			}
			restore()
		}
	}
}

// TestLiftBackwardT checks the gradient of LiftBackwardT against
// DenseTanhBackward's (to rounding: the sums run in another order), against
// central finite differences of ⟨c, n(θ)⟩, and the vector kernels against
// their Go twins bit for bit.
func TestLiftBackwardT(t *testing.T) {
	for _, lc := range liftCases {
		theta, x, acts := lc.inputs(2)
		L := len(lc.sizes) - 1
		mN := lc.sizes[L]
		rng := rand.New(rand.NewPCG(3, 3))
		dn := randVec(rng, mN*lc.rows, 1)
		c1 := &CPU{Workers: 1}
		c1.LiftForwardT(lc.rows, lc.sizes, theta, x, acts)

		// Row-major reference through DenseTanhForward/Backward.
		want := make([]float64, len(theta))
		var ys [][]float64
		in, off := x, 0
		var offs []int
		for l := range L {
			nin, nout := lc.sizes[l], lc.sizes[l+1]
			y := make([]float64, lc.rows*nout)
			c1.DenseTanhForward(lc.rows, nin, nout, in, theta[off:off+nout*nin], theta[off+nout*nin:off+nout*nin+nout], y)
			offs = append(offs, off)
			off += nout*nin + nout
			ys = append(ys, y)
			in = y
		}
		dy := transpose(dn, mN, lc.rows)
		for l := L - 1; l >= 0; l-- {
			nin, nout := lc.sizes[l], lc.sizes[l+1]
			o := offs[l]
			xl := x
			var dx []float64
			if l > 0 {
				xl = ys[l-1]
				dx = make([]float64, lc.rows*nin)
			}
			c1.DenseTanhBackward(lc.rows, nin, nout, xl, theta[o:o+nout*nin], ys[l], dy, dx, want[o:o+nout*nin], want[o+nout*nin:o+nout*nin+nout])
			dy = dx
		}

		var first []float64
		for _, fast := range []bool{true, false} {
			restore := setFastDense(fast)
			for _, c := range backends() {
				name := fmt.Sprintf("%v/rows=%d/fast=%v/W=%d", lc.sizes, lc.rows, fast, c.Workers)
				got := make([]float64, len(theta))
				got[0] = 1 // accumulated into
				c.LiftBackwardT(lc.rows, lc.sizes, theta, x, acts, dn, got)
				got[0]--
				checkClose(t, name, got, want, 1e-12)
				if c.Workers == 1 {
					if first == nil {
						first = got
					} else {
						bitsEqual(t, name+" against the vector kernels", got, first)
					}
				}
			}
			restore()
		}

		if lc.rows > 200 {
			continue
		}
		f := func() float64 {
			c1.LiftForwardT(lc.rows, lc.sizes, theta, x, acts)
			return dot(acts[L-1], dn)
		}
		fd := fdGrad(f, theta, 1e-6)
		checkClose(t, fmt.Sprintf("%v/rows=%d finite differences", lc.sizes, lc.rows), first, fd, 1e-7)
	}
}

// TestLiftDots checks dots4T against liftDotsGo bit for bit, and both
// against plain sums, for lengths around the blocks of 8.
func TestLiftDots(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 31, 250, 2000} {
		d := randVec(rng, n, 1)
		var x [4][]float64
		for i := range x {
			x[i] = randVec(rng, n, 1)
		}
		var fast, slow [5]float64
		restore := setFastDense(true)
		liftDots(d, &x, &fast)
		restore()
		restore = setFastDense(false)
		liftDots(d, &x, &slow)
		restore()
		if fast != slow {
			t.Errorf("n = %d: dots4T gives %v, liftDotsGo %v", n, fast, slow)
		}
		ones := make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
		for i, w := range []float64{dot(d, x[0]), dot(d, x[1]), dot(d, x[2]), dot(d, x[3]), dot(d, ones)} {
			if math.Abs(slow[i]-w) > 1e-14*float64(n+1) {
				t.Errorf("n = %d: sum %d = %v, plain sum %v", n, i, slow[i], w)
			}
		}
	}
}

// TestConvT compares ConvForwardT and ConvBackwardT with ConvForward and
// ConvBackward on the transposed gains, bit for bit, for every convolution
// case, 1, 2 and 5 workers, and both the vector and the Go row loops.
func TestConvT(t *testing.T) {
	for _, cc := range convCases {
		s, u, n, g, _, rng := cc.inputs(6)
		N := s.Total()
		dy := randVec(rng, N, 1)
		c1 := &CPU{Workers: 1}
		z, y := make([]float64, N*cc.mN), make([]float64, N)
		c1.ConvForward(s, cc.mN, cc.mG, u, n, g, z, y)
		dn, dg := make([]float64, N*cc.mN), make([]float64, cc.mN*cc.mG)
		c1.ConvBackward(s, cc.mN, cc.mG, u, n, g, z, dy, dn, dg)
		nT := transpose(n, N, cc.mN)
		for _, fc := range fastCases() {
			c := fc.c
			t.Run(fmt.Sprintf("%s/W=%d/fast=%v", cc.name, c.Workers, fc.fast), func(t *testing.T) {
				defer setFastDense(fc.fast)()
				zT, yT := make([]float64, N*cc.mN), make([]float64, N)
				c.ConvForwardT(s, cc.mN, cc.mG, u, nT, g, zT, yT)
				bitsEqual(t, "y", yT, y)
				bitsEqual(t, "z", zT, transpose(z, N, cc.mN))
				dnT, dgT := make([]float64, N*cc.mN), make([]float64, cc.mN*cc.mG)
				c.ConvBackwardT(s, cc.mN, cc.mG, u, nT, g, zT, dy, dnT, dgT)
				bitsEqual(t, "dn", dnT, transpose(dn, N, cc.mN))
				if c.Workers == 1 {
					bitsEqual(t, "dg", dgT, dg)
				} else {
					checkClose(t, "dg", dgT, dg, 1e-12)
				}
				c.ConvBackwardT(s, cc.mN, cc.mG, u, nT, g, zT, dy, dnT, nil)
				bitsEqual(t, "dn without dg", dnT, transpose(dn, N, cc.mN))
			})
		}
	}
}

// fastCases are the backends of backends() with the vector kernels on and off.
func fastCases() []struct {
	c    *CPU
	fast bool
} {
	var cs []struct {
		c    *CPU
		fast bool
	}
	for _, fast := range []bool{true, false} {
		for _, c := range backends() {
			cs = append(cs, struct {
				c    *CPU
				fast bool
			}{c, fast})
		}
	}
	return cs
}

// BenchmarkLiftT is the lifting network of one mini-batch step (2000 rows,
// 2→4→4→10), forward and backward: feature-major (LiftForwardT,
// LiftBackwardT) against the row-major layers (DenseTanhForward,
// DenseTanhBackward) with the gains transposed for the convolutions.
func BenchmarkLiftT(b *testing.B) {
	lc := liftCases[0]
	theta, x, acts := lc.inputs(5)
	mN := lc.sizes[len(lc.sizes)-1]
	dn := randVec(rand.New(rand.NewPCG(6, 6)), mN*lc.rows, 1)
	dtheta := make([]float64, len(theta))
	c := &CPU{Workers: 1}
	b.Run("feature-major", func(b *testing.B) {
		for b.Loop() {
			c.LiftForwardT(lc.rows, lc.sizes, theta, x, acts)
			c.LiftBackwardT(lc.rows, lc.sizes, theta, x, acts, dn, dtheta)
		}
	})
	L := len(lc.sizes) - 1
	ys, dys := make([][]float64, L), make([][]float64, L)
	for l := range L {
		ys[l] = make([]float64, lc.rows*lc.sizes[l+1])
		dys[l] = make([]float64, lc.rows*lc.sizes[l+1])
	}
	b.Run("row-major", func(b *testing.B) {
		for b.Loop() {
			in, off := x, 0
			var offs []int
			for l := range L {
				nin, nout := lc.sizes[l], lc.sizes[l+1]
				c.DenseTanhForward(lc.rows, nin, nout, in, theta[off:off+nout*nin], theta[off+nout*nin:off+nout*nin+nout], ys[l])
				offs = append(offs, off)
				off += nout*nin + nout
				in = ys[l]
			}
			for l := L - 1; l >= 0; l-- {
				nin, nout := lc.sizes[l], lc.sizes[l+1]
				o := offs[l]
				xl := x
				var dx []float64
				if l > 0 {
					xl, dx = ys[l-1], dys[l-1]
				}
				c.DenseTanhBackward(lc.rows, nin, nout, xl, theta[o:o+nout*nin], ys[l], dys[l], dx, dtheta[o:o+nout*nin], dtheta[o+nout*nin:o+nout*nin+nout])
			}
		}
	})
}
