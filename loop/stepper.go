package loop

import (
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/internal/gru"
	"github.com/passivenfir/gputrain/model"
)

// Check reports the first parameter whose size disagrees with the
// structure, or that is not finite, naming it.
func (m *Model) Check() error {
	if err := m.Structure.Check(); err != nil {
		return err
	}
	for _, sc := range []struct {
		name string
		v    float64
	}{{"u_scale", m.SU}, {"y_scale", m.SY}} {
		if !(sc.v > 0) || math.IsInf(sc.v, 0) {
			return fmt.Errorf("%w: %s %v must be finite > 0", ErrShape, sc.name, sc.v)
		}
	}
	want := append(append([]int{m.Inputs()}, m.Hidden...), m.B1+m.B2)
	lf := &m.Lift
	if len(lf.Sizes) != len(want) || len(lf.W) != len(want)-1 || len(lf.B) != len(want)-1 {
		return fmt.Errorf("%w: lifting network sizes %v (%d weight, %d bias layers), structure wants %v", ErrShape, lf.Sizes, len(lf.W), len(lf.B), want)
	}
	for i := range want {
		if lf.Sizes[i] != want[i] {
			return fmt.Errorf("%w: lifting network sizes %v, structure wants %v", ErrShape, lf.Sizes, want)
		}
	}
	for l := range lf.W {
		if len(lf.W[l]) != want[l+1]*want[l] || len(lf.B[l]) != want[l+1] {
			return fmt.Errorf("%w: lifting network layer %d has %d weights and %d biases, want %d×%d and %d", ErrShape, l, len(lf.W[l]), len(lf.B[l]), want[l+1], want[l], want[l+1])
		}
		if !finite(lf.W[l]) || !finite(lf.B[l]) {
			return fmt.Errorf("%w: lifting network layer %d has a parameter that is not finite", ErrShape, l)
		}
	}
	for _, f := range []struct {
		name string
		v    []float64
		n    int
	}{{"F1 (b1×t1)", m.F1, m.B1 * m.T1}, {"FL1 (l1)", m.FL1, m.L1}, {"F2 (b2×t2)", m.F2, m.B2 * m.T2}, {"FL2 (l2)", m.FL2, m.L2},
		{"SA (p1)", m.SA, m.P1}, {"SB (p1)", m.SB, m.P1}, {"RT (the recurrent cell of rec units)", m.RT, m.RecCell().NumParams()}} {
		if len(f.v) != f.n {
			return fmt.Errorf("%w: factors %s: %d numbers, want %d", ErrShape, f.name, len(f.v), f.n)
		}
		if !finite(f.v) {
			return fmt.Errorf("%w: factors %s: a number is not finite", ErrShape, f.name)
		}
	}
	return nil
}

func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// FIRTaps are the taps of a model's FIRs in normalized units, computed from
// its factors by Taps, and the poles and gains of H1's sections (Sections):
// what the simulation computes with, and what the certificate is about.
type FIRTaps struct {
	G1 []float64 // H1's branches, B1×T1 row-major: G1[j*T1+k] = g1_j(k)
	L1 []float64 // H1's linear FIR
	G2 []float64 // H2's branches, B2×T2 row-major
	L2 []float64 // H2's linear FIR
	// H1's sections, s_k(t) = Poles[k] s_k(t−1) + Gains[k] e(t) (P1 each)
	Poles, Gains []float64
}

// FIRTaps returns the model's taps (new slices).
func (m *Model) FIRTaps() FIRTaps {
	t := m.taps()
	return FIRTaps{G1: t.g1, L1: t.l1, G2: t.g2, L2: t.l2, Poles: t.sa, Gains: t.sb}
}

// Stepper runs a loop one sample at a time, for a control loop that gets
// u(t) and needs y(t) before u(t+1) exists: the operator of Simulate (every
// signal at rest before the first Step) with its memory held inside. Step
// neither allocates nor reads anything but the Stepper.
//
// Each sample is the forward pass of Simulate for that sample: the gains
// n(t) from the lifting network on u'(t−R1+1..t) and y'(t−R2..t−1); each
// NFIR split into a·x(t) + r, where r holds every term
// of an earlier sample (the branch inputs w_j = n_j·x are stored, since
// n_j(t−k) multiplies x(t−k) inside the convolution); then the algebraic
// loop y' = a1 (u' − z) + r1, z = a2 y' + r2 solved in closed form,
// y'(t) = (a1 (u'(t) − r2) + r1)/(1 + a1 a2), which is well posed because
// a1, a2 ≥ 0. H1's sections add their gains b_k to a1 and a_k s_k(t−1) to
// r1, after the FIRs' terms, and hold their states s_k. A Stepper sums each
// history term by term, oldest lag last, while Simulate takes it as one dot
// product over several accumulators (gonum's floats.Dot, for speed in
// training), so the two agree to rounding: within 1e-13 of the output's
// scale on the test loops (TestStepperMatchesSimulate), not bit for bit.
//
// A Stepper copies the parameters it needs when it is made; it is not safe
// for concurrent use.
type Stepper struct {
	s              Structure
	su, sy         float64
	g1, l1, g2, l2 []float64
	sa, sb, sec    []float64 // H1's sections: poles, gains, states s_k(t−1)
	lift           model.MLP
	work, feat, n  []float64
	// Doubled rings: each value is written at i and i+len, so the lags
	// 0..len−1 of the newest sample are one run from the head. w1 and w2
	// hold T1 (T2) rows of branch inputs, eh the errors e(t−k) for L1 and
	// yh the outputs y'(t−k) for L2.
	w1, w2, eh, yh []float64
	h1, h2, he, hy int
	yPrev          float64 // y'(t−1)
	t              int
	sc, sk         []float64 // the slow states' poles and gains (StatePoles); the states live in feat
	cell           gru.Cell  // the recurrent lift's; its state lives in feat
	rt, hp, gates  []float64 // its parameters, h(t−1), and scratch
}

// NewStepper returns a Stepper for m, at rest. It fails when m does not
// pass Check.
func NewStepper(m *Model) (*Stepper, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	s := m.Structure
	s.Hidden = append([]int(nil), s.Hidden...)
	tp := m.taps()
	st := &Stepper{s: s, su: m.SU, sy: m.SY, g1: tp.g1, l1: tp.l1, g2: tp.g2, l2: tp.l2,
		sa: tp.sa, sb: tp.sb, sec: make([]float64, s.P1),
		lift: model.MLP{Sizes: append([]int(nil), m.Lift.Sizes...)},
		feat: make([]float64, s.Inputs()), n: make([]float64, s.B1+s.B2),
		w1: make([]float64, 2*s.T1*s.B1), w2: make([]float64, 2*s.T2*s.B2),
		eh: make([]float64, 2*s.L1), yh: make([]float64, 2*s.L2)}
	wmax := 0
	for l, sz := range m.Lift.Sizes {
		wmax = max(wmax, sz)
		if l < len(m.Lift.W) {
			st.lift.W = append(st.lift.W, append([]float64(nil), m.Lift.W[l]...))
			st.lift.B = append(st.lift.B, append([]float64(nil), m.Lift.B[l]...))
		}
	}
	st.work = make([]float64, 2*wmax)
	st.sc, st.sk = s.StatePoles()
	st.cell = s.RecCell()
	st.rt = append([]float64(nil), m.RT...)
	st.hp, st.gates = make([]float64, s.Rec), make([]float64, st.cell.Gates())
	return st, nil
}

// Reset returns the Stepper to rest: the next Step is sample t = 0.
func (st *Stepper) Reset() {
	clear(st.feat)
	clear(st.w1)
	clear(st.w2)
	clear(st.eh)
	clear(st.yh)
	clear(st.sec)
	st.h1, st.h2, st.he, st.hy, st.yPrev, st.t = 0, 0, 0, 0, 0, 0
}

// T returns the number of samples stepped since the last Reset.
func (st *Stepper) T() int { return st.t }

// Step takes u(t) and returns y(t), advancing the Stepper to t+1.
func (st *Stepper) Step(u float64) float64 {
	s := &st.s
	up := u / st.su
	if w := s.R1; w > 0 {
		copy(st.feat[:w-1], st.feat[1:w])
		st.feat[w-1] = up
	}
	if w := s.R2; w > 0 {
		f := st.feat[s.R1:]
		copy(f[:w-1], f[1:w])
		f[w-1] = st.yPrev
	}
	if s.S > 0 {
		x := st.feat[s.R1+s.R2:]
		for i := range s.S {
			x[i] = st.sc[i]*x[i] + st.sk[i]*up
			x[s.S+i] = st.sc[i]*x[s.S+i] + st.sk[i]*st.yPrev
		}
	}
	if s.Rec > 0 {
		h := st.feat[s.R1+s.R2+2*s.S:]
		copy(st.hp, h)
		st.cell.Step(st.rt, []float64{up, st.yPrev}, st.hp, h, st.gates)
	}
	st.lift.Eval(st.feat, st.n, st.work)
	n1, n2 := st.n[:s.B1], st.n[s.B1:]
	st.h1 = back(st.h1, s.T1)
	st.h2 = back(st.h2, s.T2)
	st.he = back(st.he, s.L1)
	st.hy = back(st.hy, s.L2)
	a1, r1 := split(st.g1, st.l1, s.T1, n1, st.w1[st.h1*s.B1:], st.eh[st.he:])
	for k, v := range st.sec {
		a1 += st.sb[k]
		r1 += st.sa[k] * v
	}
	a2, r2 := split(st.g2, st.l2, s.T2, n2, st.w2[st.h2*s.B2:], st.yh[st.hy:])
	d := 1 + a1*a2
	y := (a1*(up-r2) + r1) / d
	e := up - a2*y - r2
	for k, v := range st.sec {
		st.sec[k] = st.sa[k]*v + st.sb[k]*e
	}
	put(st.w1, st.h1, s.T1, n1, e)
	put(st.w2, st.h2, s.T2, n2, y)
	if s.L1 > 0 {
		st.eh[st.he], st.eh[st.he+s.L1] = e, e
	}
	if s.L2 > 0 {
		st.yh[st.hy], st.yh[st.hy+s.L2] = y, y
	}
	st.yPrev = y
	st.t++
	return y * st.sy
}

// back moves a ring's head one sample back (the new sample's slot).
func back(h, n int) int {
	if n == 0 {
		return 0
	}
	if h--; h < 0 {
		h = n - 1
	}
	return h
}

// split is nfirSplit on the rings: w holds the branch inputs of lags
// 0..T−1 (rows of len(n)), x the linear FIR's input of lags 0..len(l)−1;
// lag 0 is the sample being computed and is not read. Lags before t = 0
// read the zeros of Reset, which add exact zeros to the sums.
func split(g, l []float64, T int, n, w, x []float64) (a, r float64) {
	B := len(n)
	for j := 0; j < B; j++ {
		gj := g[j*T : (j+1)*T]
		sum := 0.0
		for k := 1; k < T; k++ {
			sum += gj[k] * w[k*B+j]
		}
		a += n[j] * n[j] * gj[0]
		r += n[j] * sum
	}
	if len(l) > 0 {
		a += l[0]
		for k := 1; k < len(l); k++ {
			r += l[k] * x[k]
		}
	}
	return a, r
}

// put stores the branch inputs n_j·x of the new sample at the ring's head.
func put(w []float64, h, T int, n []float64, x float64) {
	B := len(n)
	for j, v := range n {
		w[h*B+j] = v * x
		w[(h+T)*B+j] = v * x
	}
}
