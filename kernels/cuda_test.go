//go:build nfircuda

package kernels

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// Parity tests of the CUDA backend against the CPU backend. They need a GPU
// (go test -tags nfircuda) and skip without one; with -tags 'nfircuda cudaemu' they
// run the same kernels on the CPU emulator instead (cuda_emu.cpp).
//
// Tolerance: 1e-9, relative to the largest magnitude of the reference
// (max-norm). Both backends compute in float64 but sum in different orders
// (the GPU: per-thread tap loops, fixed-group two-pass reductions; the CPU:
// blocked correlations, per-worker sums), so they agree to rounding, about
// 1e-14..1e-12 here, never bitwise; 1e-9 leaves room for the longer sums of
// the closed loop, where rounding differences are fed back through ŷ.
const cudaTol = 1e-9

func newTestCUDA(t testing.TB) *CUDA {
	t.Helper()
	c, err := NewCUDA()
	if errors.Is(err, ErrNoCUDA) {
		t.Skipf("no GPU: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("device: %s", c.Device())
	return c
}

func cuRand(rng *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = scale * (2*rng.Float64() - 1)
	}
	return x
}

func cuClose(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: length %d, want %d", what, len(got), len(want))
	}
	ref, diff := 0.0, 0.0
	for i := range want {
		ref = max(ref, math.Abs(want[i]))
		d := math.Abs(got[i] - want[i])
		if math.IsNaN(got[i]) {
			d = math.Inf(1)
		}
		diff = max(diff, d)
	}
	rel := diff / max(ref, 1e-300)
	if !(rel <= cudaTol) {
		t.Errorf("%s: relative max-norm error %.3g > %g", what, rel, cudaTol)
	} else {
		t.Logf("%s: relative error %.2g", what, rel)
	}
}

func cuClone(x []float64) []float64 { return append([]float64(nil), x...) }

// cuSeqs: ragged trajectories, one empty and one shorter than the taps.
func cuSeqs(t *testing.T) Seqs {
	s, err := NewSeqs(37, 0, 53, 5, 61)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCUDAConv(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	rng := rand.New(rand.NewPCG(1, 1))
	s := cuSeqs(t)
	N, mN, mG := s.Total(), 3, 7
	u, n, g := cuRand(rng, N, 1), cuRand(rng, N*mN, 1), cuRand(rng, mN*mG, 1)
	zc, yc := make([]float64, N*mN), make([]float64, N)
	zg, yg := make([]float64, N*mN), make([]float64, N)
	cpu := &CPU{Workers: 2}
	cpu.ConvForward(s, mN, mG, u, n, g, zc, yc)
	c.ConvForward(s, mN, mG, u, n, g, zg, yg)
	cuClose(t, "z", zg, zc)
	cuClose(t, "y", yg, yc)

	dy := cuRand(rng, N, 1)
	dg0 := cuRand(rng, mN*mG, 1) // accumulation onto existing values
	dnc, dgc := make([]float64, N*mN), cuClone(dg0)
	dng, dgg := make([]float64, N*mN), cuClone(dg0)
	cpu.ConvBackward(s, mN, mG, u, n, g, zc, dy, dnc, dgc)
	c.ConvBackward(s, mN, mG, u, n, g, zc, dy, dng, dgg)
	cuClose(t, "dn", dng, dnc)
	cuClose(t, "dg", dgg, dgc)
}

// TestCUDABankTiles runs the tiled bank kernels (conv_fwd, conv_bwd_dn,
// xcorr_partial) on shapes that cross their tile, tap-chunk and group
// boundaries, which the small shapes above never reach: several time tiles
// with trajectory starts inside a tile, m_G above one chunk of 256 taps
// (and longer than a record), and enough samples for several reduction
// groups and several shared-memory tiles per group.
func TestCUDABankTiles(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	for i, tc := range []struct {
		name    string
		lengths []int
		mN, mG  int
	}{
		{"tiles", []int{300, 0, 700, 3, 500}, 2, 7},
		{"chunks", []int{600, 5, 900}, 1, 300},
		{"groups", []int{2500, 2600, 10}, 2, 40},
		{"chunks+groups", []int{4100, 97}, 1, 513},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(10, uint64(i)))
			s, err := NewSeqs(tc.lengths...)
			if err != nil {
				t.Fatal(err)
			}
			N, mN, mG := s.Total(), tc.mN, tc.mG
			u, n, g := cuRand(rng, N, 1), cuRand(rng, N*mN, 1), cuRand(rng, mN*mG, 1)
			cpu := &CPU{Workers: 2}
			zc, yc := make([]float64, N*mN), make([]float64, N)
			zg, yg := make([]float64, N*mN), make([]float64, N)
			cpu.ConvForward(s, mN, mG, u, n, g, zc, yc)
			c.ConvForward(s, mN, mG, u, n, g, zg, yg)
			cuClose(t, "z", zg, zc)
			cuClose(t, "y", yg, yc)
			dy := cuRand(rng, N, 1)
			dnc, dgc := make([]float64, N*mN), make([]float64, mN*mG)
			dng, dgg := make([]float64, N*mN), make([]float64, mN*mG)
			cpu.ConvBackward(s, mN, mG, u, n, g, zc, dy, dnc, dgc)
			c.ConvBackward(s, mN, mG, u, n, g, zc, dy, dng, dgg)
			cuClose(t, "dn", dng, dnc)
			cuClose(t, "dg", dgg, dgc)
			dlc, dlg := make([]float64, mG), make([]float64, mG)
			cpu.LinearBackward(s, mG, u, dy, dlc)
			c.LinearBackward(s, mG, u, dy, dlg)
			cuClose(t, "dlin", dlg, dlc)
		})
	}
}

func TestCUDALinear(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	rng := rand.New(rand.NewPCG(2, 2))
	s := cuSeqs(t)
	N, mL := s.Total(), 9
	u, lin, y0 := cuRand(rng, N, 1), cuRand(rng, mL, 1), cuRand(rng, N, 1)
	cpu := &CPU{Workers: 2}
	yc, yg := cuClone(y0), cuClone(y0)
	cpu.LinearForward(s, mL, u, lin, yc)
	c.LinearForward(s, mL, u, lin, yg)
	cuClose(t, "y", yg, yc)
	dy, d0 := cuRand(rng, N, 1), cuRand(rng, mL, 1)
	dc, dg := cuClone(d0), cuClone(d0)
	cpu.LinearBackward(s, mL, u, dy, dc)
	c.LinearBackward(s, mL, u, dy, dg)
	cuClose(t, "dlin", dg, dc)
}

func TestCUDAGram(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	rng := rand.New(rand.NewPCG(3, 3))
	s := cuSeqs(t)
	N, mN, mG, mL := s.Total(), 3, 7, 4
	nt := mN*mG + mL
	u, n, y := cuRand(rng, N, 1), cuRand(rng, N*mN, 1), cuRand(rng, N, 1)
	Pc, bc := make([]float64, nt*nt), make([]float64, nt)
	Pg, bg := cuRand(rng, nt*nt, 1), cuRand(rng, nt, 1) // overwritten
	cpu := &CPU{Workers: 2}
	yyc := cpu.Gram(s, mN, mG, mL, u, n, y, Pc, bc)
	yyg := c.Gram(s, mN, mG, mL, u, n, y, Pg, bg)
	cuClose(t, "P", Pg, Pc)
	cuClose(t, "b", bg, bc)
	cuClose(t, "yy", []float64{yyg}, []float64{yyc})
	for i := range nt {
		for j := range nt {
			if Pg[i*nt+j] != Pg[j*nt+i] {
				t.Fatalf("P not exactly symmetric at (%d, %d)", i, j)
			}
		}
	}
}

func TestCUDADense(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	rng := rand.New(rand.NewPCG(4, 4))
	rows, in, out := 300, 5, 7
	x, w, b := cuRand(rng, rows*in, 1), cuRand(rng, out*in, 1), cuRand(rng, out, 1)
	yc, yg := make([]float64, rows*out), make([]float64, rows*out)
	cpu := &CPU{Workers: 2}
	cpu.DenseTanhForward(rows, in, out, x, w, b, yc)
	c.DenseTanhForward(rows, in, out, x, w, b, yg)
	cuClose(t, "y", yg, yc)
	dy := cuRand(rng, rows*out, 1)
	dw0, db0 := cuRand(rng, out*in, 1), cuRand(rng, out, 1)
	dxc, dwc, dbc := make([]float64, rows*in), cuClone(dw0), cuClone(db0)
	dxg, dwg, dbg := make([]float64, rows*in), cuClone(dw0), cuClone(db0)
	cpu.DenseTanhBackward(rows, in, out, x, w, yc, dy, dxc, dwc, dbc)
	c.DenseTanhBackward(rows, in, out, x, w, yc, dy, dxg, dwg, dbg)
	cuClose(t, "dx", dxg, dxc)
	cuClose(t, "dw", dwg, dwc)
	cuClose(t, "db", dbg, dbc)
	// dx == nil is allowed.
	c.DenseTanhBackward(rows, in, out, x, w, yc, dy, nil, dwg, dbg)
}

func cuLoop(fb bool, mL int) *ClosedLoop {
	cl := &ClosedLoop{MN: 3, MG: 7, ML: mL, R1: 2, R2: 2, Feedback: fb, UA: 1.3, UB: 0.1, QA: 0.8, QB: -0.05}
	cl.Sizes = []int{cl.Features(), 4, 5, 3}
	return cl
}

// cuHold is cuLoop with u(0) held before the start and a longer u-window.
func cuHold(fb bool, mL int) *ClosedLoop {
	cl := &ClosedLoop{MN: 3, MG: 7, ML: mL, R1: 4, R2: 2, Feedback: fb, HoldU: true, UA: 1.3, UB: 0.1, QA: 0.8, QB: -0.05}
	cl.Sizes = []int{cl.Features(), 4, 5, 3}
	return cl
}

// cuShape is cuLoop (FB, with a linear FIR) with mN branches of mG taps.
func cuShape(mN, mG int) *ClosedLoop {
	cl := &ClosedLoop{MN: mN, MG: mG, ML: 4, R1: 2, R2: 2, Feedback: true, UA: 1.3, UB: 0.1, QA: 0.8, QB: -0.05}
	cl.Sizes = []int{cl.Features(), 4, 5, mN}
	return cl
}

func TestCUDAClosedLoop(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	for _, tc := range []struct {
		name string
		cl   *ClosedLoop
	}{{"FB+lin", cuLoop(true, 4)}, {"FB", cuLoop(true, 0)}, {"FF+lin", cuLoop(false, 3)},
		{"FB+hold", cuHold(true, 4)}, {"FF+hold", cuHold(false, 0)},
		// more branches than the kernels' threads (one partial sum each), and
		// taps longer than every record (25 threads per branch, most idle early on)
		{"FB wide", cuShape(130, 7)}, {"FB long", cuShape(5, 70)}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 5))
			s := cuSeqs(t)
			cl := tc.cl
			N := s.Total()
			theta := cuRand(rng, cl.NumParams(), 0.8)
			g, lin := cuRand(rng, cl.MN*cl.MG, 0.3), cuRand(rng, cl.ML, 0.3)
			u := cuRand(rng, N, 1)
			cpu := &CPU{Workers: 2}
			yc, yg := make([]float64, N), make([]float64, N)
			var tc1, tg Tape
			cpu.ClosedLoopForward(cl, s, theta, g, lin, u, yc, &tc1)
			c.ClosedLoopForward(cl, s, theta, g, lin, u, yg, &tg)
			cuClose(t, "y", yg, yc)
			dy := cuRand(rng, N, 1)
			d0 := cuRand(rng, cl.NumParams()+cl.MN*cl.MG+cl.ML, 1)
			np, ng := cl.NumParams(), cl.MN*cl.MG
			dc, dg := cuClone(d0), cuClone(d0)
			cpu.ClosedLoopBackward(cl, s, theta, g, lin, u, &tc1, dy, dc[:np], dc[np:np+ng], dc[np+ng:])
			c.ClosedLoopBackward(cl, s, theta, g, lin, u, &tg, dy, dg[:np], dg[np:np+ng], dg[np+ng:])
			cuClose(t, "dtheta", dg[:np], dc[:np])
			cuClose(t, "dg", dg[np:np+ng], dc[np:np+ng])
			cuClose(t, "dlin", dg[np+ng:], dc[np+ng:])

			// The host copy of the tape, when asked for, equals the CPU's.
			c.HostTape = true
			c.ClosedLoopForward(cl, s, theta, g, lin, u, yg, &tg)
			c.HostTape = false
			for l := range tc1.Act {
				cuClose(t, "tape.Act", tg.Act[l], tc1.Act[l])
			}
			cuClose(t, "tape.Z", tg.Z, tc1.Z)
		})
	}
}

// cpuOpenLoopLossGrad is OpenLoopLossGrad composed from Backend calls on
// the host: the reference of the fused device version.
func cpuOpenLoopLossGrad(be Backend, cl *ClosedLoop, s Seqs, theta, g, lin, u, q, y, grad []float64) float64 {
	N := s.Total()
	mN, mG, mL, np := cl.MN, cl.MG, cl.ML, cl.NumParams()
	F := cl.Features()
	L := len(cl.Sizes) - 1
	act := make([][]float64, L+1)
	act[0] = make([]float64, N*F)
	for b := range s.Batches() {
		for t := s.Off[b]; t < s.Off[b+1]; t++ {
			for i := range cl.R1 {
				k := t - cl.R1 + 1 + i
				if cl.HoldU && k < s.Off[b] {
					k = s.Off[b]
				}
				v := 0.0
				if k >= s.Off[b] {
					v = u[k]
				}
				act[0][t*F+i] = cl.UA*v + cl.UB
			}
			if cl.Feedback {
				for i := range cl.R2 {
					v := 0.0
					if k := t - cl.R2 + 1 + i; k >= s.Off[b] {
						v = q[k]
					}
					act[0][t*F+cl.R1+i] = cl.QA*v + cl.QB
				}
			}
		}
	}
	off := 0
	for l := range L {
		in, out := cl.Sizes[l], cl.Sizes[l+1]
		act[l+1] = make([]float64, N*out)
		be.DenseTanhForward(N, in, out, act[l], theta[off:off+out*in], theta[off+out*in:off+out*in+out], act[l+1])
		off += out*in + out
	}
	z, yh := make([]float64, N*mN), make([]float64, N)
	be.ConvForward(s, mN, mG, u, act[L], g, z, yh)
	be.LinearForward(s, mL, u, lin, yh)
	loss := 0.0
	dy := make([]float64, N)
	for t := range N {
		r := yh[t] - y[t]
		loss += r * r
		dy[t] = 2 * r / float64(N)
	}
	clear(grad)
	dn := make([]float64, N*mN)
	be.ConvBackward(s, mN, mG, u, act[L], g, z, dy, dn, grad[np:np+mN*mG])
	be.LinearBackward(s, mL, u, dy, grad[np+mN*mG:])
	d := dn
	off = np
	for l := L - 1; l >= 0; l-- {
		in, out := cl.Sizes[l], cl.Sizes[l+1]
		off -= out*in + out
		var dx []float64
		if l > 0 {
			dx = make([]float64, N*in)
		}
		be.DenseTanhBackward(N, in, out, act[l], theta[off:off+out*in], act[l+1], d, dx, grad[off:off+out*in], grad[off+out*in:off+out*in+out])
		d = dx
	}
	return loss / float64(N)
}

func TestCUDAOpenLoopLossGrad(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	for _, cl := range []*ClosedLoop{cuLoop(true, 4), cuLoop(false, 4), cuHold(true, 4), cuHold(false, 4)} {
		rng := rand.New(rand.NewPCG(6, 6))
		s := cuSeqs(t)
		N := s.Total()
		theta := cuRand(rng, cl.NumParams(), 0.8)
		g, lin := cuRand(rng, cl.MN*cl.MG, 0.3), cuRand(rng, cl.ML, 0.3)
		u, y := cuRand(rng, N, 1), cuRand(rng, N, 1)
		q := make([]float64, N)
		for b := range s.Batches() {
			for k := s.Off[b] + 1; k < s.Off[b+1]; k++ {
				q[k] = y[k-1]
			}
		}
		ng := cl.NumParams() + cl.MN*cl.MG + cl.ML
		gc, gg := make([]float64, ng), make([]float64, ng)
		lc := cpuOpenLoopLossGrad(&CPU{Workers: 2}, cl, s, theta, g, lin, u, q, y, gc)
		if err := c.Resident(u, q, y); err != nil {
			t.Fatal(err)
		}
		lg := c.OpenLoopLossGrad(cl, s, theta, g, lin, u, q, y, gg)
		c.Release(u, q, y)
		cuClose(t, "loss", []float64{lg}, []float64{lc})
		cuClose(t, "grad", gg, gc)
		// The host composition on the CUDA backend agrees too.
		gh := make([]float64, ng)
		lh := cpuOpenLoopLossGrad(c, cl, s, theta, g, lin, u, q, y, gh)
		cuClose(t, "loss (composed)", []float64{lh}, []float64{lc})
		cuClose(t, "grad (composed)", gh, gc)
	}
}

func TestCUDAAdam(t *testing.T) {
	c := newTestCUDA(t)
	defer c.Close()
	rng := rand.New(rand.NewPCG(7, 7))
	n := 1000
	for _, clip := range []float64{0, 1e9, 0.5} {
		theta, grad := cuRand(rng, n, 1), cuRand(rng, n, 1)
		m, v := cuRand(rng, n, 0.1), cuRand(rng, n, 0.1)
		for i := range v {
			v[i] = math.Abs(v[i])
		}
		tc, mc, vc := cuClone(theta), cuClone(m), cuClone(v)
		// Reference: trainer/adam.go's clipNorm then adam.step.
		gc := cuClone(grad)
		ss := 0.0
		for _, x := range gc {
			ss += x * x
		}
		if nrm := math.Sqrt(ss); clip > 0 && nrm > clip {
			for i := range gc {
				gc[i] *= clip / nrm
			}
		}
		const step, lr, wd = 3, 1e-3, 1e-5
		c1, c2 := 1-math.Pow(0.9, step), 1-math.Pow(0.999, step)
		for i, gi := range gc {
			mc[i] = 0.9*mc[i] + 0.1*gi
			vc[i] = 0.999*vc[i] + 0.001*gi*gi
			tc[i] -= lr * (wd*tc[i] + (mc[i]/c1)/(math.Sqrt(vc[i]/c2)+1e-8))
		}
		nrm := c.AdamStep(theta, grad, m, v, step, lr, wd, clip)
		cuClose(t, "norm", []float64{nrm}, []float64{math.Sqrt(ss)})
		cuClose(t, "theta", theta, tc)
		cuClose(t, "m", m, mc)
		cuClose(t, "v", v, vc)
	}
}

func TestNewBackendCUDA(t *testing.T) {
	be, err := NewBackend("cuda")
	if errors.Is(err, ErrNoCUDA) {
		t.Skipf("no GPU: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if be.Name() != "cuda" {
		t.Fatalf("Name() = %q", be.Name())
	}
	be.(*CUDA).Close()
}
