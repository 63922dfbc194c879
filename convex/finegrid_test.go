package convex

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestFineGrid solves a robot-like problem (four 250-tap Exact blocks, n = 1000) with the
// trainer's tolerances, where exactGridMul takes the fine grid, and against the reference: the
// exchange on the 8·Len grid. Both must certify every block at its margin (after a shift of
// at most ShiftTol·Σ|g|) and meet the KKT tests; the objectives agree within what AcceptTol
// and the shifts allow. The fine grid must finish in one round, with no cluster rows.
func TestFineGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 1000: seconds")
	}
	p := robotLike(250)
	o := &Options{AcceptTol: 1e-6, ShiftTol: 1e-6}
	if m := exactGridMul(p, 1000, o.ShiftTol); m != fineGrid {
		t.Fatalf("exactGridMul = %d, want the fine grid %d", m, fineGrid)
	}
	if m := exactGridMul(p, 1000, 0); m != exactGrid {
		t.Fatalf("exactGridMul without ShiftTol = %d, want %d", m, exactGrid)
	}
	fine, err := Solve(p, o)
	if err != nil {
		t.Fatal(err)
	}
	exactGridMulFn = func(*Problem, int, float64) int { return exactGrid }
	ref, err := Solve(p, o)
	exactGridMulFn = exactGridMul
	if err != nil {
		t.Fatal(err)
	}
	if fine.Rounds != 1 {
		t.Errorf("fine grid: %d rounds, want 1", fine.Rounds)
	}
	for name, s := range map[string]*Solution{"fine": fine, "reference": ref} {
		for j, bl := range p.Blocks {
			g := s.X[bl.Offset : bl.Offset+bl.Len]
			if c := s.Certificates[j]; !c.Passive || c.MinRe < 0 {
				t.Errorf("%s: block %d not certified: %+v", name, j, c)
			}
			c, err := Certify(g)
			if err != nil || c.MinRe < 0 {
				t.Errorf("%s: block %d: Certify = %+v, %v", name, j, c, err)
			}
			if lim := o.ShiftTol * sumAbs(g); s.Shift[j] > lim {
				t.Errorf("%s: block %d shifted by %.3g > ShiftTol·Σ|g| = %.3g", name, j, s.Shift[j], lim)
			}
			if name == "fine" && len(s.State[j].Omega) != 0 {
				t.Errorf("fine: block %d has %d cluster rows", j, len(s.State[j].Omega))
			}
		}
		// The shift of g(0) leaves a dual residual of its size times the row's sensitivity
		// (2.8e-5 at n = 2000 before this grid): bounded here by 1e-4.
		if k := s.KKT; k.Primal > 1e-6 || k.Complementarity > 1e-4 || k.Dual > 1e-4 {
			t.Errorf("%s: KKT residuals %+v", name, k)
		}
	}
	// AcceptTol stops each solve at a duality gap of up to 1e-6·(1 + |f|), and each block's
	// shift moves f by up to 2·shift·Σz: 1e-5 relative covers both.
	if d := math.Abs(fine.Objective-ref.Objective) / math.Abs(ref.Objective); d > 1e-5 {
		t.Errorf("objective %.10g (fine grid) against %.10g (reference): %.3g relative", fine.Objective, ref.Objective, d)
	}
	t.Logf("fine grid: %d iterations, %d rounds, f = %.10g; reference: %d iterations, %d rounds, f = %.10g",
		fine.Iterations, fine.Rounds, fine.Objective, ref.Iterations, ref.Rounds, ref.Objective)
}

// TestGridEach checks the products with the uniform rows when gridEach runs the blocks'
// transforms in parallel: bit for bit the same for 1 and 3 workers, and equal to the direct
// sums Σ_k 2cos(hπk/H)·g(k) (mulG), Σ_h 2cos(hπk/H)·z_h (mulGT) and the Toeplitz-plus-Hankel
// entries 2[c(k−l) + c(k+l)], c(m) = Σ_h d_h cos(hπm/H), of formM.
func TestGridEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const L, H = 40, 12000 // three blocks: 36 000 grid points ≥ parGridMin
	n := 3 * L
	Q := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		Q.SetSym(i, i, 1)
	}
	b := make([]float64, n)
	ip := newIPSolver(Q, b)
	var blocks []*ipBlock
	for j := 0; j < 3; j++ {
		blocks = append(blocks, &ipBlock{off: L * j, L: L, gridH: H})
	}
	ip.setBlocks(blocks)
	if ip.m != 3*(H+1) {
		t.Fatalf("m = %d", ip.m)
	}
	x := make([]float64, n)
	z := make([]float64, ip.m)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range z {
		z[i] = rng.Float64()
	}
	type out struct{ gx, gtz, M []float64 }
	run := func(W int) out {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(W))
		var o out
		o.gx = make([]float64, ip.m)
		o.gtz = make([]float64, n)
		ip.mulG(x, o.gx)
		ip.mulGT(z, o.gtz)
		ip.formM(z)
		o.M = append([]float64(nil), ip.M.RawSymmetric().Data...)
		return o
	}
	o1, o3 := run(1), run(3)
	if !slices.Equal(o1.gx, o3.gx) || !slices.Equal(o1.gtz, o3.gtz) || !slices.Equal(o1.M, o3.M) {
		t.Fatal("results depend on the number of workers")
	}
	cosh := func(h, k int) float64 { return math.Cos(math.Pi * float64(h*k%(2*H)) / H) }
	for j, bl := range blocks {
		g := x[bl.off : bl.off+L]
		for h := 0; h <= H; h += 97 {
			want := 0.0
			for k, v := range g {
				want += 2 * cosh(h, k) * v
			}
			if got := o1.gx[bl.row0+h]; math.Abs(got-want) > 1e-11 {
				t.Fatalf("block %d: (Gx)[%d] = %v, want %v", j, h, got, want)
			}
		}
		zb := z[bl.row0 : bl.row0+H+1]
		c := make([]float64, 2*L-1)
		for k := range c {
			for h, v := range zb {
				c[k] += v * cosh(h, k)
			}
		}
		for k := 0; k < L; k++ {
			if got, want := o1.gtz[bl.off+k], 2*c[k]; math.Abs(got-want) > 1e-9*float64(H) {
				t.Fatalf("block %d: (Gᵀz)[%d] = %v, want %v", j, k, got, want)
			}
			for l := k; l < L; l++ {
				want := 2 * (c[l-k] + c[l+k])
				if k == l {
					want++ // Q = I
				}
				if got := o1.M[(bl.off+k)*n+bl.off+l]; math.Abs(got-want) > 1e-9*float64(H) {
					t.Fatalf("block %d: M[%d,%d] = %v, want %v", j, k, l, got, want)
				}
			}
		}
	}
}
