package model

import (
	"fmt"
	"math"
)

// Rescale converts m, an operator identified on data in other units, to
// the units of the data: if m maps the input a·u to the output b·y, the
// rescaled m maps u to y, with the same gains at every instant. The FIR
// taps are multiplied by a/b, and the scalers of the lifting network's
// inputs absorb a (u) and b (q, the fed-back output), so that the network
// sees exactly the numbers it saw before.
//
// A positive factor keeps a passive FIR passive, so the rescaled operator
// is passive exactly when m is (Theorem 2), and its certified minima of
// Re G scale by a/b. With a and b powers of two every operation is exact:
// the rescaled operator computes, up to that factor, bit for bit what m
// computed, which is why the trainer's automatic scaling uses them.
//
// a and b must be finite and > 0.
func (m *NFIR) Rescale(a, b float64) error {
	if !(a > 0) || !(b > 0) || math.IsInf(a, 0) || math.IsInf(b, 0) {
		return fmt.Errorf("%w: Rescale factors must be finite and > 0, have a = %g, b = %g", ErrShape, a, b)
	}
	r := a / b
	for i := range m.G {
		m.G[i] *= r
	}
	for i := range m.Lin {
		m.Lin[i] *= r
	}
	m.UScaler.Scale /= a
	m.QScaler.Scale /= b
	return nil
}
