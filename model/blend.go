package model

import (
	"fmt"
	"math"
)

// Blend returns the feedforward NFIR whose output is the weighted mean of
// m's output and that of the linear FIR lin, for the same input u:
//
//	y = α Σ_j N_j G(g_j) N_j u + α G(m.Lin) u + (1−α) G(lin) u.
//
// It is m with its branch taps scaled by α and its linear FIR replaced by
// α m.Lin + (1−α) lin (the shorter padded with zeros, LinearTaps the
// longer). For 0 ≤ α ≤ 1 a nonnegative combination of passive FIRs is
// passive, so the blend of a passive m and a passive lin is passive
// (Theorem 2; certify it with Certify). α = 1 is m, α = 0 is lin.
//
// Only a feedforward m can be blended this way: the lifts of an FB model
// read its own past output, which the blend changes.
func Blend(m *NFIR, lin []float64, alpha float64) (*NFIR, error) {
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("model: Blend: %w", err)
	}
	switch {
	case m.Feedback:
		return nil, fmt.Errorf("%w: Blend: an FB model's lifts read its own output, which a blend changes", ErrShape)
	case !(alpha >= 0 && alpha <= 1):
		return nil, fmt.Errorf("%w: Blend: weight %v outside [0, 1]", ErrShape, alpha)
	}
	for k, g := range lin {
		if math.IsNaN(g) || math.IsInf(g, 0) {
			return nil, fmt.Errorf("%w: Blend: linear tap %d is %v", ErrShape, k, g)
		}
	}
	b := m.Clone()
	for i := range b.G {
		b.G[i] *= alpha
	}
	n := max(len(m.Lin), len(lin))
	b.Lin = make([]float64, n)
	for k, g := range m.Lin {
		b.Lin[k] = alpha * g
	}
	for k, g := range lin {
		b.Lin[k] += (1 - alpha) * g
	}
	b.Structure.LinearTaps = n
	if err := b.Check(); err != nil {
		return nil, fmt.Errorf("model: Blend: %w", err)
	}
	return b, nil
}
