package kyp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/passivenfir/gputrain/convex"
)

// This file holds the independent references of the tests: a dense
// primal-dual interior-point QP solver for linear inequalities, driven by an
// exchange (cutting-plane) method on a 10⁵-point frequency grid refined by
// Newton's method, and the data generators.

// denseQP minimizes ½xᵀQx − bᵀx subject to Gx ≥ h (rows of G) with a plain
// primal-dual path-following method. It returns x and the objective.
func denseQP(t testing.TB, Q *mat.SymDense, b []float64, G [][]float64, h []float64) ([]float64, float64) {
	n := len(b)
	mc := len(G)
	x := make([]float64, n)
	s := make([]float64, mc)
	lam := make([]float64, mc)
	for i := range s {
		s[i], lam[i] = 1, 1
	}
	// Scale of the data, for the stopping rule.
	bs := 1.0
	for _, v := range b {
		bs = math.Max(bs, math.Abs(v))
	}
	gx := func(x []float64, i int) float64 {
		v := 0.0
		for j, gj := range G[i] {
			v += gj * x[j]
		}
		return v
	}
	obj := func(x []float64) float64 {
		xv := mat.NewVecDense(n, x)
		var qx mat.VecDense
		qx.MulVec(Q, xv)
		return 0.5*mat.Dot(xv, &qx) - mat.Dot(mat.NewVecDense(n, b), xv)
	}
	last := ""
	for it := 0; it < 300; it++ {
		xv := mat.NewVecDense(n, x)
		var qx mat.VecDense
		qx.MulVec(Q, xv)
		rd := make([]float64, n)
		for j := 0; j < n; j++ {
			rd[j] = qx.AtVec(j) - b[j]
		}
		rp := make([]float64, mc)
		mu := 0.0
		for i := 0; i < mc; i++ {
			rp[i] = gx(x, i) - s[i] - h[i]
			for j, gj := range G[i] {
				rd[j] -= gj * lam[i]
			}
			mu += s[i] * lam[i]
		}
		if mc > 0 {
			mu /= float64(mc)
		}
		rdn, rpn := 0.0, 0.0
		for _, v := range rd {
			rdn = math.Max(rdn, math.Abs(v))
		}
		for _, v := range rp {
			rpn = math.Max(rpn, math.Abs(v))
		}
		last = fmt.Sprintf("mu %g rd %g rp %g bs %g obj %g", mu, rdn, rpn, bs, obj(x))
		if mu*float64(mc) < 1e-13*(1+math.Abs(obj(x))) && rdn < 1e-6*bs && rpn < 1e-11*(1+bs) {
			return x, obj(x)
		}
		sigma := 0.1
		M := mat.NewSymDense(n, nil)
		M.CopySym(Q)
		rhs := make([]float64, n)
		for j := range rhs {
			rhs[j] = -rd[j]
		}
		for i := 0; i < mc; i++ {
			d := lam[i] / s[i]
			for j, gj := range G[i] {
				if gj == 0 {
					continue
				}
				for k := j; k < n; k++ {
					M.SetSym(j, k, M.At(j, k)+d*gj*G[i][k])
				}
				rhs[j] += gj * (sigma*mu - s[i]*lam[i] - lam[i]*rp[i]) / s[i]
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(M) {
			dmax := 0.0
			for j := 0; j < n; j++ {
				dmax = math.Max(dmax, M.At(j, j))
			}
			for j := 0; j < n; j++ {
				M.SetSym(j, j, M.At(j, j)+1e-13*dmax)
			}
			if !ch.Factorize(M) {
				t.Fatalf("denseQP: Newton matrix not PD (mu %g)", mu)
			}
		}
		var dxv mat.VecDense
		if err := ch.SolveVecTo(&dxv, mat.NewVecDense(n, rhs)); err != nil {
			if _, ok := err.(mat.Condition); !ok {
				t.Fatal(err)
			}
		}
		dx := dxv.RawVector().Data
		ds := make([]float64, mc)
		dl := make([]float64, mc)
		alpha := 1.0
		for i := 0; i < mc; i++ {
			ds[i] = gx(dx, i) + rp[i]
			dl[i] = (sigma*mu - s[i]*lam[i] - lam[i]*ds[i]) / s[i]
			if ds[i] < 0 {
				alpha = math.Min(alpha, -0.99*s[i]/ds[i])
			}
			if dl[i] < 0 {
				alpha = math.Min(alpha, -0.99*lam[i]/dl[i])
			}
		}
		for j := range x {
			x[j] += alpha * dx[j]
		}
		for i := 0; i < mc; i++ {
			s[i] += alpha * ds[i]
			lam[i] += alpha * dl[i]
		}
	}
	t.Fatalf("denseQP: no convergence: %s", last)
	return nil, 0
}

// cosPoly evaluates c(ω) = Σ g(k) cos(kω) and its first two derivatives.
func cosPoly(g []float64, w float64) (c, dc, ddc float64) {
	for k, v := range g {
		fk := float64(k)
		sn, cs := math.Sincos(fk * w)
		c += v * cs
		dc -= v * fk * sn
		ddc -= v * fk * fk * cs
	}
	return
}

// refBlock describes a constrained block for the reference solver.
type refBlock struct {
	off, m             int
	cone               bool
	margin, rho, decay float64
}

// exchangeRef solves the continuous problem by an exchange method: sampled
// constraints c_j(ω) ≥ margin_j on a growing set of frequencies, each round
// adding the local minima of c_j found on a grid of `grid` points (refined by
// Newton's method on c_j'), until min c_j ≥ margin_j − 1e-11·scale. It returns
// θ, the objective, and the rounds it took. The result is a lower bound of the
// true optimum (a relaxation) that is feasible to 1e-11.
func exchangeRef(t testing.TB, Q *mat.SymDense, b []float64, blocks []refBlock, grid int) ([]float64, float64, int) {
	n := len(b)
	var G [][]float64
	var h []float64
	addFreq := func(bl refBlock, w float64) {
		row := make([]float64, n)
		for k := 0; k < bl.m; k++ {
			row[bl.off+k] = math.Cos(float64(k) * w)
		}
		G = append(G, row)
		h = append(h, bl.margin)
	}
	for _, bl := range blocks {
		if bl.rho > 0 {
			for k := 0; k < bl.m; k++ {
				r := bl.rho * math.Pow(bl.decay, float64(k))
				up := make([]float64, n)
				up[bl.off+k] = -1
				lo := make([]float64, n)
				lo[bl.off+k] = 1
				G = append(G, up, lo)
				h = append(h, -r, -r)
			}
		}
		if bl.cone {
			for i := 0; i <= 16; i++ {
				addFreq(bl, math.Pi*float64(i)/16)
			}
		}
	}
	for round := 1; round <= 60; round++ {
		x, f := denseQP(t, Q, b, G, h)
		added := 0
		for _, bl := range blocks {
			if !bl.cone {
				continue
			}
			g := x[bl.off : bl.off+bl.m]
			scale := 1.0
			for _, v := range g {
				scale = math.Max(scale, math.Abs(v))
			}
			vals := make([]float64, grid+1)
			for i := range vals {
				vals[i], _, _ = cosPoly(g, math.Pi*float64(i)/float64(grid))
			}
			for i := 0; i <= grid; i++ {
				if (i > 0 && vals[i] > vals[i-1]) || (i < grid && vals[i] > vals[i+1]) {
					continue
				}
				w := math.Pi * float64(i) / float64(grid)
				for it := 0; it < 20 && i > 0 && i < grid; it++ {
					_, d1, d2 := cosPoly(g, w)
					if d2 <= 0 {
						break
					}
					w = math.Min(math.Max(w-d1/d2, 0), math.Pi)
				}
				c, _, _ := cosPoly(g, w)
				if c < bl.margin-1e-11*scale {
					addFreq(bl, w)
					added++
				}
			}
		}
		if added == 0 {
			return x, f, round
		}
	}
	t.Fatalf("exchangeRef: no convergence")
	return nil, 0, 0
}

// randomProblem returns P = AᵀA (well conditioned) and b whose unconstrained
// minimizer is far from passive.
func randomProblem(seed uint64, n int) (*mat.SymDense, []float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	A := mat.NewDense(2*n, n, nil)
	for i := 0; i < 2*n; i++ {
		for j := 0; j < n; j++ {
			A.Set(i, j, rng.NormFloat64())
		}
	}
	P := mat.NewSymDense(n, nil)
	P.SymOuterK(1, A.T())
	// Target taps with strongly negative real part at high frequency.
	x := make([]float64, n)
	for k := range x {
		x[k] = math.Pow(-0.8, float64(k)) * (2 + rng.NormFloat64())
		if k == 0 {
			x[k] = 0.5
		}
	}
	b := make([]float64, n)
	bv := mat.NewVecDense(n, b)
	bv.MulVec(P, mat.NewVecDense(n, x))
	for i := range b {
		b[i] += rng.NormFloat64()
	}
	return P, b
}

// msdBatches simulates batches experiments of T samples of a lightly damped,
// passive (force → velocity) mass-spring-damper, m ẍ = u − k x − c ẋ with
// m = 0.1, k = 10, c = 0.05, from zero initial state, driven by sums of ten
// sines with random phases (zero-order hold, RK4 with 20 substeps, Ts = 0.02),
// with 1 % output noise.
func msdBatches(seed uint64, batches, T int) (u, y [][]float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	const (
		mass, spring, damp = 0.1, 10.0, 0.05
		ts                 = 0.02
		sub                = 20
	)
	f := func(x, v, u float64) (float64, float64) { return v, (u - spring*x - damp*v) / mass }
	for bi := 0; bi < batches; bi++ {
		ub := make([]float64, T)
		for k := 1; k <= 10; k++ {
			ph := 2 * math.Pi * rng.Float64()
			w := 0.4 * math.Pi * float64(2*k-1)
			for i := range ub {
				ub[i] += 1.5 * math.Sin(w*float64(i)*ts+ph)
			}
		}
		yb := make([]float64, T)
		x, v := 0.0, 0.0
		h := ts / sub
		for i := 0; i+1 < T; i++ {
			for s := 0; s < sub; s++ {
				k1x, k1v := f(x, v, ub[i])
				k2x, k2v := f(x+0.5*h*k1x, v+0.5*h*k1v, ub[i])
				k3x, k3v := f(x+0.5*h*k2x, v+0.5*h*k2v, ub[i])
				k4x, k4v := f(x+h*k3x, v+h*k3v, ub[i])
				x += h / 6 * (k1x + 2*k2x + 2*k3x + k4x)
				v += h / 6 * (k1v + 2*k2v + 2*k3v + k4v)
			}
			yb[i+1] = v + 0.01*rng.NormFloat64()
		}
		u = append(u, ub)
		y = append(y, yb)
	}
	return u, y
}

// msdGram returns P = Σ ΦᵀΦ and b = Σ Φᵀy (convex.FIRGram) of msdBatches.
func msdGram(t testing.TB, seed uint64, batches, T, mG int) (*mat.SymDense, []float64) {
	u, y := msdBatches(seed, batches, T)
	P, b, err := convex.FIRGram(u, y, mG)
	if err != nil {
		t.Fatal(err)
	}
	return P, b
}
