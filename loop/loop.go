package loop

import (
	"errors"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/convex"
	"github.com/passivenfir/gputrain/internal/gru"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
	"gonum.org/v1/gonum/floats"
)

// ErrShape reports parameters whose dimensions disagree with the structure.
var ErrShape = errors.New("loop: inconsistent dimensions")

// Structure is the size of a loop model.
type Structure struct {
	R1     int   `json:"r1"`     // u(t−R1+1..t) seen by the lifting network
	R2     int   `json:"r2"`     // y(t−R2..t−1) seen by the lifting network
	Hidden []int `json:"hidden"` // hidden widths of the lifting network
	// The forward NFIR H1 (e ↦ y) and the feedback NFIR H2 (y ↦ z):
	// branches, taps per branch and taps of the parallel linear FIR.
	B1 int `json:"b1"`
	T1 int `json:"t1"`
	L1 int `json:"l1"`
	B2 int `json:"b2"`
	T2 int `json:"t2"`
	L2 int `json:"l2"`
	// P1 first-order sections in parallel with H1's linear FIR (Sections):
	// a long or slow memory in two numbers each, where a FIR needs hundreds
	// of taps. Omitted from a file when 0, so older files read and write
	// unchanged.
	P1 int `json:"p1,omitempty"`
	// S slow states of u and S of y that the lifting network sees beside
	// its windows (StatePoles): leaky averages over time constants longer
	// than the windows, the memory of a hidden state (the play of a gear,
	// a hysteresis) that R1 and R2 samples do not show. Omitted from a
	// file when 0.
	S int `json:"s,omitempty"`
	// Rec learned states that the lifting network sees beside its windows:
	// the state of a GRU cell driven by u(t) and y(t−1) (RecCell), trained
	// with the rest. Where the slow states S are fixed leaky averages, these
	// learn which memory of the past the gains need (the side of a play, a
	// hysteresis branch, the phase of a slow mode). They read y only up to
	// t−1, so the loop stays well posed, and Theorem 2 lets the gains be any
	// causal function of the signals, so passivity is unchanged. Omitted
	// from a file when 0.
	Rec int `json:"rec,omitempty"`
}

// RecCell is the GRU cell of the recurrent lift: inputs u(t) and y(t−1)
// (normalized), Rec units.
func (s Structure) RecCell() gru.Cell { return gru.Cell{In: 2, Units: s.Rec} }

// Inputs is the lifting network's input width: R1 samples of u, R2 of y,
// the 2S slow states and the Rec learned ones.
func (s Structure) Inputs() int { return s.R1 + s.R2 + 2*s.S + s.Rec }

// StatePoles returns the poles c_i and input gains k_i of the S slow
// states, i = 0…S−1:
//
//	x_u,i(t) = c_i x_u,i(t−1) + k_i u(t),  x_y,i(t) = c_i x_y,i(t−1) + k_i y(t−1),
//
// from zero at t = 0 (y(−1) = 0), with time constants τ_i = max(4, L1/4)·4^i
// samples, c_i = 1 − 1/τ_i and k_i = (1−c_i)·√((1+c_i)/(1−c_i)) = √(1−c_i²):
// a leaky average scaled so that white noise of unit variance gives a state
// of unit variance, which keeps the network's inputs of one size. The
// states read y only up to t−1, so the loop stays well posed; Theorem 2
// allows the gains any causal function of the past, so passivity is
// unchanged.
func (s Structure) StatePoles() (c, k []float64) {
	base := max(4.0, float64(s.L1)/4)
	for i := range s.S {
		tau := base * math.Pow(4, float64(i))
		ci := 1 - 1/tau
		c = append(c, ci)
		k = append(k, math.Sqrt(1-ci*ci))
	}
	return c, k
}

// Check reports the first inconsistent size.
func (s Structure) Check() error {
	switch {
	case s.R1 < 0 || s.R2 < 0 || s.S < 0 || s.Rec < 0 || s.R1+s.R2+s.S+s.Rec < 1:
		return fmt.Errorf("%w: windows r1 %d, r2 %d, states s %d and rec %d: each ≥ 0, together ≥ 1", ErrShape, s.R1, s.R2, s.S, s.Rec)
	case s.B1 < 0 || s.B2 < 0 || s.L1 < 0 || s.L2 < 0 || s.T1 < 0 || s.T2 < 0 || s.P1 < 0:
		return fmt.Errorf("%w: negative size in %+v", ErrShape, s)
	case (s.B1 > 0 && s.T1 < 1) || (s.B2 > 0 && s.T2 < 1):
		return fmt.Errorf("%w: branches need ≥ 1 tap", ErrShape)
	case s.B1+s.L1 == 0:
		return fmt.Errorf("%w: the forward NFIR has no FIR", ErrShape)
	case s.B1+s.B2 == 0:
		return fmt.Errorf("%w: no branch for the lifting network to scale", ErrShape)
	}
	for _, h := range s.Hidden {
		if h < 1 {
			return fmt.Errorf("%w: hidden width %d", ErrShape, h)
		}
	}
	return nil
}

// Memory is the number of past samples one output depends on directly.
func (s Structure) Memory() int { return max(s.R1, s.R2, s.T1, s.T2, s.L1, s.L2) }

// Model is the loop operator in normalized units: u' = u/SU enters, y =
// SY·y' leaves. Its FIR taps are the half-autocorrelations of the factors
// (Taps), so every parameter value is passive.
type Model struct {
	Structure
	SU, SY float64
	Lift   model.MLP // sizes [R1+R2, Hidden…, B1+B2], tanh on every layer
	// Factors: H1's branches (B1×T1 row-major) and linear FIR (L1), H2's
	// branches (B2×T2) and linear FIR (L2).
	F1, FL1, F2, FL2 []float64
	// SA and SB (P1 each) are the free parameters α_k, β_k of H1's
	// first-order sections: pole and gain by Sections.
	SA, SB []float64
	// RT is the recurrent lift's GRU cell (RecCell's parameter order):
	// empty when Rec = 0.
	RT []float64
}

// New returns a model of structure s with zero parameters and unit scales.
func New(s Structure) (*Model, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	sizes := append(append([]int{s.Inputs()}, s.Hidden...), s.B1+s.B2)
	return &Model{Structure: s, SU: 1, SY: 1, Lift: model.NewMLP(sizes...),
		F1: make([]float64, s.B1*s.T1), FL1: make([]float64, s.L1),
		F2: make([]float64, s.B2*s.T2), FL2: make([]float64, s.L2),
		SA: make([]float64, s.P1), SB: make([]float64, s.P1), RT: make([]float64, s.RecCell().NumParams())}, nil
}

// Margin is the relative margin of Taps: Re G ≥ Margin·Σf² on every
// frequency, so that a certificate computed with rounding bounds agrees.
const Margin = 1e-6

// Taps maps factors f (length m) to the taps g of a passive FIR:
// g(0) = (1+2·Margin)/2·Σf(i)², g(k) = Σ_i f(i) f(i+k). Then
// Re G(e^{iω}) = |F(e^{iω})|²/2 + Margin·Σf² ≥ 0 (Fejér–Riesz: every FIR with
// Re G ≥ 0 of m taps is |F|²/2 for some F of m taps, so no passive FIR is
// lost).
func Taps(f, g []float64) {
	for k := range g {
		s := 0.0
		for i := 0; i+k < len(f); i++ {
			s += f[i] * f[i+k]
		}
		g[k] = s
	}
	if len(g) > 0 {
		g[0] *= 0.5 + Margin
	}
}

// tapsGrad adds to df the gradient through Taps of dg.
func tapsGrad(f, dg, df []float64) {
	m := len(f)
	for i := 0; i < m; i++ {
		s := dg[0] * (1 + 2*Margin) * f[i]
		for k := 1; k < m; k++ {
			if i+k < m {
				s += dg[k] * f[i+k]
			}
			if i-k >= 0 {
				s += dg[k] * f[i-k]
			}
		}
		df[i] += s
	}
}

// taps is the model's taps in normalized units, and the poles and gains of
// H1's sections.
type taps struct{ g1, l1, g2, l2, sa, sb []float64 }

func (m *Model) taps() taps {
	t := taps{make([]float64, len(m.F1)), make([]float64, len(m.FL1)), make([]float64, len(m.F2)), make([]float64, len(m.FL2)),
		make([]float64, len(m.SA)), make([]float64, len(m.SB))}
	Sections(m.SA, m.SB, t.sa, t.sb)
	for j := 0; j < m.B1; j++ {
		Taps(m.F1[j*m.T1:(j+1)*m.T1], t.g1[j*m.T1:(j+1)*m.T1])
	}
	for j := 0; j < m.B2; j++ {
		Taps(m.F2[j*m.T2:(j+1)*m.T2], t.g2[j*m.T2:(j+1)*m.T2])
	}
	Taps(m.FL1, t.l1)
	Taps(m.FL2, t.l2)
	return t
}

// reversed is t's FIR taps in reverse order, branch by branch (B1 branches
// of T1 taps in g1, B2 of T2 in g2): g(T−1−i) at i. The history sum
// Σ_{k=1..K} g(k) w(t−k) is then one dot product of two contiguous
// slices that run the same way, which gonum's floats.Dot computes with
// several accumulators in assembly, where the loop over k was bound by
// the latency of one chain of additions (on the wide loop of a 250-tap
// memory, 56 % of a training step; docs/BENCHMARKS.md, session 44).
func (t taps) reversed(m *Model) taps {
	rev := func(g []float64, B, T int) []float64 {
		out := make([]float64, len(g))
		for j := 0; j < B; j++ {
			for i := 0; i < T; i++ {
				out[j*T+i] = g[j*T+T-1-i]
			}
		}
		return out
	}
	return taps{g1: rev(t.g1, m.B1, m.T1), l1: rev(t.l1, 1, len(t.l1)), g2: rev(t.g2, m.B2, m.T2), l2: rev(t.l2, 1, len(t.l2)), sa: t.sa, sb: t.sb}
}

// NumParams is the number of trained parameters.
func (m *Model) NumParams() int {
	return m.Lift.NumParams() + len(m.F1) + len(m.FL1) + len(m.F2) + len(m.FL2) + len(m.SA) + len(m.SB) + len(m.RT)
}

// Certificate is the exact certificate of every FIR and section of the
// loop.
type Certificate struct {
	Passive bool
	// MinRe is the smallest min Re G over the FIRs and the sections
	// (SectionMinRe's bound for a section; normalized units).
	MinRe    float64
	FIRs     int
	Sections int // H1's first-order sections certified
}

// Certify certifies every FIR of H1 and H2 (convex.Certify, exact) and
// every section of H1 (|a| < 1 and b ≥ 0, SectionMinRe): the loop is
// passive when all are (the passivity theorem; docs in doc.go).
func (m *Model) Certify() (Certificate, error) {
	c := Certificate{Passive: true, MinRe: math.Inf(1)}
	t := m.taps()
	for k := range t.sa {
		a, b := t.sa[k], t.sb[k]
		re, _ := SectionMinRe(a, b)
		c.Sections++
		c.Passive = c.Passive && math.Abs(a) < 1 && b >= 0
		c.MinRe = math.Min(c.MinRe, re)
	}
	check := func(g []float64) error {
		if len(g) == 0 {
			return nil
		}
		bc, err := convex.Certify(g)
		if err != nil {
			return err
		}
		c.FIRs++
		c.Passive = c.Passive && bc.Passive
		c.MinRe = math.Min(c.MinRe, bc.MinRe)
		return nil
	}
	for j := 0; j < m.B1; j++ {
		if err := check(t.g1[j*m.T1 : (j+1)*m.T1]); err != nil {
			return c, err
		}
	}
	for j := 0; j < m.B2; j++ {
		if err := check(t.g2[j*m.T2 : (j+1)*m.T2]); err != nil {
			return c, err
		}
	}
	for _, g := range [][]float64{t.l1, t.l2} {
		if err := check(g); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Simulate returns the closed-loop output of one record from rest.
func (m *Model) Simulate(u []float64) []float64 {
	y := make([]float64, len(u))
	us := make([]float64, len(u))
	for i, v := range u {
		us[i] = v / m.SU
	}
	m.forward(m.taps(), us, y, nil)
	for i := range y {
		y[i] *= m.SY
	}
	return y
}

// tape holds what the adjoint of forward needs, per sample.
type tape struct {
	acts   [][]float64 // per layer l (0 = input), T × Sizes[l]
	s1, s2 []float64   // T × B: Σ_{k≥1} g_j(k) w_j(t−k)
	a1, a2 []float64
	r2, d  []float64
	e      []float64
	w1, w2 []float64 // B × T: n_j(t)·e(t), n_j(t)·y(t) at j·T+t, each branch's samples contiguous (nfirSplit)
	sec    []float64 // T × P1: the sections' states s_k(t−1)
	hs     []float64 // (T+1) × Rec: the recurrent states h(t−1), from h(−1) = 0
	gates  []float64 // T × RecCell().Gates()
}

func newTape(m *Model, T int) *tape {
	tp := &tape{s1: make([]float64, T*m.B1), s2: make([]float64, T*m.B2),
		a1: make([]float64, T), a2: make([]float64, T), r2: make([]float64, T), d: make([]float64, T),
		e: make([]float64, T), w1: make([]float64, T*m.B1), w2: make([]float64, T*m.B2), sec: make([]float64, T*m.P1),
		hs: make([]float64, (T+1)*m.Rec), gates: make([]float64, T*m.RecCell().Gates())}
	for _, sz := range m.Lift.Sizes {
		tp.acts = append(tp.acts, make([]float64, T*sz))
	}
	return tp
}

// forward simulates the loop on normalized input u into y (normalized):
//
//	n(t) = MLP(u(t−R1+1..t), y(t−R2..t−1))   (zeros before t = 0)
//	y(t) = Σ_j n1_j(t) Σ_k g1_j(k) n1_j(t−k) e(t−k) + Σ_k l1(k) e(t−k) + Σ_k s_k(t) = a1(t) e(t) + r1(t)
//	s_k(t) = a_k s_k(t−1) + b_k e(t)   (H1's sections: b_k in a1, a_k s_k(t−1) in r1)
//	z(t) = Σ_j n2_j(t) Σ_k g2_j(k) n2_j(t−k) y(t−k) + Σ_k l2(k) y(t−k) = a2(t) y(t) + r2(t)
//	e(t) = u(t) − z(t)
//
// so y(t) = (a1 (u − r2) + r1)/(1 + a1 a2), with a1, a2 ≥ 0 (every passive
// FIR has g(0) ≥ 0): the loop is well posed. tp, when not nil, records the
// adjoint's needs.
func (m *Model) forward(t taps, u, y []float64, tp *tape) {
	T := len(u)
	B1, B2 := m.B1, m.B2
	sizes := m.Lift.Sizes
	wmax := 0
	for _, s := range sizes {
		wmax = max(wmax, s)
	}
	var w1, w2, e []float64
	if tp != nil {
		w1, w2, e = tp.w1, tp.w2, tp.e
	} else {
		w1, w2, e = make([]float64, T*B1), make([]float64, T*B2), make([]float64, T)
	}
	cur := make([]float64, wmax)
	nxt := make([]float64, wmax)
	n := make([]float64, B1+B2)
	sec := make([]float64, m.P1) // s_k(t−1)
	sc, sk := m.StatePoles()
	xs := make([]float64, 2*m.S) // x_u(t−1), x_y(t−1)
	cell := m.RecCell()
	var hs, gates []float64 // the recurrent states and the gates of one step
	if tp != nil {
		hs, gates = tp.hs, tp.gates
	} else if m.Rec > 0 {
		hs, gates = make([]float64, 2*m.Rec), make([]float64, cell.Gates())
	}
	var rin [2]float64
	rv := t.reversed(m)
	for tt := 0; tt < T; tt++ {
		// features, oldest first
		x := cur[:sizes[0]]
		for i := 0; i < m.R1; i++ {
			if k := tt - m.R1 + 1 + i; k >= 0 {
				x[i] = u[k]
			} else {
				x[i] = 0
			}
		}
		for i := 0; i < m.R2; i++ {
			if k := tt - m.R2 + i; k >= 0 {
				x[m.R1+i] = y[k]
			} else {
				x[m.R1+i] = 0
			}
		}
		if m.S > 0 {
			yp := 0.0
			if tt > 0 {
				yp = y[tt-1]
			}
			for i := range m.S {
				xs[i] = sc[i]*xs[i] + sk[i]*u[tt]
				xs[m.S+i] = sc[i]*xs[m.S+i] + sk[i]*yp
			}
			copy(x[m.R1+m.R2:], xs)
		}
		if m.Rec > 0 {
			rin[0], rin[1] = u[tt], 0
			if tt > 0 {
				rin[1] = y[tt-1]
			}
			H := m.Rec
			if tp != nil {
				cell.Step(m.RT, rin[:], hs[tt*H:(tt+1)*H], hs[(tt+1)*H:(tt+2)*H], gates[tt*cell.Gates():(tt+1)*cell.Gates()])
				copy(x[m.R1+m.R2+2*m.S:], hs[(tt+1)*H:(tt+2)*H])
			} else {
				cell.Step(m.RT, rin[:], hs[:H], hs[H:], gates)
				copy(hs[:H], hs[H:])
				copy(x[m.R1+m.R2+2*m.S:], hs[H:])
			}
		}
		if tp != nil {
			copy(tp.acts[0][tt*sizes[0]:], x)
		}
		in := x
		for l := range m.Lift.W {
			nIn, nOut := sizes[l], sizes[l+1]
			dst := nxt[:nOut]
			if l == len(m.Lift.W)-1 {
				dst = n
			}
			W := m.Lift.W[l]
			for i := 0; i < nOut; i++ {
				dst[i] = m.Lift.B[l][i] + floats.Dot(W[i*nIn:(i+1)*nIn], in)
			}
			kernels.TanhExact(dst, dst) // math.Tanh, as the Stepper and the C export take it
			if tp != nil {
				copy(tp.acts[l+1][tt*nOut:], dst)
			}
			if l < len(m.Lift.W)-1 {
				in = dst
				cur, nxt = nxt, cur
			}
		}
		n1, n2 := n[:B1], n[B1:]
		var s1, s2 []float64
		if tp != nil {
			s1, s2 = tp.s1[tt*B1:(tt+1)*B1], tp.s2[tt*B2:(tt+1)*B2]
		}
		a1, r1 := nfirSplit(rv.g1, rv.l1, m.T1, n1, w1, T, e, tt, s1)
		for k, v := range sec {
			a1 += t.sb[k]
			r1 += t.sa[k] * v
		}
		if tp != nil {
			copy(tp.sec[tt*m.P1:], sec)
		}
		a2, r2 := nfirSplit(rv.g2, rv.l2, m.T2, n2, w2, T, y, tt, s2)
		d := 1 + a1*a2
		yt := (a1*(u[tt]-r2) + r1) / d
		et := u[tt] - a2*yt - r2
		y[tt], e[tt] = yt, et
		for k, v := range sec {
			sec[k] = t.sa[k]*v + t.sb[k]*et
		}
		for j := 0; j < B1; j++ {
			w1[j*T+tt] = n1[j] * et
		}
		for j := 0; j < B2; j++ {
			w2[j*T+tt] = n2[j] * yt
		}
		if tp != nil {
			tp.a1[tt], tp.a2[tt], tp.r2[tt], tp.d[tt] = a1, a2, r2, d
		}
	}
}

// nfirSplit splits one NFIR's output at sample t into a·x(t) + r: with
// gains n, branch taps g reversed (taps.reversed: len(n) branches of T
// taps), linear taps l reversed, the branch inputs w (n_j·x, len(n)
// branches of N samples, branch-major) and the input x known before t, it
// returns a = Σ_j n_j(t)² g_j(0) + l(0) and r, the sum of every term of an
// earlier sample. s, when not nil, receives the branches' sums
// Σ_{k≥1} g_j(k) w_j(t−k) for the adjoint.
func nfirSplit(g, l []float64, T int, n, w []float64, N int, x []float64, t int, s []float64) (a, r float64) {
	K := min(T-1, t) // the earlier samples each branch sees
	for j := range n {
		gj := g[j*T : (j+1)*T]
		sum := 0.0
		if K > 0 {
			sum = floats.Dot(gj[T-1-K:T-1], w[j*N+t-K:j*N+t])
		}
		if s != nil {
			s[j] = sum
		}
		a += n[j] * n[j] * gj[T-1]
		r += n[j] * sum
	}
	if L := len(l); L > 0 {
		a += l[L-1]
		if K := min(L-1, t); K > 0 {
			r += floats.Dot(l[L-1-K:L-1], x[t-K:t])
		}
	}
	return a, r
}

// nfirSplitAdjoint is the adjoint of nfirSplit at sample t (its taps
// reversed, and so the taps' adjoints gb and lb), for the terms of sample t
// alone: given the adjoints ab and rb of its results, it adds to those of
// the gains (nb) and of the taps at lag 0, and records rb·n_j(t) in sb
// (branch-major, as w) and rb in rs. What r's earlier samples owe (the
// branch inputs', the input's and the taps' at lags ≥ 1) is summed from
// these records by historyAdjoint and tapsAdjoint, as dot products that
// read where scattering them here took two axpys per branch and sample
// that also wrote: a training step 0–7 % faster (docs/BENCHMARKS.md,
// session 46).
func nfirSplitAdjoint(g, l []float64, T int, n []float64, N int, t int, s []float64, ab, rb float64, nb, gb, lb, sb, rs []float64) {
	for j := range n {
		gj := g[j*T : (j+1)*T]
		nb[j] += ab*2*n[j]*gj[T-1] + rb*s[j]
		gb[j*T+T-1] += ab * n[j] * n[j]
		sb[j*N+t] = rb * n[j]
	}
	if L := len(l); L > 0 {
		lb[L-1] += ab
	}
	rs[t] = rb
}

// historyAdjoint is the adjoint at sample t of what the history sums of
// the later samples read there: Σ_{k=1..K} h(t+k)·g(k), g taps in their
// own order and h the recorded adjoints of one branch (nfirSplitAdjoint's
// sb or rs), K as far as both reach.
func historyAdjoint(g, h []float64, t int) float64 {
	K := min(len(g)-1, len(h)-1-t)
	if K <= 0 {
		return 0
	}
	return floats.Dot(h[t+1:t+1+K], g[1:1+K])
}

// tapsAdjoint adds to gb (one branch's tap adjoints, reversed) the
// adjoints of the taps at lags k ≥ 1, Σ_t h(t)·x(t−k), once the record's
// adjoints h are all known.
func tapsAdjoint(gb, h, x []float64) {
	T, N := len(gb), len(h)
	for k := 1; k < T && k < N; k++ {
		gb[T-1-k] += floats.Dot(h[k:], x[:N-k])
	}
}

// grads are the gradients of the parameters, in normalized units.
type grads struct {
	lift             []float64 // MLP.Flatten order
	g1, l1, g2, l2   []float64 // taps
	sa, sb           []float64 // the sections' poles and gains
	f1, fl1, f2, fl2 []float64 // factors (from the taps' by tapsGrad)
	fsa, fsb         []float64 // α, β (from the poles' and gains' by sectionsGrad)
	rec              []float64 // the recurrent lift's cell
}

func newGrads(m *Model) *grads {
	return &grads{lift: make([]float64, m.Lift.NumParams()),
		g1: make([]float64, len(m.F1)), l1: make([]float64, len(m.FL1)), g2: make([]float64, len(m.F2)), l2: make([]float64, len(m.FL2)),
		sa: make([]float64, m.P1), sb: make([]float64, m.P1),
		f1: make([]float64, len(m.F1)), fl1: make([]float64, len(m.FL1)), f2: make([]float64, len(m.F2)), fl2: make([]float64, len(m.FL2)),
		fsa: make([]float64, m.P1), fsb: make([]float64, m.P1), rec: make([]float64, len(m.RT))}
}

// backward adds to gr the gradient of Σ_t dy(t)·y(t) (dy per sample) for
// the record forward recorded in tp, into the taps' gradients.
func (m *Model) backward(t taps, u, y, dy []float64, tp *tape, gr *grads) {
	T := len(u)
	B1, B2 := m.B1, m.B2
	sizes := m.Lift.Sizes
	L := len(m.Lift.W)
	yb := append([]float64(nil), dy...) // ȳ, accumulated from the future
	eb := make([]float64, T)
	w1b := make([]float64, B1) // adjoints of w1(t), w2(t) (historyAdjoint)
	w2b := make([]float64, B2)
	// what nfirSplitAdjoint records for historyAdjoint and tapsAdjoint
	sb1, sb2 := make([]float64, T*B1), make([]float64, T*B2)
	rs1, rs2 := make([]float64, T), make([]float64, T)
	nb := make([]float64, B1+B2)
	secb := make([]float64, m.P1) // adjoint of s_k(t), from the future
	sc, sk := m.StatePoles()
	xyb := make([]float64, m.S) // adjoint of x_y,i(t), from the future
	cell := m.RecCell()
	H := m.Rec
	hb, hpb := make([]float64, H), make([]float64, H) // adjoints of h(t), from the future, and of h(t−1)
	rwork := make([]float64, 3*H)
	var rin, rinb [2]float64
	wmax := 0
	for _, s := range sizes {
		wmax = max(wmax, s)
	}
	gcur := make([]float64, wmax)
	gnxt := make([]float64, wmax)
	// offsets of W[l], B[l] in the flat gradient
	offW, offB := make([]int, L), make([]int, L)
	o := 0
	for l := 0; l < L; l++ {
		offW[l] = o
		o += sizes[l] * sizes[l+1]
		offB[l] = o
		o += sizes[l+1]
	}
	// the taps and their adjoints in reverse order (taps.reversed), added
	// to gr's once the record is done
	rv := t.reversed(m)
	adj := taps{g1: make([]float64, len(rv.g1)), l1: make([]float64, len(rv.l1)), g2: make([]float64, len(rv.g2)), l2: make([]float64, len(rv.l2))}
	for tt := T - 1; tt >= 0; tt-- {
		n := tp.acts[L][tt*(B1+B2) : (tt+1)*(B1+B2)]
		n1, n2 := n[:B1], n[B1:]
		for j := range nb {
			nb[j] = 0
		}
		et, yt := tp.e[tt], y[tt]
		// what the later samples' history sums read at tt
		for j := 0; j < B1; j++ {
			w1b[j] = historyAdjoint(t.g1[j*m.T1:(j+1)*m.T1], sb1[j*T:(j+1)*T], tt)
		}
		for j := 0; j < B2; j++ {
			w2b[j] = historyAdjoint(t.g2[j*m.T2:(j+1)*m.T2], sb2[j*T:(j+1)*T], tt)
		}
		eb[tt] += historyAdjoint(t.l1, rs1, tt)
		yb[tt] += historyAdjoint(t.l2, rs2, tt)
		// w1 = n1·e, w2 = n2·y
		for j := 0; j < B1; j++ {
			eb[tt] += w1b[j] * n1[j]
			nb[j] += w1b[j] * et
		}
		for j := 0; j < B2; j++ {
			yb[tt] += w2b[j] * n2[j]
			nb[B1+j] += w2b[j] * yt
		}
		// s_k(t) = a_k s_k(t−1) + b_k e(t); secb becomes s_k(t−1)'s
		sprev := tp.sec[tt*m.P1 : (tt+1)*m.P1]
		for k, bar := range secb {
			eb[tt] += bar * t.sb[k]
			gr.sb[k] += bar * et
			gr.sa[k] += bar * sprev[k]
			secb[k] = bar * t.sa[k]
		}
		a1, a2, r2, d := tp.a1[tt], tp.a2[tt], tp.r2[tt], tp.d[tt]
		// e = u − a2 y − r2
		ebt := eb[tt]
		yb[tt] += -a2 * ebt
		a2b := -yt * ebt
		r2b := -ebt
		// y = (a1 (u − r2) + r1)/d
		ybt := yb[tt]
		r1b := ybt / d
		r2b += -a1 * ybt / d
		a1b := ybt * ((u[tt] - r2) - a2*yt) / d
		a2b += -ybt * yt * a1 / d
		// the sections' terms of a1 (b_k) and r1 (a_k s_k(t−1))
		for k := range secb {
			gr.sb[k] += a1b
			gr.sa[k] += r1b * sprev[k]
			secb[k] += r1b * t.sa[k]
		}
		nfirSplitAdjoint(rv.g1, rv.l1, m.T1, n1, T, tt, tp.s1[tt*B1:(tt+1)*B1], a1b, r1b, nb[:B1], adj.g1, adj.l1, sb1, rs1)
		nfirSplitAdjoint(rv.g2, rv.l2, m.T2, n2, T, tt, tp.s2[tt*B2:(tt+1)*B2], a2b, r2b, nb[B1:], adj.g2, adj.l2, sb2, rs2)
		// the lifting network: n = MLP(x)
		dout := gcur[:sizes[L]]
		copy(dout, nb)
		for l := L - 1; l >= 0; l-- {
			nIn, nOut := sizes[l], sizes[l+1]
			out := tp.acts[l+1][tt*nOut : (tt+1)*nOut]
			in := tp.acts[l][tt*nIn : (tt+1)*nIn]
			din := gnxt[:nIn]
			for k := range din {
				din[k] = 0
			}
			W := m.Lift.W[l]
			for i := 0; i < nOut; i++ {
				pre := dout[i] * (1 - out[i]*out[i])
				if pre == 0 {
					continue
				}
				gr.lift[offB[l]+i] += pre
				row := W[i*nIn : (i+1)*nIn]
				floats.AddScaled(gr.lift[offW[l]+i*nIn:offW[l]+(i+1)*nIn], pre, in)
				floats.AddScaled(din, pre, row)
			}
			dout = din
			gcur, gnxt = gnxt, gcur
		}
		// the y-window of the features: y(t−R2+i) at input R1+i
		for i := 0; i < m.R2; i++ {
			if k := tt - m.R2 + i; k >= 0 {
				yb[k] += dout[m.R1+i]
			}
		}
		// the y states: x_y,i(t) = c_i x_y,i(t−1) + k_i y(t−1)
		for i := range xyb {
			xyb[i] += dout[m.R1+m.R2+m.S+i]
			if tt > 0 {
				yb[tt-1] += sk[i] * xyb[i]
			}
			xyb[i] *= sc[i]
		}
		// the recurrent states: h(t) = cell(h(t−1), u(t), y(t−1))
		if H > 0 {
			off := m.R1 + m.R2 + 2*m.S
			for j := range hb {
				hb[j] += dout[off+j]
			}
			rin[0], rin[1] = u[tt], 0
			if tt > 0 {
				rin[1] = y[tt-1]
			}
			rinb = [2]float64{}
			cell.Adjoint(m.RT, rin[:], tp.hs[tt*H:(tt+1)*H], tp.gates[tt*cell.Gates():(tt+1)*cell.Gates()], hb, hpb, rinb[:], gr.rec, rwork)
			if tt > 0 {
				yb[tt-1] += rinb[1]
			}
			hb, hpb = hpb, hb
		}
	}
	// the taps' adjoints at lags ≥ 1, now that the record's are known
	for j := 0; j < B1; j++ {
		tapsAdjoint(adj.g1[j*m.T1:(j+1)*m.T1], sb1[j*T:(j+1)*T], tp.w1[j*T:(j+1)*T])
	}
	for j := 0; j < B2; j++ {
		tapsAdjoint(adj.g2[j*m.T2:(j+1)*m.T2], sb2[j*T:(j+1)*T], tp.w2[j*T:(j+1)*T])
	}
	tapsAdjoint(adj.l1, rs1, tp.e)
	tapsAdjoint(adj.l2, rs2, y)
	back := adj.reversed(m) // reversing twice is the identity
	for _, pair := range [][2][]float64{{gr.g1, back.g1}, {gr.l1, back.l1}, {gr.g2, back.g2}, {gr.l2, back.l2}} {
		floats.Add(pair[0], pair[1])
	}
}

// factorGrads turns the taps' gradients of gr into the factors'.
func (m *Model) factorGrads(gr *grads) {
	for j := 0; j < m.B1; j++ {
		tapsGrad(m.F1[j*m.T1:(j+1)*m.T1], gr.g1[j*m.T1:(j+1)*m.T1], gr.f1[j*m.T1:(j+1)*m.T1])
	}
	for j := 0; j < m.B2; j++ {
		tapsGrad(m.F2[j*m.T2:(j+1)*m.T2], gr.g2[j*m.T2:(j+1)*m.T2], gr.f2[j*m.T2:(j+1)*m.T2])
	}
	if m.L1 > 0 {
		tapsGrad(m.FL1, gr.l1, gr.fl1)
	}
	if m.L2 > 0 {
		tapsGrad(m.FL2, gr.l2, gr.fl2)
	}
	sectionsGrad(m.SA, m.SB, gr.sa, gr.sb, gr.fsa, gr.fsb)
}

// Flatten is every trained parameter: the MLP (its Flatten order), F1, FL1,
// F2, FL2, SA, SB, RT (SA and SB empty without sections, RT without a
// recurrent lift, so that older loops flatten as before these existed).
func (m *Model) Flatten() []float64 {
	out := m.Lift.Flatten()
	out = append(out, m.F1...)
	out = append(out, m.FL1...)
	out = append(out, m.F2...)
	out = append(out, m.FL2...)
	out = append(out, m.SA...)
	out = append(out, m.SB...)
	return append(out, m.RT...)
}

// SetFlat sets the parameters from a Flatten-ordered vector.
func (m *Model) SetFlat(theta []float64) error {
	if len(theta) != m.NumParams() {
		return fmt.Errorf("%w: %d parameters, want %d", ErrShape, len(theta), m.NumParams())
	}
	nl := m.Lift.NumParams()
	if err := m.Lift.SetFlat(theta[:nl]); err != nil {
		return err
	}
	o := nl
	for _, f := range [][]float64{m.F1, m.FL1, m.F2, m.FL2, m.SA, m.SB, m.RT} {
		o += copy(f, theta[o:o+len(f)])
	}
	return nil
}

func (gr *grads) flat() []float64 {
	out := append([]float64(nil), gr.lift...)
	out = append(out, gr.f1...)
	out = append(out, gr.fl1...)
	out = append(out, gr.f2...)
	out = append(out, gr.fl2...)
	out = append(out, gr.fsa...)
	out = append(out, gr.fsb...)
	return append(out, gr.rec...)
}
