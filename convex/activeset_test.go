package convex

import (
	"context"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"testing"
)

var _ flag.Value = (*Method)(nil)

func TestMethodFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Method
	}{
		{"default", MethodDefault}, {"interior-point", MethodInteriorPoint}, {"ip", MethodInteriorPoint},
		{"active-set", MethodActiveSet}, {"as", MethodActiveSet},
	} {
		var m Method
		if err := m.Set(tc.in); err != nil || m != tc.want {
			t.Errorf("Set(%q) = %v, %v; want %v", tc.in, m, err, tc.want)
		}
		var back Method
		if err := back.Set(m.String()); err != nil || back != m {
			t.Errorf("Set(String()) of %v = %v, %v", m, back, err)
		}
	}
	var m Method
	if err := m.Set("simplex"); !errors.Is(err, ErrInvalid) {
		t.Errorf("Set(simplex): %v, want ErrInvalid", err)
	}
}

// lcpSolver builds a dualSolver holding only the dual data S = VᵀV, c, h of m rows in n
// dimensions, with the columns of V given (so that rows may repeat or be dependent).
func lcpSolver(V [][]float64, c []float64) *dualSolver {
	m := len(V)
	d := &dualSolver{sst: m, S: make([]float64, m*m), c: c, h: make([]float64, m), z: make([]float64, m), w: make([]float64, m)}
	d.rows = make([]dualRow, m)
	for i := range V {
		for j := range V {
			d.S[i*m+j] = dot(V[i], V[j])
		}
	}
	return d
}

// TestGIFactor: after a GI solve on random data, R is the Cholesky factor of S_AA (built from
// scratch), and the LCP conditions hold: z ≥ 0, w = Sz + c ≥ 0, z∘w = 0, checked independently
// of the solver's slacks. Degenerate cases: repeated rows, a row that is a combination of others,
// zero right-hand sides at the unconstrained optimum (c_i = 0), more rows than dimensions.
func TestGIFactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, tc := range []struct {
		name     string
		n, m     int
		repeat   bool
		combined bool
		zeroC    bool
	}{
		{"small", 6, 4, false, false, false},
		{"more-rows", 10, 40, false, false, false},
		{"repeated", 12, 20, true, false, false},
		{"dependent", 12, 20, false, true, false},
		{"zero-c", 15, 30, false, false, true},
		{"all-degenerate", 8, 60, true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// rows v_i, and c_i = s_i − v_iᵀy0 with slack s_i ≥ 0 at a point y0, so that the
			// primal is feasible (y = y0 meets every row); s_i = 0 makes row i tight at y0
			V := make([][]float64, tc.m)
			c := make([]float64, tc.m)
			y0 := make([]float64, tc.n)
			for k := range y0 {
				y0[k] = rng.NormFloat64()
			}
			for i := range V {
				V[i] = make([]float64, tc.n)
				for k := range V[i] {
					V[i][k] = rng.NormFloat64()
				}
			}
			if tc.repeat {
				for i := 1; i < tc.m; i += 4 {
					copy(V[i], V[i-1])
				}
			}
			if tc.combined {
				for i := 2; i < tc.m; i += 5 {
					for k := range V[i] {
						V[i][k] = 0.3*V[i-1][k] - 0.7*V[i-2][k]
					}
				}
			}
			for i := range V {
				c[i] = math.Abs(rng.NormFloat64()) - dot(V[i], y0)
				if tc.zeroC && i%3 == 0 {
					c[i] = -dot(V[i], y0)
				}
			}
			d := lcpSolver(V, c)
			g := &gi{d: d}
			if err := g.solve(1e-12, 10000); err != nil {
				t.Fatal(err)
			}
			checkLCP(t, V, c, d.z, 1e-10)
			checkFactor(t, g)
		})
	}
}

func checkLCP(t *testing.T, V [][]float64, c, z []float64, tol float64) {
	t.Helper()
	n := len(V[0])
	y := make([]float64, n) // y = Vz
	for i, zi := range z {
		if zi < 0 {
			t.Errorf("z[%d] = %g < 0", i, zi)
		}
		for k := range y {
			y[k] += zi * V[i][k]
		}
	}
	scale := 1 + normInf(c)
	for i := range V {
		w := dot(V[i], y) + c[i]
		if w < -tol*scale {
			t.Errorf("row %d violated: w = %g", i, w)
		}
		if z[i]*math.Abs(w) > tol*scale*(1+z[i]) {
			t.Errorf("row %d: z = %g, w = %g: not complementary", i, z[i], w)
		}
	}
}

func checkFactor(t *testing.T, g *gi) {
	t.Helper()
	d := g.d
	for a, i := range g.act {
		for b := a; b < len(g.act); b++ {
			s := 0.0
			for k := 0; k <= a; k++ {
				s += g.R[a][k] * g.R[b][k]
			}
			want := d.S[i*d.sst+g.act[b]]
			if math.Abs(s-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("(RᵀR)[%d,%d] = %g, S = %g", a, b, s, want)
			}
		}
	}
}

// TestActiveSetMethod: Solve with MethodActiveSet on seeded random problems of several sizes,
// degenerate ones included, meets the KKT conditions (checked independently, checkKKT), certifies
// its Exact blocks and reaches the interior-point method's objective to 1e-8 relative.
func TestActiveSetMethod(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 28))
	cases := []struct {
		name   string
		n      int
		rows   int // of the data matrix: fewer than n gives a singular P
		gamma  float64
		blocks []Block
	}{
		{"exact-12", 12, 36, 0.5, []Block{{Offset: 0, Len: 12, Kind: Exact}}},
		{"exact-margin-bounds", 20, 60, 0.5, []Block{{Offset: 2, Len: 15, Kind: Exact, Margin: 0.05, Rho: 2, Decay: 0.8}}},
		{"two-exact-plus-free", 40, 120, 0.5, []Block{{Offset: 0, Len: 15, Kind: Exact}, {Offset: 15, Len: 15, Kind: Exact, Rho: 3, Decay: 0.9}}},
		{"sampled", 30, 90, 0.5, []Block{{Offset: 0, Len: 30, Kind: Sampled, H: 200, Eps: 1e-2}}},
		{"sampled-bounds-exact", 50, 150, 0.5, []Block{{Offset: 0, Len: 20, Kind: Sampled, H: 100, Eps: 0, Rho: 1, Decay: 0.9}, {Offset: 20, Len: 30, Kind: Exact}}},
		{"singular-P", 40, 15, 1e-3, []Block{{Offset: 0, Len: 20, Kind: Exact}, {Offset: 20, Len: 20, Kind: Exact}}},
		{"aliased-samples", 24, 72, 0.5, []Block{{Offset: 0, Len: 24, Kind: Sampled, H: 8, Eps: 0.1}}},
		{"tight-bounds", 16, 48, 0.5, []Block{{Offset: 0, Len: 16, Kind: Exact, Rho: 0.05, Decay: 0.7}}},
		{"exact-100", 100, 300, 0.5, []Block{{Offset: 0, Len: 100, Kind: Exact}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			P, b := randProblem(rng, tc.n, tc.rows)
			p := &Problem{P: P, B: b, GammaG: tc.gamma, Blocks: tc.blocks}
			ref, err := Solve(p, &Options{Method: MethodInteriorPoint})
			if err != nil {
				t.Fatal(err)
			}
			s, err := Solve(p, &Options{Method: MethodActiveSet})
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, p, s, 1e-8)
			for j, bl := range tc.blocks {
				if bl.Kind == Exact && s.Certificates[j].MinRe < bl.Margin {
					t.Errorf("block %d: certified %g < margin %g", j, s.Certificates[j].MinRe, bl.Margin)
				}
				if s.State[j].GridH != 0 {
					t.Errorf("block %d: GridH %d: the active-set method was not used", j, s.State[j].GridH)
				}
			}
			// Exact blocks: both methods impose their rows at Margin + Delta, and the interior
			// point's iterate may dip to Margin between its rows where the active set's rows sit
			// at the minima; the optima differ by up to the cost of a margin shift of Delta,
			// about 2·Delta·Σz (the rows are in the 2cos convention). Sampled blocks: the same
			// finite problem.
			allow := 1e-8 * math.Abs(ref.Objective)
			for j, bl := range tc.blocks {
				if bl.Kind == Exact {
					st := ref.State[j]
					allow += 2 * math.Max(st.Delta, s.State[j].Delta) * (sum(st.Z) + sum(st.GridZ))
				}
			}
			if d := math.Abs(s.Objective - ref.Objective); d > allow {
				t.Errorf("objective %.15g, interior point %.15g: difference %.2g > %.2g", s.Objective, ref.Objective, d, allow)
			}
			t.Logf("active set: %d steps / %d rounds; interior point: %d it / %d rounds; objectives differ by %.2g relative",
				s.Iterations, s.Rounds, ref.Iterations, ref.Rounds, math.Abs(s.Objective-ref.Objective)/math.Abs(ref.Objective))
		})
	}
}

// TestActiveSetWarm: a warm start from the previous solution of a slightly changed problem
// starts GI from its active set: same optimum as a cold start, fewer steps.
func TestActiveSetWarm(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	P, b := randProblem(rng, 60, 180)
	p := &Problem{P: P, B: b, GammaG: 0.5, Blocks: []Block{{Offset: 0, Len: 30, Kind: Exact}, {Offset: 30, Len: 30, Kind: Exact}}}
	o := &Options{Method: MethodActiveSet}
	first, err := Solve(p, o)
	if err != nil {
		t.Fatal(err)
	}
	b2 := append([]float64(nil), b...)
	for i := range b2 {
		b2[i] *= 1 + 1e-3*rng.NormFloat64()
	}
	p2 := &Problem{P: P, B: b2, GammaG: 0.5, Blocks: p.Blocks}
	cold, err := Solve(p2, o)
	if err != nil {
		t.Fatal(err)
	}
	warm, err := Solve(p2, &Options{Method: MethodActiveSet, Warm: first})
	if err != nil {
		t.Fatal(err)
	}
	checkKKT(t, p2, warm, 1e-8)
	if d := math.Abs(warm.Objective - cold.Objective); d > 1e-8*math.Abs(cold.Objective) {
		t.Errorf("warm objective %.15g, cold %.15g", warm.Objective, cold.Objective)
	}
	if warm.Iterations >= cold.Iterations {
		t.Errorf("warm start took %d steps, cold %d", warm.Iterations, cold.Iterations)
	}
	t.Logf("cold %d steps / %d rounds, warm %d / %d", cold.Iterations, cold.Rounds, warm.Iterations, warm.Rounds)
}

// TestActiveSetCancel: a cancelled context stops the active-set method with its error and no
// solution.
func TestActiveSetCancel(t *testing.T) {
	P, b := msdGram(t, 200)
	p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{{Offset: 0, Len: 200, Kind: Exact, Rho: 100, Decay: 0.93}}}
	mid := &cancelAfter{Context: context.Background(), calls: 3}
	if sol, err := Solve(p, &Options{Method: MethodActiveSet, Context: mid}); !errors.Is(err, context.Canceled) || sol != nil {
		t.Errorf("solution %v, err %v; want none and context.Canceled", sol != nil, err)
	}
}

func sum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
