package kyp

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
)

func relDiff(a, b float64) float64 { return math.Abs(a-b) / math.Max(1, math.Abs(b)) }

// qMatrix returns P + γI.
func qMatrix(P *mat.SymDense, gamma float64) *mat.SymDense {
	n := P.SymmetricDim()
	Q := mat.NewSymDense(n, nil)
	Q.CopySym(P)
	for i := 0; i < n; i++ {
		Q.SetSym(i, i, Q.At(i, i)+gamma)
	}
	return Q
}

type solveCase struct {
	name   string
	P      *mat.SymDense
	b      []float64
	gamma  float64
	blocks []convex.Block
}

func solveCases(t testing.TB) []solveCase {
	var cs []solveCase
	for _, n := range []int{6, 20, 40} {
		P, b := randomProblem(uint64(n), n)
		cs = append(cs, solveCase{fmt.Sprintf("random n=%d", n), P, b, 1,
			[]convex.Block{{Offset: 0, Len: n, Kind: convex.Exact}}})
	}
	P, b := randomProblem(3, 24)
	cs = append(cs, solveCase{"random n=24 decay bounds", P, b, 0.5,
		[]convex.Block{{Offset: 0, Len: 24, Kind: convex.Exact, Rho: 2, Decay: 0.85}}})
	P, b = randomProblem(4, 30)
	cs = append(cs, solveCase{"three blocks, margin, free taps", P, b, 1, []convex.Block{
		{Offset: 0, Len: 12, Kind: convex.Exact, Margin: 0.05},
		{Offset: 12, Len: 8, Kind: convex.None},
		{Offset: 20, Len: 8, Kind: convex.Sampled, H: 100, Rho: 3, Decay: 0.9},
	}})
	P, b = msdGram(t, 7, 40, 250, 30)
	cs = append(cs, solveCase{"msd mG=30", P, b, 1,
		[]convex.Block{{Offset: 0, Len: 30, Kind: convex.Exact, Rho: 100, Decay: 0.93}}})
	return cs
}

// TestSolveAgainstReferences checks the optimal value against the exchange
// method on a 10⁵-point grid (independent, dense) and against convex's Exact
// mode, and that every certificate holds.
func TestSolveAgainstReferences(t *testing.T) {
	for _, tc := range solveCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			p := &convex.Problem{P: tc.P, B: tc.b, GammaG: tc.gamma, Blocks: tc.blocks}
			sol, err := Solve(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := convex.Objective(p, sol.X); relDiff(got, sol.Objective) > 1e-12 {
				t.Errorf("Objective %.15g, recomputed %.15g", sol.Objective, got)
			}
			if !(sol.Gap >= -1e-9*math.Abs(sol.Objective)) || sol.Gap > 1e-8*math.Max(1, math.Abs(sol.Objective)) {
				t.Errorf("gap %g at objective %g", sol.Gap, sol.Objective)
			}
			var rb []refBlock
			for _, bl := range tc.blocks {
				if bl.Kind == convex.None {
					continue
				}
				rb = append(rb, refBlock{off: bl.Offset, m: bl.Len, cone: true, margin: bl.Margin, rho: bl.Rho, decay: bl.Decay})
			}
			_, fref, rounds := exchangeRef(t, qMatrix(tc.P, tc.gamma), tc.b, rb, 100000)
			if d := relDiff(sol.Objective, fref); d > 1e-8 {
				t.Errorf("objective %.12g, exchange reference %.12g (rel %.2g)", sol.Objective, fref, d)
			}
			// Exact mode of package convex imposes the same constraints.
			pe := *p
			pe.Blocks = append([]convex.Block(nil), p.Blocks...)
			for j := range pe.Blocks {
				if pe.Blocks[j].Kind != convex.None {
					pe.Blocks[j].Kind = convex.Exact
				}
			}
			csol, err := convex.Solve(&pe, nil)
			if err != nil {
				t.Fatalf("convex.Solve: %v", err)
			}
			d := relDiff(sol.Objective, csol.Objective)
			if d > 1e-6 {
				t.Errorf("objective %.12g, convex Exact %.12g (rel %.2g)", sol.Objective, csol.Objective, d)
			}
			t.Logf("kyp %.12g (%d Newton, gap %.2g)  exchange %.12g (%d rounds)  convex %.12g: rel %.1e / %.1e",
				sol.Objective, sol.Iterations, sol.Gap, fref, rounds, csol.Objective, relDiff(sol.Objective, fref), d)
			checkCertificates(t, tc.blocks, sol)
		})
	}
}

// checkCertificates verifies each certificate independently: Check on the
// returned taps, the frequency response on a grid, and bounds.
func checkCertificates(t *testing.T, blocks []convex.Block, sol *Solution) {
	t.Helper()
	nc := 0
	for j, bl := range blocks {
		if bl.Kind == convex.None {
			continue
		}
		c := sol.Certificates[nc]
		nc++
		if c.Block != j {
			t.Fatalf("certificate %d is for block %d, want %d", nc-1, c.Block, j)
		}
		g := sol.X[bl.Offset : bl.Offset+bl.Len]
		if !c.OK {
			t.Errorf("block %d: certificate failed: minEigX %g, minEigLMI %g", j, c.MinEigX, c.MinEigLMI)
		}
		ex, el, ok := Check(g, c.X, 1e-8)
		if !ok || ex != c.MinEigX || el != c.MinEigLMI {
			t.Errorf("block %d: Check = %g, %g, %v; certificate says %g, %g", j, ex, el, ok, c.MinEigX, c.MinEigLMI)
		}
		minRe := math.Inf(1)
		for i := 0; i <= 20000; i++ {
			v, _, _ := cosPoly(g, math.Pi*float64(i)/20000)
			minRe = math.Min(minRe, v)
		}
		if minRe < bl.Margin-1e-8 {
			t.Errorf("block %d: min Re G on grid %g < margin %g", j, minRe, bl.Margin)
		}
		if bl.Rho > 0 {
			for k, v := range g {
				if r := bl.Rho * math.Pow(bl.Decay, float64(k)); math.Abs(v) > r*(1+1e-9) {
					t.Errorf("block %d: |g(%d)| = %g > %g", j, k, math.Abs(v), r)
				}
			}
		}
	}
	if nc != len(sol.Certificates) {
		t.Errorf("%d certificates, want %d", len(sol.Certificates), nc)
	}
}

// TestCheck exercises Check on certificates built from random Gram matrices
// (the KYP matrix must equal Y), on m = 1, and on non-passive taps.
func TestCheck(t *testing.T) {
	for _, m := range []int{2, 3, 10, 33} {
		A := mat.NewDense(m, m, nil)
		for i := 0; i < m; i++ {
			for j := 0; j < m; j++ {
				A.Set(i, j, math.Sin(float64(7*i+3*j+m)))
			}
		}
		Y := mat.NewSymDense(m, nil)
		Y.SymOuterK(1, A)
		for i := 0; i < m; i++ {
			Y.SetSym(i, i, Y.At(i, i)+0.01)
		}
		g := diagSums(Y)
		X := xFromY(Y)
		ex, el, ok := Check(g, X, 1e-9)
		if !ok {
			t.Errorf("m=%d: certificate from Y rejected: %g %g", m, ex, el)
		}
		if d := math.Abs(el - minEig(Y)); d > 1e-9*math.Max(1, mat.Trace(Y)) {
			t.Errorf("m=%d: min eig of LMI %g, of Y %g", m, el, minEig(Y))
		}
		// Non-passive taps: Re G(π) < 0 means no X can satisfy the LMI.
		bad := append([]float64(nil), g...)
		c, _, _ := cosPoly(bad, math.Pi)
		bad[0] -= c + 0.1
		if _, _, ok := Check(bad, X, 1e-9); ok {
			t.Errorf("m=%d: non-passive taps accepted", m)
		}
	}
	if _, el, ok := Check([]float64{0.5}, nil, 0); !ok || el != 1 {
		t.Errorf("m=1: Check = %g, %v", el, ok)
	}
	if _, _, ok := Check([]float64{-0.5}, nil, 0); ok {
		t.Error("m=1: negative g(0) accepted")
	}
	if _, _, ok := Check([]float64{1, 0.5, 0.1}, mat.NewSymDense(3, nil), 0); ok {
		t.Error("wrong-size X accepted")
	}
}

// TestErrors checks the typed errors.
func TestErrors(t *testing.T) {
	P, b := randomProblem(1, 6)
	good := func() *convex.Problem {
		return &convex.Problem{P: P, B: append([]float64(nil), b...), GammaG: 1,
			Blocks: []convex.Block{{Offset: 0, Len: 6, Kind: convex.Exact}}}
	}
	nanP := mat.NewSymDense(6, nil)
	nanP.CopySym(P)
	nanP.SetSym(1, 2, math.NaN())
	cases := []struct {
		name string
		mod  func(p *convex.Problem)
		want error
	}{
		{"short b", func(p *convex.Problem) { p.B = p.B[:5] }, ErrDimension},
		{"block outside", func(p *convex.Problem) { p.Blocks[0].Len = 7 }, ErrDimension},
		{"overlap", func(p *convex.Problem) {
			p.Blocks = []convex.Block{{Offset: 0, Len: 4, Kind: convex.Exact}, {Offset: 3, Len: 3, Kind: convex.Exact}}
		}, ErrDimension},
		{"NaN in P", func(p *convex.Problem) { p.P = nanP }, ErrNonFinite},
		{"Inf in b", func(p *convex.Problem) { p.B[2] = math.Inf(1) }, ErrNonFinite},
		{"negative gamma", func(p *convex.Problem) { p.GammaG = -1 }, ErrInvalid},
		{"decay 0", func(p *convex.Problem) { p.Blocks[0].Rho, p.Blocks[0].Decay = 1, 0 }, ErrInvalid},
		{"margin ≥ rho", func(p *convex.Problem) { p.Blocks[0].Rho, p.Blocks[0].Decay, p.Blocks[0].Margin = 1, 0.9, 1 }, ErrInfeasible},
		{"not PD", func(p *convex.Problem) { p.P = mat.NewSymDense(6, nil); p.GammaG = 0 }, ErrNotPositiveDefinite},
	}
	for _, tc := range cases {
		p := good()
		tc.mod(p)
		_, err := Solve(p, nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: error %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := Solve(nil, nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("nil problem: %v", err)
	}
	sol, err := Solve(good(), &Options{MaxIter: 3})
	if !errors.Is(err, ErrIterationLimit) {
		t.Errorf("MaxIter 3: error %v", err)
	}
	if sol == nil || len(sol.X) != 6 {
		t.Errorf("MaxIter 3: no partial solution")
	}
}

// TestUnconstrained: no constrained block gives the unconstrained minimizer.
func TestUnconstrained(t *testing.T) {
	P, b := randomProblem(2, 5)
	p := &convex.Problem{P: P, B: b, GammaG: 1, Blocks: []convex.Block{{Offset: 0, Len: 5, Kind: convex.None}}}
	sol, err := Solve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var x mat.VecDense
	if err := x.SolveVec(qMatrix(P, 1), mat.NewVecDense(5, b)); err != nil {
		t.Fatal(err)
	}
	for i := range sol.X {
		if math.Abs(sol.X[i]-x.AtVec(i)) > 1e-10*(1+math.Abs(x.AtVec(i))) {
			t.Errorf("x[%d] = %g, want %g", i, sol.X[i], x.AtVec(i))
		}
	}
	if len(sol.Certificates) != 0 {
		t.Errorf("%d certificates for no constrained block", len(sol.Certificates))
	}
}
