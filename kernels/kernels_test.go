package kernels

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/passivenfir/gputrain/internal/chol"
)

type convCase struct {
	name       string
	lengths    []int
	mN, mG, mL int
}

// Ragged trajectories: length 1, 0, shorter than m_G, longer than a Gram block.
var convCases = []convCase{
	{"one", []int{1}, 1, 1, 1},
	{"ragged", []int{7, 1, 3, 12, 0, 5}, 3, 5, 4},
	{"short<mG", []int{4, 30, 2, 1}, 4, 9, 0},
	{"linear-only", []int{6, 1, 9}, 0, 0, 5},
	{"long", []int{600, 3, 301}, 2, 7, 3},
	{"msd-ish", []int{250, 250, 40, 250}, 10, 50, 0},
}

func (cc convCase) inputs(seed uint64) (s Seqs, u, n, g, lin []float64, rng *rand.Rand) {
	rng = rand.New(rand.NewPCG(seed, seed))
	s, err := NewSeqs(cc.lengths...)
	if err != nil {
		panic(err)
	}
	N := s.Total()
	return s, randVec(rng, N, 1), randVec(rng, N*cc.mN, 1), randVec(rng, cc.mN*cc.mG, 1), randVec(rng, cc.mL, 1), rng
}

func backends() []*CPU { return []*CPU{{Workers: 1}, {Workers: 2}, {Workers: 5}} }

func TestSeqs(t *testing.T) {
	s, err := NewSeqs(3, 0, 5)
	if err != nil || s.Batches() != 3 || s.Total() != 8 || s.Len(2) != 5 || s.MaxLen() != 5 || s.Check() != nil {
		t.Fatalf("NewSeqs(3,0,5) = %+v, %v", s, err)
	}
	if _, err := NewSeqs(2, -1); !errors.Is(err, ErrShape) {
		t.Errorf("negative length: err = %v", err)
	}
	for _, bad := range []Seqs{{}, {Off: []int{1, 2}}, {Off: []int{0, 3, 2}}} {
		if err := bad.Check(); !errors.Is(err, ErrShape) {
			t.Errorf("Check(%v) = %v, want ErrShape", bad.Off, err)
		}
	}
	if u := Uniform(3, 4); !slices.Equal(u.Off, []int{0, 4, 8, 12}) {
		t.Errorf("Uniform(3,4) = %v", u.Off)
	}
	for _, tc := range []struct {
		off []int
		W   int
	}{{[]int{0, 10, 20, 30, 40}, 2}, {[]int{0, 100, 101, 102}, 2}, {[]int{0, 5}, 3}, {[]int{0, 3, 3, 9}, 4}} {
		b := Seqs{Off: tc.off}.split(tc.W, nil)
		if len(b) != tc.W+1 || b[0] != 0 || b[tc.W] != len(tc.off)-1 || !slices.IsSorted(b) {
			t.Errorf("split(%v, %d) = %v", tc.off, tc.W, b)
		}
	}
}

func TestShapePanics(t *testing.T) {
	c := &CPU{}
	for name, f := range map[string]func(){
		"bad seqs": func() { c.ConvForward(Seqs{Off: []int{1}}, 1, 1, nil, nil, nil, nil, nil) },
		"short u": func() {
			c.ConvForward(Uniform(1, 3), 1, 1, make([]float64, 2), make([]float64, 3), make([]float64, 1), make([]float64, 3), make([]float64, 3))
		},
		"short dw": func() {
			c.DenseTanhBackward(2, 2, 2, make([]float64, 4), make([]float64, 4), make([]float64, 4), make([]float64, 4), nil, make([]float64, 3), make([]float64, 2))
		},
		"short P": func() {
			c.Gram(Uniform(1, 3), 1, 2, 0, make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 3), make([]float64, 2))
		},
		"bad loop": func() {
			c.ClosedLoopForward(&ClosedLoop{MN: 2, MG: 1, R1: 1, Sizes: []int{1, 3}}, Uniform(1, 2), nil, nil, nil, nil, nil, &Tape{})
		},
		"nil tape": func() {
			c.ClosedLoopForward(&ClosedLoop{ML: 1}, Uniform(1, 2), nil, []float64{}, []float64{1}, make([]float64, 2), make([]float64, 2), nil)
		},
		"neg dims": func() { c.LinearForward(Uniform(1, 2), -1, nil, nil, nil) },
	} {
		func() {
			defer func() {
				r := recover()
				err, ok := r.(error)
				if !ok || !errors.Is(err, ErrShape) {
					t.Errorf("%s: recovered %v, want an error wrapping ErrShape", name, r)
				}
			}()
			f()
		}()
	}
}

func TestConvForward(t *testing.T) {
	for _, cc := range convCases {
		s, u, n, g, lin, _ := cc.inputs(1)
		zr, yr := refConv(s, cc.mN, cc.mG, u, n, g)
		ylr := refLinear(s, cc.mL, u, lin)
		for _, c := range backends() {
			t.Run(fmt.Sprintf("%s/W%d", cc.name, c.Workers), func(t *testing.T) {
				N := s.Total()
				z, y := make([]float64, N*cc.mN), make([]float64, N)
				for i := range y {
					y[i] = 99 // must be overwritten
				}
				c.ConvForward(s, cc.mN, cc.mG, u, n, g, z, y)
				checkClose(t, "z", z, zr, 1e-13)
				checkClose(t, "y", y, yr, 1e-13)
				yl := make([]float64, N)
				c.LinearForward(s, cc.mL, u, lin, yl)
				checkClose(t, "linear y", yl, ylr, 1e-13)
			})
		}
	}
}

func TestConvBackward(t *testing.T) {
	for _, cc := range convCases {
		s, u, n, g, _, rng := cc.inputs(2)
		N := s.Total()
		dy := randVec(rng, N, 1)
		zr, _ := refConv(s, cc.mN, cc.mG, u, n, g)
		dnr, dgr := refConvBackward(s, cc.mN, cc.mG, u, n, g, zr, dy)
		for _, c := range backends() {
			t.Run(fmt.Sprintf("%s/W%d", cc.name, c.Workers), func(t *testing.T) {
				dn := randVec(rng, N*cc.mN, 1) // overwritten
				dg := make([]float64, cc.mN*cc.mG)
				for i := range dg {
					dg[i] = 1 // accumulated
				}
				c.ConvBackward(s, cc.mN, cc.mG, u, n, g, zr, dy, dn, dg)
				for i := range dg {
					dg[i]--
				}
				checkClose(t, "dn", dn, dnr, 1e-12)
				checkClose(t, "dg", dg, dgr, 1e-12)
				dn2 := make([]float64, N*cc.mN)
				c.ConvBackward(s, cc.mN, cc.mG, u, n, g, zr, dy, dn2, nil)
				if !slices.Equal(dn, dn2) {
					t.Errorf("dn differs with dg == nil")
				}
			})
		}
	}
}

// TestConvGradFD checks ConvBackward and LinearBackward against central
// finite differences of the loss ℓ = Σ_t dy(t) y(t).
func TestConvGradFD(t *testing.T) {
	c := &CPU{Workers: 2}
	for _, cc := range convCases[:4] {
		t.Run(cc.name, func(t *testing.T) {
			s, u, n, g, lin, rng := cc.inputs(3)
			N := s.Total()
			dy := randVec(rng, N, 1)
			z, y := make([]float64, N*cc.mN), make([]float64, N)
			loss := func() float64 {
				c.ConvForward(s, cc.mN, cc.mG, u, n, g, z, y)
				c.LinearForward(s, cc.mL, u, lin, y)
				return dot(dy, y)
			}
			loss()
			dn, dg, dlin := make([]float64, N*cc.mN), make([]float64, cc.mN*cc.mG), make([]float64, cc.mL)
			c.ConvBackward(s, cc.mN, cc.mG, u, n, g, z, dy, dn, dg)
			c.LinearBackward(s, cc.mL, u, dy, dlin)
			checkClose(t, "dn", dn, fdGrad(loss, n, 1e-5), 1e-6)
			checkClose(t, "dg", dg, fdGrad(loss, g, 1e-5), 1e-6)
			checkClose(t, "dlin", dlin, fdGrad(loss, lin, 1e-5), 1e-6)
		})
	}
}

func TestGram(t *testing.T) {
	cases := append(slices.Clone(convCases), convCase{"robot-ish", []int{700}, 3, 40, 20})
	for _, cc := range cases {
		s, u, n, _, _, rng := cc.inputs(4)
		N := s.Total()
		y := randVec(rng, N, 1)
		nt := cc.mN*cc.mG + cc.mL
		phi := refPhi(s, cc.mN, cc.mG, cc.mL, u, n)
		Pr, br, yyr := make([]float64, nt*nt), make([]float64, nt), 0.0
		for r := range N {
			row := phi[r*nt : (r+1)*nt]
			for i := range nt {
				br[i] += row[i] * y[r]
				for j := range nt {
					Pr[i*nt+j] += row[i] * row[j]
				}
			}
			yyr += y[r] * y[r]
		}
		for _, c := range backends() {
			for _, fast := range gramPaths() {
				t.Run(fmt.Sprintf("%s/W%d/fast=%v", cc.name, c.Workers, fast), func(t *testing.T) {
					defer setFastGram(fast)()
					P, b := randVec(rng, nt*nt, 1), randVec(rng, nt, 1) // overwritten
					yy := c.Gram(s, cc.mN, cc.mG, cc.mL, u, n, y, P, b)
					checkClose(t, "P", P, Pr, 1e-10)
					checkClose(t, "b", b, br, 1e-10)
					checkClose(t, "yy", []float64{yy}, []float64{yyr}, 1e-12)
					for i := range nt {
						for j := range i {
							if P[i*nt+j] != P[j*nt+i] {
								t.Fatalf("P not symmetric at %d,%d", i, j)
							}
						}
					}
				})
			}
		}
	}
}

// gramPaths are the Gram paths this machine runs: gonum's Dsyrk (the
// reference) and, with AVX2 and FMA, chol.SubATA.
func gramPaths() []bool {
	if chol.Fast() {
		return []bool{false, true}
	}
	return []bool{false}
}

// setFastGram selects a Gram path and returns the function that restores
// the default.
func setFastGram(fast bool) func() {
	old := fastGram
	fastGram = fast
	return func() { fastGram = old }
}

func TestDense(t *testing.T) {
	for _, tc := range []struct{ rows, in, out int }{
		{1, 1, 1}, {7, 2, 4}, {1000, 4, 10}, {513, 12, 9}, {300, 20, 30}, {5, 0, 3},
	} {
		t.Run(fmt.Sprintf("%dx%d→%d", tc.rows, tc.in, tc.out), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 5))
			x := randVec(rng, tc.rows*tc.in, 1)
			w := randVec(rng, tc.out*tc.in, 1)
			b := randVec(rng, tc.out, 0.5)
			dy := randVec(rng, tc.rows*tc.out, 1)
			yr := refDense(tc.rows, tc.in, tc.out, x, w, b)
			var first []float64
			for _, c := range backends() {
				y := make([]float64, tc.rows*tc.out)
				c.DenseTanhForward(tc.rows, tc.in, tc.out, x, w, b, y)
				checkClose(t, "y", y, yr, 1e-14)
				dx := randVec(rng, tc.rows*tc.in, 1)
				dw, db := make([]float64, tc.out*tc.in), make([]float64, tc.out)
				c.DenseTanhBackward(tc.rows, tc.in, tc.out, x, w, y, dy, dx, dw, db)
				all := slices.Concat(dx, dw, db)
				if first == nil && tc.rows*(tc.in+tc.out) <= 5000 {
					loss := func() float64 {
						c.DenseTanhForward(tc.rows, tc.in, tc.out, x, w, b, y)
						return dot(dy, y)
					}
					checkClose(t, "dx", dx, fdGrad(loss, x, 1e-5), 1e-6)
					checkClose(t, "dw", dw, fdGrad(loss, w, 1e-5), 1e-6)
					checkClose(t, "db", db, fdGrad(loss, b, 1e-5), 1e-6)
					loss() // y at the unperturbed point again
				}
				if first == nil {
					first = all
				} else {
					checkClose(t, fmt.Sprintf("W%d vs W1", c.Workers), all, first, 1e-12)
				}
				dw2, db2 := make([]float64, tc.out*tc.in), make([]float64, tc.out)
				c.DenseTanhBackward(tc.rows, tc.in, tc.out, x, w, y, dy, nil, dw2, db2)
				if !slices.Equal(dw, dw2) || !slices.Equal(db, db2) {
					t.Errorf("W%d: dw, db differ with dx == nil", c.Workers)
				}
			}
		})
	}
}

type loopCase struct {
	name    string
	lengths []int
	loop    ClosedLoop
	hidden  []int
}

var loopCases = []loopCase{
	{"ff", []int{9, 1, 4, 15}, ClosedLoop{MN: 3, MG: 5, ML: 4, R1: 3}, []int{4}},
	{"fb", []int{11, 1, 3, 16, 0}, ClosedLoop{MN: 2, MG: 6, ML: 3, R1: 2, R2: 3, Feedback: true}, []int{5, 3}},
	{"fb-nolin", []int{20, 2}, ClosedLoop{MN: 3, MG: 4, R1: 1, R2: 2, Feedback: true}, []int{4, 4}},
	{"fb-hold", []int{11, 1, 3, 16, 0}, ClosedLoop{MN: 2, MG: 6, ML: 3, R1: 4, R2: 3, Feedback: true, HoldU: true}, []int{5, 3}},
	{"ff-hold", []int{9, 1, 4, 15}, ClosedLoop{MN: 3, MG: 5, ML: 4, R1: 5, HoldU: true}, []int{4}},
	{"fb-msd", []int{60, 25, 1}, ClosedLoop{MN: 10, MG: 50, R1: 1, R2: 1, Feedback: true}, []int{4, 4}},
	{"linear-only", []int{7, 3}, ClosedLoop{ML: 4}, nil},
}

func (lc loopCase) inputs(seed uint64) (c *ClosedLoop, s Seqs, theta, g, lin, u []float64, rng *rand.Rand) {
	rng = rand.New(rand.NewPCG(seed, seed))
	cl := lc.loop
	if cl.MN > 0 {
		cl.Sizes = slices.Concat([]int{cl.Features()}, lc.hidden, []int{cl.MN})
	}
	cl.UA, cl.UB, cl.QA, cl.QB = 1.3, 0.2, 0.8, -0.3
	s, _ = NewSeqs(lc.lengths...)
	theta = randVec(rng, cl.NumParams(), 0.8)
	// Small taps keep the closed loop well behaved.
	g = randVec(rng, cl.MN*cl.MG, 0.3/float64(max(1, cl.MG)))
	lin = randVec(rng, cl.ML, 0.2)
	u = randVec(rng, s.Total(), 1)
	return &cl, s, theta, g, lin, u, rng
}

func TestClosedLoopForward(t *testing.T) {
	for _, lc := range loopCases {
		cl, s, theta, g, lin, u, _ := lc.inputs(6)
		if err := cl.Check(); err != nil {
			t.Fatal(err)
		}
		yr := refClosedLoop(cl, s, theta, g, lin, u)
		for _, c := range backends() {
			t.Run(fmt.Sprintf("%s/W%d", lc.name, c.Workers), func(t *testing.T) {
				y := randVec(rand.New(rand.NewPCG(0, 0)), s.Total(), 9)
				var tape Tape
				c.ClosedLoopForward(cl, s, theta, g, lin, u, y, &tape)
				checkClose(t, "y", y, yr, 1e-12)
				if cl.MN > 0 {
					// The tape's gains and z reproduce y through ConvForward.
					z, y2 := make([]float64, s.Total()*cl.MN), make([]float64, s.Total())
					c.ConvForward(s, cl.MN, cl.MG, u, tape.Gains(), g, z, y2)
					c.LinearForward(s, cl.ML, u, lin, y2)
					checkClose(t, "tape z", tape.Z, z, 1e-12)
					checkClose(t, "tape y", y2, yr, 1e-12)
				}
			})
		}
	}
}

// TestClosedLoopBackwardFD checks BPTT against central finite differences of
// ℓ = Σ_t c(t) ŷ(t) w.r.t. θ_N, g and lin.
func TestClosedLoopBackwardFD(t *testing.T) {
	c := &CPU{Workers: 2}
	for _, lc := range loopCases {
		t.Run(lc.name, func(t *testing.T) {
			cl, s, theta, g, lin, u, rng := lc.inputs(7)
			dy := randVec(rng, s.Total(), 1)
			y := make([]float64, s.Total())
			var tape Tape
			loss := func() float64 {
				c.ClosedLoopForward(cl, s, theta, g, lin, u, y, &tape)
				return dot(dy, y)
			}
			loss()
			dth, dg, dlin := make([]float64, len(theta)), make([]float64, len(g)), make([]float64, len(lin))
			c.ClosedLoopBackward(cl, s, theta, g, lin, u, &tape, dy, dth, dg, dlin)
			checkClose(t, "dtheta", dth, fdGrad(loss, theta, 1e-5), 1e-6)
			checkClose(t, "dg", dg, fdGrad(loss, g, 1e-5), 1e-6)
			checkClose(t, "dlin", dlin, fdGrad(loss, lin, 1e-5), 1e-6)
			// Nil outputs are skipped without changing the others.
			dg2 := make([]float64, len(g))
			loss()
			c.ClosedLoopBackward(cl, s, theta, g, lin, u, &tape, dy, nil, dg2, nil)
			if !slices.Equal(dg, dg2) {
				t.Errorf("dg differs when dtheta, dlin are nil")
			}
		})
	}
}

// TestDeterminism: the same worker count gives bit-identical results; 1 and 2
// workers agree to 1e-12.
func TestDeterminism(t *testing.T) {
	run := func(W int) []float64 {
		c := &CPU{Workers: W}
		var out []float64
		cc := convCases[5]
		s, u, n, g, _, rng := cc.inputs(8)
		N := s.Total()
		dy := randVec(rng, N, 1)
		z, y := make([]float64, N*cc.mN), make([]float64, N)
		c.ConvForward(s, cc.mN, cc.mG, u, n, g, z, y)
		dn, dg := make([]float64, N*cc.mN), make([]float64, cc.mN*cc.mG)
		c.ConvBackward(s, cc.mN, cc.mG, u, n, g, z, dy, dn, dg)
		nt := cc.mN * cc.mG
		P, b := make([]float64, nt*nt), make([]float64, nt)
		yy := c.Gram(s, cc.mN, cc.mG, 0, u, n, y, P, b)
		out = slices.Concat(out, y, dn, dg, P, b, []float64{yy})
		lc := loopCases[3]
		cl, s2, theta, g2, lin, u2, rng2 := lc.inputs(9)
		y2 := make([]float64, s2.Total())
		var tape Tape
		c.ClosedLoopForward(cl, s2, theta, g2, lin, u2, y2, &tape)
		dth, dg2 := make([]float64, len(theta)), make([]float64, len(g2))
		c.ClosedLoopBackward(cl, s2, theta, g2, lin, u2, &tape, randVec(rng2, s2.Total(), 1), dth, dg2, nil)
		return slices.Concat(out, y2, dth, dg2)
	}
	a1, a2 := run(2), run(2)
	if !slices.Equal(a1, a2) {
		t.Errorf("two runs with 2 workers differ")
	}
	checkClose(t, "W1 vs W2", run(1), a1, 1e-12)
}

func TestSteadyStateAllocs(t *testing.T) {
	cc := convCases[5]
	s, u, n, g, _, rng := cc.inputs(10)
	N := s.Total()
	dy := randVec(rng, N, 1)
	z, y, dn, dg := make([]float64, N*cc.mN), make([]float64, N), make([]float64, N*cc.mN), make([]float64, cc.mN*cc.mG)
	c := &CPU{Workers: 2}
	f := func() {
		c.ConvForward(s, cc.mN, cc.mG, u, n, g, z, y)
		c.ConvBackward(s, cc.mN, cc.mG, u, n, g, z, dy, dn, dg)
	}
	f()
	// Only the goroutine launches allocate (the closure and the scratch
	// list), never the buffers: a few small objects per call.
	if a := testing.AllocsPerRun(20, f); a > 16 {
		t.Errorf("%v allocations per ConvForward+ConvBackward, want ≤ 16", a)
	}
}
