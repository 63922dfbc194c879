package convex

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randProblem builds P = AᵀA/rows (PSD, possibly rank deficient) and b = Aᵀy with y drawn so
// that the unconstrained optimum is typically not passive.
func randProblem(rng *rand.Rand, n, rows int) (*mat.SymDense, []float64) {
	A := mat.NewDense(rows, n, nil)
	for i := 0; i < rows; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	P := mat.NewSymDense(n, nil)
	P.SymOuterK(1, A.T())
	y := make([]float64, rows)
	for i := range y {
		y[i] = rng.NormFloat64() * 3
	}
	b := make([]float64, n)
	mat.NewVecDense(n, b).MulVec(A.T(), mat.NewVecDense(rows, y))
	return P, b
}

// denseRows returns the constraint rows Gθ ≥ h of a block as recorded in the solution state,
// plus (for Sampled blocks) every sampled row, computed with plain loops.
type denseRow struct {
	a   []float64 // length n
	h   float64
	z   float64
	tag string
}

func blockRows(n int, bl Block, st BlockState) []denseRow {
	var rows []denseRow
	zOf := map[int]float64{}
	for i, h := range st.Samples {
		zOf[h] = st.Z[i]
	}
	if bl.Kind == Sampled && st.GridH == bl.H {
		for h, z := range st.GridZ {
			zOf[h] = z
		}
	}
	freqRow := func(w, rhs, z float64, tag string) denseRow {
		a := make([]float64, n)
		for k := 0; k < bl.Len; k++ {
			a[bl.Offset+k] = 2 * math.Cos(w*float64(k))
		}
		return denseRow{a, rhs, z, tag}
	}
	switch bl.Kind {
	case Sampled:
		for h := 0; h <= bl.H; h++ {
			rows = append(rows, freqRow(math.Pi*float64(h)/float64(bl.H), bl.Eps, zOf[h], "sample"))
		}
	case Exact:
		for i, w := range st.Omega {
			rows = append(rows, freqRow(w, st.RHS, st.Z[i], "freq"))
		}
		for h, z := range st.GridZ {
			rows = append(rows, freqRow(math.Pi*float64(h)/float64(st.GridH), st.RHS, z, "grid"))
		}
	}
	if bl.Kind != None && bl.Rho > 0 {
		for k := 0; k < bl.Len; k++ {
			u := bl.Rho * math.Pow(bl.Decay, float64(k))
			a := make([]float64, n)
			a[bl.Offset+k] = -1
			rows = append(rows, denseRow{a, -u, st.ZUpper[k], "upper"})
			a = make([]float64, n)
			a[bl.Offset+k] = 1
			rows = append(rows, denseRow{a, -u, st.ZLower[k], "lower"})
		}
	}
	return rows
}

// checkKKT verifies the KKT conditions independently of the solver's own residuals.
func checkKKT(t *testing.T, p *Problem, s *Solution, tol float64) {
	t.Helper()
	n := len(p.B)
	x := s.X
	r := make([]float64, n) // Qx − b − Gᵀz
	for i := 0; i < n; i++ {
		v := p.GammaG*x[i] - p.B[i]
		for j := 0; j < n; j++ {
			v += p.P.At(i, j) * x[j]
		}
		r[i] = v
	}
	scale := 1 + normInf(p.B)
	var viol, comp, hmax float64
	for j, bl := range p.Blocks {
		for _, row := range blockRows(n, bl, s.State[j]) {
			ax := 0.0
			for i, a := range row.a {
				ax += a * x[i]
				r[i] -= a * row.z
			}
			if row.z < 0 {
				t.Errorf("block %d %s: negative multiplier %g", j, row.tag, row.z)
			}
			viol = math.Max(viol, row.h-ax)
			comp += row.z * math.Abs(ax-row.h)
			hmax = math.Max(hmax, math.Abs(row.h))
		}
	}
	obj := Objective(p, x)
	if d := normInf(r) / scale; d > tol {
		t.Errorf("stationarity residual %g", d)
	}
	if v := viol / (1 + hmax); v > tol {
		t.Errorf("primal violation %g", v)
	}
	if c := comp / (1 + math.Abs(obj)); c > tol {
		t.Errorf("complementarity %g", c)
	}
	if s.KKT.Primal > 1e-8 || s.KKT.Dual > 1e-8 || s.KKT.Complementarity > 1e-8 {
		t.Errorf("reported KKT %+v", s.KKT)
	}
}

func TestSolveKKTRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	type layout struct {
		name   string
		n      int
		blocks []Block
	}
	cases := []layout{
		{"n5-sampled", 5, []Block{{Offset: 0, Len: 5, Kind: Sampled, H: 6, Eps: 0.1}}},
		{"n12-sampled-bounds-free", 12, []Block{{Offset: 2, Len: 8, Kind: Sampled, H: 20, Eps: 0.05, Rho: 2, Decay: 0.8}}},
		{"n30-mixed", 30, []Block{
			{Offset: 0, Len: 10, Kind: Sampled, H: 50, Eps: 0.01, Rho: 5, Decay: 0.9},
			{Offset: 10, Len: 10, Kind: Exact},
			{Offset: 20, Len: 8, Kind: None},
		}},
		{"n60-exact-bounds", 60, []Block{
			{Offset: 0, Len: 25, Kind: Exact, Rho: 3, Decay: 0.9, Margin: 0.01},
			{Offset: 30, Len: 25, Kind: Sampled, H: 200, Eps: 0.02},
		}},
		// many short Sampled blocks in a large problem: all rows in one solve (allRowsSampled)
		{"n400-ten-short-sampled", 400, func() []Block {
			var bl []Block
			for j := 0; j < 10; j++ {
				bl = append(bl, Block{Offset: 40 * j, Len: 40, Kind: Sampled, H: 1000, Eps: 0.01, Rho: 10, Decay: 0.95})
			}
			return bl
		}()},
		{"n200-three", 200, []Block{
			{Offset: 0, Len: 60, Kind: Sampled, H: 500, Eps: 0.01, Rho: 10, Decay: 0.95},
			{Offset: 60, Len: 60, Kind: Exact},
			{Offset: 120, Len: 60, Kind: Sampled, H: 1000, Eps: 0.01},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			P, b := randProblem(rng, tc.n, tc.n/2+3)
			p := &Problem{P: P, B: b, GammaG: 0.1, Blocks: tc.blocks}
			s, err := Solve(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkKKT(t, p, s, 1e-8)
			for j, bl := range tc.blocks {
				if bl.Kind == Exact && s.Certificates[j].MinRe < bl.Margin {
					t.Errorf("block %d certified %g < margin %g", j, s.Certificates[j].MinRe, bl.Margin)
				}
			}
			if math.Abs(Objective(p, s.X)-s.Objective) > 1e-9*(1+math.Abs(s.Objective)) {
				t.Error("Objective mismatch")
			}
		})
	}
}

// bruteForce enumerates all active sets of the rows and returns the KKT point (unique since
// Q is positive definite).
func bruteForce(t *testing.T, Q *mat.SymDense, b []float64, rows []denseRow) []float64 {
	n := len(b)
	m := len(rows)
	var best []float64
	for mask := 0; mask < 1<<m; mask++ {
		var act []int
		for i := 0; i < m; i++ {
			if mask&(1<<i) != 0 {
				act = append(act, i)
			}
		}
		if len(act) > n {
			continue
		}
		k := len(act)
		K := mat.NewDense(n+k, n+k, nil)
		rhs := mat.NewVecDense(n+k, nil)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				K.Set(i, j, Q.At(i, j))
			}
			rhs.SetVec(i, b[i])
		}
		for c, ri := range act {
			for i := 0; i < n; i++ {
				K.Set(i, n+c, -rows[ri].a[i])
				K.Set(n+c, i, rows[ri].a[i])
			}
			rhs.SetVec(n+c, rows[ri].h)
		}
		var sol mat.VecDense
		var lu mat.LU
		lu.Factorize(K)
		if lu.Det() == 0 || lu.Cond() > 1e12 {
			continue
		}
		if err := lu.SolveVecTo(&sol, false, rhs); err != nil {
			continue
		}
		ok := true
		for c := 0; c < k; c++ {
			if sol.AtVec(n+c) < -1e-9 {
				ok = false
			}
		}
		for _, r := range rows {
			ax := 0.0
			for i := 0; i < n; i++ {
				ax += r.a[i] * sol.AtVec(i)
			}
			if ax < r.h-1e-9 {
				ok = false
			}
		}
		if ok {
			best = make([]float64, n)
			for i := range best {
				best[i] = sol.AtVec(i)
			}
			return best
		}
	}
	t.Fatal("brute force found no KKT point")
	return nil
}

func TestSolveBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := 0; trial < 12; trial++ {
		L := 2 + trial%3 // 2..4
		H := 3 + trial%4 // 3..6
		bl := Block{Offset: 0, Len: L, Kind: Sampled, H: H, Eps: 0.2 * rng.Float64()}
		if trial%2 == 1 {
			bl.Rho, bl.Decay = 0.5+rng.Float64(), 0.7
		}
		P, b := randProblem(rng, L, L+2)
		p := &Problem{P: P, B: b, GammaG: 0.5, Blocks: []Block{bl}}
		s, err := Solve(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		Q := mat.NewSymDense(L, nil)
		Q.CopySym(P)
		for i := 0; i < L; i++ {
			Q.SetSym(i, i, Q.At(i, i)+p.GammaG)
		}
		rows := blockRows(L, bl, BlockState{ZUpper: make([]float64, L), ZLower: make([]float64, L)})
		ref := bruteForce(t, Q, b, rows)
		for i := range ref {
			if math.Abs(ref[i]-s.X[i]) > 1e-7*(1+math.Abs(ref[i])) {
				t.Errorf("trial %d (L=%d H=%d): x[%d] = %.12g, brute force %.12g", trial, L, H, i, s.X[i], ref[i])
			}
		}
	}
}

func TestSolveUnconstrained(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, n := range []int{5, 40, 150} {
		P, b := randProblem(rng, n, n+5)
		// None blocks, and a Sampled block whose constraint cannot bind (Eps very negative).
		p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{
			{Offset: 0, Len: n / 2, Kind: None},
			{Offset: n / 2, Len: n - n/2, Kind: Sampled, H: 64, Eps: -1e6},
		}}
		s, err := Solve(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		Q := mat.NewSymDense(n, nil)
		Q.CopySym(P)
		for i := 0; i < n; i++ {
			Q.SetSym(i, i, Q.At(i, i)+1)
		}
		var ch mat.Cholesky
		if !ch.Factorize(Q) {
			t.Fatal("not PD")
		}
		var ref mat.VecDense
		_ = ch.SolveVecTo(&ref, mat.NewVecDense(n, b))
		for i := 0; i < n; i++ {
			if math.Abs(ref.AtVec(i)-s.X[i]) > 1e-8*(1+math.Abs(ref.AtVec(i))) {
				t.Fatalf("n=%d: x[%d] = %g want %g", n, i, s.X[i], ref.AtVec(i))
			}
		}
	}
}

func TestExactModeCertifies(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	for trial, L := range []int{3, 10, 30, 80} {
		for _, margin := range []float64{0, 0.05} {
			P, b := randProblem(rng, L, L+4)
			// the unconstrained optimum must not be passive for the test to mean something
			pu := &Problem{P: P, B: b, GammaG: 0.1, Blocks: []Block{{Offset: 0, Len: L, Kind: None}}}
			su, err := Solve(pu, nil)
			if err != nil {
				t.Fatal(err)
			}
			if su.Certificates[0].MinRe >= margin {
				t.Logf("trial %d: unconstrained already passive, skipped", trial)
				continue
			}
			p := &Problem{P: P, B: b, GammaG: 0.1, Blocks: []Block{{Offset: 0, Len: L, Kind: Exact, Margin: margin}}}
			s, err := Solve(p, nil)
			if err != nil {
				t.Fatalf("L=%d margin %g: %v", L, margin, err)
			}
			c := s.Certificates[0]
			if c.MinRe < margin || !c.Passive {
				t.Errorf("L=%d margin %g: certificate %+v", L, margin, c)
			}
			gm, _ := gridMin(s.X, 100_000)
			if gm < margin {
				t.Errorf("L=%d: grid minimum %g below margin", L, gm)
			}
			// optimality: objective at most the unconstrained one plus the sampled bound
			if s.Objective < su.Objective {
				t.Errorf("constrained objective %g below unconstrained %g", s.Objective, su.Objective)
			}
		}
	}
}

func TestSolveErrors(t *testing.T) {
	P := mat.NewSymDense(4, []float64{2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2})
	b := []float64{1, 1, 1, 1}
	ok := Block{Offset: 0, Len: 4, Kind: Sampled, H: 8, Eps: 0.1}
	nanP := mat.NewSymDense(4, nil)
	nanP.CopySym(P)
	nanP.SetSym(1, 2, math.NaN())
	cases := []struct {
		name string
		p    *Problem
		want error
	}{
		{"nil P", &Problem{B: b}, ErrNotSymmetric},
		{"NaN P", &Problem{P: nanP, B: b}, ErrNonFinite},
		{"Inf b", &Problem{P: P, B: []float64{1, math.Inf(1), 0, 0}}, ErrNonFinite},
		{"len B", &Problem{P: P, B: b[:3]}, ErrDimension},
		{"block out of range", &Problem{P: P, B: b, Blocks: []Block{{Offset: 2, Len: 3, Kind: Exact}}}, ErrDimension},
		{"overlap", &Problem{P: P, B: b, Blocks: []Block{{Offset: 0, Len: 3, Kind: Exact}, {Offset: 2, Len: 2, Kind: None}}}, ErrDimension},
		{"negative gamma", &Problem{P: P, B: b, GammaG: -1}, ErrInvalid},
		{"H zero", &Problem{P: P, B: b, Blocks: []Block{{Offset: 0, Len: 4, Kind: Sampled}}}, ErrInvalid},
		{"eps > 2rho", &Problem{P: P, B: b, Blocks: []Block{{Offset: 0, Len: 4, Kind: Sampled, H: 8, Eps: 3, Rho: 1, Decay: 0.9}}}, ErrInfeasible},
		{"margin > rho", &Problem{P: P, B: b, Blocks: []Block{{Offset: 0, Len: 4, Kind: Exact, Margin: 2, Rho: 1, Decay: 0.9}}}, ErrInfeasible},
	}
	for _, tc := range cases {
		_, err := Solve(tc.p, nil)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	// BlockError is reachable with errors.As
	_, err := Solve(&Problem{P: P, B: b, Blocks: []Block{ok, {Offset: 0, Len: 4, Kind: Exact, Margin: 2, Rho: 1, Decay: 0.9}}}, nil)
	var be *BlockError
	if !errors.As(err, &be) || be.Block != 1 {
		t.Errorf("errors.As BlockError: %v", err)
	}
	// iteration limit: the best iterate comes back with the error
	s, err := Solve(&Problem{P: P, B: []float64{-5, 3, 1, 2}, Blocks: []Block{ok}}, &Options{MaxIter: 2})
	if !errors.Is(err, ErrIterationLimit) || s == nil || len(s.X) != 4 {
		t.Errorf("iteration limit: %v, %v", err, s)
	}
	// non-symmetric general matrix
	if _, err := SymFromDense(mat.NewDense(2, 2, []float64{1, 2, 3, 4})); !errors.Is(err, ErrNotSymmetric) {
		t.Errorf("SymFromDense: %v", err)
	}
	if s, err := SymFromDense(mat.NewDense(2, 2, []float64{1, 2, 2, 4})); err != nil || s.At(1, 0) != 2 {
		t.Errorf("SymFromDense symmetric: %v", err)
	}
}

func TestWarmStart(t *testing.T) {
	P, b := msdGram(t, 50)
	for _, bl := range []Block{
		{Offset: 0, Len: 50, Kind: Sampled, H: 1000, Eps: 1e-2, Rho: 100, Decay: 0.93},
		{Offset: 0, Len: 50, Kind: Exact},
	} {
		p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{bl}}
		cold, err := Solve(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		// slowly changing problem: perturb b by 1e-5 (relative)
		b2 := append([]float64(nil), b...)
		rng := rand.New(rand.NewPCG(2, 2))
		for i := range b2 {
			b2[i] *= 1 + 1e-5*rng.NormFloat64()
		}
		p2 := &Problem{P: P, B: b2, GammaG: 1, Blocks: []Block{bl}}
		c2, err := Solve(p2, nil)
		if err != nil {
			t.Fatal(err)
		}
		w2, err := Solve(p2, &Options{Warm: cold})
		if err != nil {
			t.Fatal(err)
		}
		if d := math.Abs(w2.Objective - c2.Objective); d > 1e-7*(1+math.Abs(c2.Objective)) {
			t.Errorf("%v: warm objective %.12g vs cold %.12g", bl.Kind, w2.Objective, c2.Objective)
		}
		for i := range c2.X {
			if math.Abs(w2.X[i]-c2.X[i]) > 1e-4*(1+math.Abs(c2.X[i])) {
				t.Errorf("%v: x[%d] warm %g cold %g", bl.Kind, i, w2.X[i], c2.X[i])
				break
			}
		}
		if w2.Iterations >= c2.Iterations {
			t.Errorf("%v: warm start took %d iterations, cold %d", bl.Kind, w2.Iterations, c2.Iterations)
		}
		t.Logf("%v: cold %d it / %d rounds, warm %d it / %d rounds", bl.Kind, c2.Iterations, c2.Rounds, w2.Iterations, w2.Rounds)
		if bl.Kind == Exact && w2.Certificates[0].MinRe < 0 {
			t.Errorf("warm exact not certified: %+v", w2.Certificates[0])
		}
	}
}

func TestFIRGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	u := [][]float64{make([]float64, 30), make([]float64, 7)}
	y := [][]float64{make([]float64, 30), make([]float64, 7)}
	for i := range u {
		for t := range u[i] {
			u[i][t], y[i][t] = rng.NormFloat64(), rng.NormFloat64()
		}
	}
	mG := 10 // longer than the second batch
	P, b, err := FIRGram(u, y, mG)
	if err != nil {
		t.Fatal(err)
	}
	Pr := mat.NewDense(mG, mG, nil)
	br := make([]float64, mG)
	for i := range u {
		T := len(u[i])
		Phi := mat.NewDense(T, mG, nil)
		for t := 0; t < T; t++ {
			for k := 0; k < mG && k <= t; k++ {
				Phi.Set(t, k, u[i][t-k])
			}
		}
		var pp mat.Dense
		pp.Mul(Phi.T(), Phi)
		Pr.Add(Pr, &pp)
		var pb mat.VecDense
		pb.MulVec(Phi.T(), mat.NewVecDense(T, y[i]))
		for k := range br {
			br[k] += pb.AtVec(k)
		}
	}
	for i := 0; i < mG; i++ {
		if math.Abs(br[i]-b[i]) > 1e-10*(1+math.Abs(br[i])) {
			t.Errorf("b[%d] = %g want %g", i, b[i], br[i])
		}
		for j := 0; j < mG; j++ {
			if math.Abs(Pr.At(i, j)-P.At(i, j)) > 1e-10*(1+math.Abs(Pr.At(i, j))) {
				t.Errorf("P[%d,%d] = %g want %g", i, j, P.At(i, j), Pr.At(i, j))
			}
		}
	}
	if _, _, err := FIRGram(u, y[:1], 3); !errors.Is(err, ErrDimension) {
		t.Errorf("mismatch: %v", err)
	}
}

// TestRobotSizeSampled: the robot's θ_G step at full size (four 500-tap blocks, n = 2000,
// H = 10000, ε = 1e-2, γ_G = 10) must converge. The interior-point method used to end in
// ErrIterationLimit here, its dual residual stuck at 4.5e-8 by the conditioning of the Newton
// matrix; refinement, centrality correctors and the stall rule bring it to ≤ 1e-8.
func TestRobotSizeSampled(t *testing.T) {
	if testing.Short() {
		t.Skip("n = 2000: about 25 s")
	}
	p := robotLikeProblem(Block{Kind: Sampled, H: 10000, Eps: 1e-2})
	s, err := Solve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if k := s.KKT; k.max() > 1e-8 {
		t.Errorf("relative KKT residuals %+v, want ≤ 1e-8", k)
	}
	for j, c := range s.Certificates {
		if !c.Passive {
			t.Errorf("block %d not passive: %+v", j, c)
		}
		v := sampledValues(s.X[p.Blocks[j].Offset:p.Blocks[j].Offset+500], 10000, nil)
		for h, vh := range v {
			if vh < 1e-2*(1-1e-6) {
				t.Fatalf("block %d: sample %d = %g < ε", j, h, vh)
			}
		}
	}
	t.Logf("%d iterations, KKT %+v", s.Iterations, s.KKT)
}

// TestAcceptTol: a solve cut short by MaxIter returns its best iterate without error exactly
// when that iterate's residuals are within Options.AcceptTol.
func TestAcceptTol(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	cases := []struct {
		name  string
		n     int
		block Block
	}{
		{"sampled-dct", 80, Block{Offset: 0, Len: 80, Kind: Sampled, H: 400, Eps: 0.02, Rho: 5, Decay: 0.95}},
		{"exact", 40, Block{Offset: 0, Len: 40, Kind: Exact, Rho: 5, Decay: 0.95}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			P, b := randProblem(rng, tc.n, tc.n/2+3)
			p := &Problem{P: P, B: b, GammaG: 0.1, Blocks: []Block{tc.block}}
			full, err := Solve(p, nil)
			if err != nil {
				t.Fatal(err)
			}
			// the smallest MaxIter that stops short with a merit a caller might accept
			var cut *Solution
			maxIter := 0
			for mi := 2; mi < full.Iterations; mi++ {
				s, err := Solve(p, &Options{MaxIter: mi})
				if errors.Is(err, ErrIterationLimit) && s.KKT.max() > 1e-7 && s.KKT.max() < 1e-2 {
					cut, maxIter = s, mi
					break
				}
			}
			if cut == nil {
				t.Fatal("no MaxIter stops short with a residual in (1e-7, 1e-2)")
			}
			merit := cut.KKT.max()
			s, err := Solve(p, &Options{MaxIter: maxIter, AcceptTol: 2 * merit})
			if err != nil {
				t.Fatalf("AcceptTol %g, merit %g: %v", 2*merit, merit, err)
			}
			if s.KKT.max() > 2*merit {
				t.Errorf("accepted residuals %+v > AcceptTol %g", s.KKT, 2*merit)
			}
			// One inner solve: the same iterate. An exact block goes on with its exchange
			// rounds after an accepted inner solve, so only its certificate is checked.
			if tc.block.Kind == Exact {
				if !s.Certificates[0].Passive {
					t.Errorf("accepted exact-mode taps not certified: %+v", s.Certificates[0])
				}
				return // several inner solves: which one stops short depends on AcceptTol
			}
			for i := range s.X {
				if s.X[i] != cut.X[i] {
					t.Fatalf("x[%d] = %g, the cut-short solve returned %g", i, s.X[i], cut.X[i])
				}
			}
			if _, err := Solve(p, &Options{MaxIter: maxIter, AcceptTol: merit / 4}); !errors.Is(err, ErrIterationLimit) {
				t.Errorf("AcceptTol %g below the merit %g: err = %v, want ErrIterationLimit", merit/4, merit, err)
			}
			t.Logf("MaxIter %d of %d: merit %.2g", maxIter, full.Iterations, merit)
		})
	}
}

// TestAllRowsSampled: short Sampled blocks keep all their rows when the
// Newton matrix's factorization dominates an iteration (large n, few short
// blocks), and run the exchange otherwise; the all-rows path is one round.
func TestAllRowsSampled(t *testing.T) {
	short := func(count, l, h int) []Block {
		var bl []Block
		for j := 0; j < count; j++ {
			bl = append(bl, Block{Offset: l * j, Len: l, Kind: Sampled, H: h, Eps: 0.01})
		}
		return bl
	}
	for _, c := range []struct {
		name   string
		n      int
		blocks []Block
		want   bool
	}{
		{"MSD size: ten 50-tap blocks, H 10000", 500, short(10, 50, 10000), true},
		{"four 50-tap blocks, H 10000", 200, short(4, 50, 10000), false},
		{"Table I: one 50-tap block, H 4000", 50, short(1, 50, 4000), false},
		{"ten 40-tap blocks, H 1000", 400, short(10, 40, 1000), true},
		{"long blocks only (all rows anyway)", 640, short(10, 64, 10000), false},
		{"H below the length (exchange)", 500, short(10, 50, 40), false},
		{"exact blocks", 500, []Block{{Offset: 0, Len: 50, Kind: Exact}}, false},
	} {
		p := &Problem{Blocks: c.blocks}
		if got := allRowsSampled(p, c.n); got != c.want {
			t.Errorf("%s: allRowsSampled = %v, want %v", c.name, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(9, 9))
	P, b := randProblem(rng, 400, 203)
	p := &Problem{P: P, B: b, GammaG: 0.1, Blocks: short(10, 40, 1000)}
	s, err := Solve(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.Rounds != 1 {
		t.Errorf("all-rows solve took %d rounds, want 1", s.Rounds)
	}
	checkKKT(t, p, s, 1e-8)
}

// A decay bound far above anything the optimum can reach (a user's "no limit") must give the
// optimum of the problem without it; the interior-point method once ended in ErrNumerical or
// the iteration limit on such bounds (capBounds).
func TestLooseBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	cases := []struct {
		name   string
		n      int
		blocks func(rho float64) []Block
	}{
		{"exact", 30, func(rho float64) []Block {
			return []Block{{Offset: 0, Len: 30, Kind: Exact, Rho: rho, Decay: 0.93}}
		}},
		{"sampled", 40, func(rho float64) []Block {
			return []Block{{Offset: 0, Len: 40, Kind: Sampled, H: 400, Eps: 0.01, Rho: rho, Decay: 0.93}}
		}},
		{"exact-margin-and-tight-sampled", 60, func(rho float64) []Block {
			return []Block{
				{Offset: 0, Len: 25, Kind: Exact, Rho: rho, Decay: 0.9, Margin: 0.05},
				{Offset: 30, Len: 25, Kind: Sampled, H: 200, Eps: 0.02, Rho: 0.3, Decay: 0.9},
			}
		}},
		{"growing", 30, func(rho float64) []Block {
			if rho == 0 {
				return []Block{{Offset: 0, Len: 30, Kind: Exact}}
			}
			// Decay > 1: ub[0] = 100 binds nothing here, ub[29] = 100·rho
			return []Block{{Offset: 0, Len: 30, Kind: Exact, Rho: 100, Decay: math.Pow(rho, 1.0/29)}}
		}},
		{"reduced-method", 200, func(rho float64) []Block {
			return []Block{{Offset: 0, Len: 50, Kind: Sampled, H: 1000, Eps: 0.01, Rho: rho, Decay: 1}}
		}},
	}
	for _, tc := range cases {
		P, b := randProblem(rng, tc.n, tc.n/2+3)
		ref, err := Solve(&Problem{P: P, B: b, GammaG: 0.5, Blocks: tc.blocks(0)}, nil)
		if err != nil {
			t.Fatalf("%s: no bounds: %v", tc.name, err)
		}
		for _, rho := range []float64{1e12, 1e100, 1e300} {
			t.Run(fmt.Sprintf("%s/rho=%g", tc.name, rho), func(t *testing.T) {
				p := &Problem{P: P, B: b, GammaG: 0.5, Blocks: tc.blocks(rho)}
				s, err := Solve(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				checkKKT(t, p, s, 1e-8)
				// The objective pins the optimum to the solver's tolerance; the taps of an
				// Exact block are flat along its contact set, so they agree less closely
				// (1.8e-6 of the largest between the reference and Rho = 1e3, which is
				// not capped).
				if d := math.Abs(s.Objective - ref.Objective); d > 1e-9*(1+math.Abs(ref.Objective)) {
					t.Errorf("objective %.12g, without the bound %.12g", s.Objective, ref.Objective)
				}
				scale := normInf(ref.X)
				for i := range s.X {
					if d := math.Abs(s.X[i] - ref.X[i]); d > 1e-4*scale {
						t.Fatalf("x[%d] = %g, without the bound %g", i, s.X[i], ref.X[i])
					}
				}
				for j, bl := range p.Blocks {
					if bl.Kind == Exact && s.Certificates[j].MinRe < bl.Margin {
						t.Errorf("block %d certified %g < margin %g", j, s.Certificates[j].MinRe, bl.Margin)
					}
				}
			})
		}
	}
}

// TestSolveCancel: a cancelled Context stops a solve between interior-point iterations with
// the context's error and no solution; the same problem solves without one.
func TestSolveCancel(t *testing.T) {
	P, b := msdGram(t, 300)
	p := &Problem{P: P, B: b, GammaG: 1, Blocks: []Block{{Offset: 0, Len: 300, Kind: Exact, Rho: 100, Decay: 0.98}}}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if sol, err := Solve(p, &Options{Context: done}); !errors.Is(err, context.Canceled) || sol != nil {
		t.Errorf("already cancelled: solution %v, err %v; want none and context.Canceled", sol != nil, err)
	}
	// Cancelled after a few interior-point iterations: the solve must notice between them,
	// not only once it is done (it takes 50-odd iterations).
	mid := &cancelAfter{Context: context.Background(), calls: 5}
	if sol, err := Solve(p, &Options{Context: mid}); !errors.Is(err, context.Canceled) || sol != nil {
		t.Errorf("cancelled during the solve: solution %v, err %v; want none and context.Canceled", sol != nil, err)
	}
	if mid.n > 10 {
		t.Errorf("the solve went on for %d checks after being cancelled at the 5th", mid.n-5)
	}
	// The same in the reduced (dual) method, which exact-mode blocks try first.
	keepMethod, keepBudget := reducedMethod, reducedBudget
	defer func() { reducedMethod, reducedBudget = keepMethod, keepBudget }()
	reducedMethod = func([]*blockWork) bool { return true }
	reducedBudget = func(int) int { return 1 << 20 }
	P2, b2 := randProblem(rand.New(rand.NewPCG(3, 3)), 40, 120)
	pr := &Problem{P: P2, B: b2, GammaG: 0.5, Blocks: []Block{{Offset: 0, Len: 15, Kind: Exact}, {Offset: 15, Len: 15, Kind: Exact, Rho: 3, Decay: 0.9}}}
	if s, err := Solve(pr, nil); err != nil || s.State[0].GridH != 0 {
		t.Fatalf("the reduced method was not used (err %v)", err)
	}
	mid = &cancelAfter{Context: context.Background(), calls: 3}
	if sol, err := Solve(pr, &Options{Context: mid}); !errors.Is(err, context.Canceled) || sol != nil {
		t.Errorf("reduced method, cancelled during the solve: solution %v, err %v; want none and context.Canceled", sol != nil, err)
	}
	if mid.n > 6 {
		t.Errorf("reduced method: the solve went on for %d checks after being cancelled at the 3rd", mid.n-3)
	}
	reducedMethod, reducedBudget = keepMethod, keepBudget
	sol, err := Solve(p, &Options{Context: context.Background()})
	if err != nil || !sol.Certificates[0].Passive {
		t.Fatalf("without cancellation: err %v", err)
	}
}

// cancelAfter is a context whose Err reports cancellation from its calls-th call on.
type cancelAfter struct {
	context.Context
	calls, n int
}

func (c *cancelAfter) Err() error {
	c.n++
	if c.n >= c.calls {
		return context.Canceled
	}
	return nil
}

// TestSolveUnits: the same problem in other units — taps a times, the objective c times
// larger, as data in other units give — has the solution a·θ and the objective c·f, and
// that solution meets the KKT conditions of the problem in the original units. Before Solve
// normalized such problems, taps of order 1e-10 met an absolute margin floor of 1e-8 and
// came out a static gain, or the solve ran into the iteration limit.
func TestSolveUnits(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 17))
	layouts := [][]Block{
		{{Offset: 0, Len: 10, Kind: Sampled, H: 50, Eps: 0.01, Rho: 5, Decay: 0.9}, {Offset: 10, Len: 10, Kind: Exact}, {Offset: 20, Len: 8, Kind: None}},
		{{Offset: 0, Len: 25, Kind: Exact, Rho: 3, Decay: 0.9, Margin: 0.01}, {Offset: 30, Len: 25, Kind: Sampled, H: 200, Eps: 0.02}},
	}
	for li, blocks := range layouts {
		n := blocks[len(blocks)-1].Offset + blocks[len(blocks)-1].Len + 2
		P, b := randProblem(rng, n, n/2+3)
		unit := &Problem{P: P, B: b, GammaG: 0.1, Blocks: blocks}
		ref, err := Solve(unit, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []struct{ a, c float64 }{{1e-10, 1e-12}, {0x1p-40, 0x1p-30}, {1e7, 1e20}, {3e-5, 7e3}, {1, 1e-9}} {
			// θ' = aθ, f' = c·f: P' = P·c/a², b' = b·c/a, right-hand sides and bounds ·a
			Ps := mat.NewSymDense(n, nil)
			Ps.ScaleSym(f.c/(f.a*f.a), P)
			ps := &Problem{P: Ps, B: make([]float64, n), GammaG: unit.GammaG * f.c / (f.a * f.a), Blocks: append([]Block(nil), blocks...)}
			for i, v := range b {
				ps.B[i] = v * f.c / f.a
			}
			for j := range ps.Blocks {
				ps.Blocks[j].Eps *= f.a
				ps.Blocks[j].Rho *= f.a
				ps.Blocks[j].Margin *= f.a
			}
			s, err := Solve(ps, nil)
			if err != nil {
				t.Errorf("layout %d, a=%g c=%g: %v", li, f.a, f.c, err)
				continue
			}
			back := convertSolution(s, 1/f.a, 1/f.c)
			dx := 0.0
			for i := range back.X {
				dx = math.Max(dx, math.Abs(back.X[i]-ref.X[i]))
			}
			if dx > 1e-6*(1+normInf(ref.X)) {
				t.Errorf("layout %d, a=%g c=%g: θ/a differs from the unit solution by %g", li, f.a, f.c, dx)
			}
			if d := math.Abs(back.Objective - ref.Objective); d > 1e-7*(1+math.Abs(ref.Objective)) {
				t.Errorf("layout %d, a=%g c=%g: objective/c %g, unit %g", li, f.a, f.c, back.Objective, ref.Objective)
			}
			checkKKT(t, unit, back, 1e-7)
			for j, bl := range blocks {
				if bl.Kind == Exact && s.Certificates[j].MinRe < ps.Blocks[j].Margin {
					t.Errorf("layout %d, a=%g c=%g: block %d certified %g below its margin %g", li, f.a, f.c, j, s.Certificates[j].MinRe, ps.Blocks[j].Margin)
				}
			}
			// a warm start in the scaled units converges at once
			w, err := Solve(ps, &Options{Warm: s})
			if err != nil || w.Iterations > s.Iterations {
				t.Errorf("layout %d, a=%g c=%g: warm start: err %v, %d iterations (cold %d)", li, f.a, f.c, err, w.Iterations, s.Iterations)
			}
		}
	}
}
