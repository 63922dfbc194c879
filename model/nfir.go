package model

import (
	"errors"
	"fmt"
	"math"

	"github.com/passivenfir/gputrain/data"
)

// ErrShape reports parameters whose dimensions disagree with the structure.
var ErrShape = errors.New("model: inconsistent dimensions")

// ErrNotFinite reports a NaN or Inf parameter.
var ErrNotFinite = errors.New("model: non-finite parameter")

// Structure is the size of an NFIR operator: everything that fixes the
// number and meaning of the parameters. Its JSON keys are those of the
// model file's structure object.
type Structure struct {
	Branches   int   `json:"branches"`    // m_N, number of lifted FIR branches (0: linear FIR only)
	Taps       int   `json:"taps"`        // m_G, taps per branch FIR
	R1         int   `json:"r1"`          // input memory of the lifting network
	R2         int   `json:"r2"`          // memory of the extra input q (used only when Feedback)
	Hidden     []int `json:"hidden"`      // hidden layer widths of the lifting MLP
	Feedback   bool  `json:"feedback"`    // FB model: q(t) = y(t−1); FF model when false
	LinearTaps int   `json:"linear_taps"` // taps of the parallel linear FIR (0: none)
	// HoldStart makes the lifting network see u(0) for the samples of its
	// u-window before the record starts, instead of zeros: for records that
	// begin mid-motion, where a window of zeros followed by a jump to u(0)
	// is an input the network never meets again (the released code of the
	// paper pads this way). It changes only the gains' inputs; the FIR
	// convolutions still start at rest, and the q-window is unchanged
	// (q(0) = 0, so holding it would give zeros too). Passivity does not
	// depend on how the gains are computed (Theorem 2).
	HoldStart bool `json:"hold_start"`
}

// NumFeatures returns the input width of the lifting network.
func (s Structure) NumFeatures() int {
	if s.Feedback {
		return s.R1 + s.R2
	}
	return s.R1
}

// Memory returns the number of past samples the operator needs to compute
// one output sample: max(m_G, R1, R2, LinearTaps), where m_G, R1 and R2
// count only with branches (a linear FIR stores them but does not use them)
// and R2 only with feedback.
func (s Structure) Memory() int {
	m := s.LinearTaps
	if s.Branches > 0 {
		m = max(m, s.Taps, s.R1)
		if s.Feedback {
			m = max(m, s.R2)
		}
	}
	return m
}

// Check reports whether the structure is usable.
func (s Structure) Check() error {
	switch {
	case s.Branches < 0 || s.Taps < 0 || s.R1 < 0 || s.R2 < 0 || s.LinearTaps < 0:
		return fmt.Errorf("%w: negative size (branches %d, taps %d, r1 %d, r2 %d, linear taps %d)", ErrShape, s.Branches, s.Taps, s.R1, s.R2, s.LinearTaps)
	case s.Branches == 0 && s.LinearTaps == 0:
		return fmt.Errorf("%w: no branches and no linear FIR: the model has no parameters", ErrShape)
	case s.Branches > 0 && s.Taps == 0:
		return fmt.Errorf("%w: %d branches need taps > 0", ErrShape, s.Branches)
	case s.Branches > 0 && s.NumFeatures() == 0:
		return fmt.Errorf("%w: the lifting network has no inputs (R1 = 0 and no feedback memory)", ErrShape)
	}
	for _, h := range s.Hidden {
		if h <= 0 {
			return fmt.Errorf("%w: hidden width %d", ErrShape, h)
		}
	}
	return nil
}

// MLP is the lifting network f(·; θ_N): tanh on every layer, including the
// output, so that |n_j| ≤ 1.
type MLP struct {
	Sizes []int       // layer widths, Sizes[0] inputs … Sizes[L] outputs
	W     [][]float64 // W[l] is Sizes[l+1]×Sizes[l], row-major
	B     [][]float64 // B[l] has Sizes[l+1] entries
}

// NewMLP returns an MLP with the given layer sizes and zero parameters.
func NewMLP(sizes ...int) MLP {
	m := MLP{Sizes: append([]int(nil), sizes...)}
	for l := 0; l+1 < len(sizes); l++ {
		m.W = append(m.W, make([]float64, sizes[l+1]*sizes[l]))
		m.B = append(m.B, make([]float64, sizes[l+1]))
	}
	return m
}

// Layers returns the number of weight layers.
func (m *MLP) Layers() int { return len(m.W) }

// NumParams returns the number of weights and biases.
func (m *MLP) NumParams() int {
	n := 0
	for l := range m.W {
		n += len(m.W[l]) + len(m.B[l])
	}
	return n
}

func (m *MLP) check() error {
	if len(m.Sizes) < 2 {
		return fmt.Errorf("%w: MLP needs at least an input and an output layer, have sizes %v", ErrShape, m.Sizes)
	}
	if len(m.W) != len(m.Sizes)-1 || len(m.B) != len(m.Sizes)-1 {
		return fmt.Errorf("%w: MLP with sizes %v has %d weight and %d bias layers", ErrShape, m.Sizes, len(m.W), len(m.B))
	}
	for l := range m.W {
		if len(m.W[l]) != m.Sizes[l+1]*m.Sizes[l] || len(m.B[l]) != m.Sizes[l+1] {
			return fmt.Errorf("%w: MLP layer %d is %d weights/%d biases, want %d×%d", ErrShape, l, len(m.W[l]), len(m.B[l]), m.Sizes[l+1], m.Sizes[l])
		}
		if !allFinite(m.W[l]) || !allFinite(m.B[l]) {
			return fmt.Errorf("%w: MLP layer %d", ErrNotFinite, l)
		}
	}
	return nil
}

// Eval computes out = f(x). work must hold at least 2·max(Sizes) entries;
// it is scratch space so that the simulation loop does not allocate.
func (m *MLP) Eval(x, out, work []float64) {
	wmax := 0
	for _, s := range m.Sizes {
		wmax = max(wmax, s)
	}
	a, b := work[:wmax], work[wmax:2*wmax]
	in := x
	for l := range m.W {
		nIn, nOut := m.Sizes[l], m.Sizes[l+1]
		dst := b[:nOut]
		if l == len(m.W)-1 {
			dst = out[:nOut]
		}
		W := m.W[l]
		for i := 0; i < nOut; i++ {
			s := m.B[l][i]
			row := W[i*nIn : (i+1)*nIn]
			for k, v := range row {
				s += v * in[k]
			}
			dst[i] = math.Tanh(s)
		}
		in = dst
		a, b = b, a
	}
}

// NFIR is a (parallel linear FIR +) lifted FIR operator with its scalers.
type NFIR struct {
	Structure
	G       []float64   // m_N × m_G taps, row-major: G[j*Taps+k] = g_j(k)
	Lin     []float64   // LinearTaps taps of the parallel linear FIR
	Lift    MLP         // NumFeatures() → Branches; empty when Branches == 0
	UScaler data.Scaler // scaler of u for the lifting network's inputs
	QScaler data.Scaler // scaler of q (only with Feedback)
}

// New returns an operator of the given structure with zero taps, a zero
// lifting network and identity scalers.
func New(s Structure) (*NFIR, error) {
	if err := s.Check(); err != nil {
		return nil, err
	}
	m := &NFIR{
		Structure: s,
		G:         make([]float64, s.Branches*s.Taps),
		Lin:       make([]float64, s.LinearTaps),
		UScaler:   data.Scaler{Scale: 1, Std: 1},
		QScaler:   data.Scaler{Scale: 1, Std: 1},
	}
	m.Structure.Hidden = append([]int(nil), s.Hidden...)
	if s.Branches > 0 {
		sizes := append([]int{s.NumFeatures()}, s.Hidden...)
		m.Lift = NewMLP(append(sizes, s.Branches)...)
	}
	return m, nil
}

// Check verifies that all parameters agree with the structure and are finite.
func (m *NFIR) Check() error {
	if err := m.Structure.Check(); err != nil {
		return err
	}
	if len(m.G) != m.Branches*m.Taps {
		return fmt.Errorf("%w: %d taps for %d branches × %d", ErrShape, len(m.G), m.Branches, m.Taps)
	}
	if len(m.Lin) != m.LinearTaps {
		return fmt.Errorf("%w: %d linear taps, structure says %d", ErrShape, len(m.Lin), m.LinearTaps)
	}
	if !allFinite(m.G) || !allFinite(m.Lin) {
		return fmt.Errorf("%w: FIR taps", ErrNotFinite)
	}
	for i, s := range []data.Scaler{m.UScaler, m.QScaler} {
		if !(s.Scale > 0) || !(s.Std > 0) || math.IsInf(s.Scale, 0) || math.IsInf(s.Std, 0) || math.IsNaN(s.Mean) || math.IsInf(s.Mean, 0) {
			return fmt.Errorf("%w: the %s scaler (scale %g, mean %g, std %g) needs a finite scale > 0, std > 0 and a finite mean", ErrShape, []string{"u", "q"}[i], s.Scale, s.Mean, s.Std)
		}
	}
	if m.Branches == 0 {
		return nil
	}
	if err := m.Lift.check(); err != nil {
		return err
	}
	want := append(append([]int{m.NumFeatures()}, m.Hidden...), m.Branches)
	if len(want) != len(m.Lift.Sizes) {
		return fmt.Errorf("%w: MLP sizes %v, structure wants %v", ErrShape, m.Lift.Sizes, want)
	}
	for i := range want {
		if want[i] != m.Lift.Sizes[i] {
			return fmt.Errorf("%w: MLP sizes %v, structure wants %v", ErrShape, m.Lift.Sizes, want)
		}
	}
	return nil
}

// Branch returns the taps g_j (a view into G).
func (m *NFIR) Branch(j int) []float64 { return m.G[j*m.Taps : (j+1)*m.Taps] }

// NumParams returns the number of identifiable parameters (taps and weights).
func (m *NFIR) NumParams() int { return len(m.G) + len(m.Lin) + m.Lift.NumParams() }

// Clone returns a deep copy.
func (m *NFIR) Clone() *NFIR {
	c := *m
	c.Structure.Hidden = append([]int(nil), m.Hidden...)
	c.G = append([]float64(nil), m.G...)
	c.Lin = append([]float64(nil), m.Lin...)
	c.Lift = MLP{Sizes: append([]int(nil), m.Lift.Sizes...)}
	for l := range m.Lift.W {
		c.Lift.W = append(c.Lift.W, append([]float64(nil), m.Lift.W[l]...))
		c.Lift.B = append(c.Lift.B, append([]float64(nil), m.Lift.B[l]...))
	}
	return &c
}

func allFinite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}
