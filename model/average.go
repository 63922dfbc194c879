package model

import (
	"fmt"
	"slices"
)

// Average returns the NFIR operator whose output is the mean of the members'
// outputs for the same input u and extra input q:
//
//	y = (1/S) Σ_s Σ_j N_sj G(g_sj) N_sj u + (1/S) Σ_s G(lin_s) u.
//
// It is an NFIR of the same memory with Σ_s m_N,s branches: the taps g_sj/S,
// the mean linear FIR, and one lifting network whose first layer stacks the
// members' first layers (they read the same features) and whose later layers
// are block-diagonal. Dividing a passive FIR by S > 0 keeps it passive, so the
// average of passive members is passive (Theorem 2; certify it with Certify).
// The zero weights off the blocks are stored and counted by NumParams.
//
// The members must agree on R1, R2, Feedback, HoldStart, Taps (when they have branches),
// LinearTaps, the number of hidden layers and the scalers (members trained on
// the same data have the same scalers). For an FB model q is the model's own
// past output, so the averaged FB model feeds every member's lifting with the
// averaged output: it is not the mean of the members' separate closed-loop
// simulations.
func Average(members ...*NFIR) (*NFIR, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%w: Average of no models", ErrShape)
	}
	first := members[0]
	for i, m := range members {
		if m == nil {
			return nil, fmt.Errorf("%w: Average: model %d is nil", ErrShape, i)
		}
		if err := m.Check(); err != nil {
			return nil, fmt.Errorf("model: Average: model %d: %w", i, err)
		}
		switch {
		case m.R1 != first.R1 || m.R2 != first.R2 || m.Feedback != first.Feedback || m.HoldStart != first.HoldStart:
			return nil, fmt.Errorf("%w: Average: model %d has R1 %d R2 %d feedback %v hold-start %v, model 0 has %d %d %v %v", ErrShape, i, m.R1, m.R2, m.Feedback, m.HoldStart, first.R1, first.R2, first.Feedback, first.HoldStart)
		case m.Taps != first.Taps || m.LinearTaps != first.LinearTaps:
			return nil, fmt.Errorf("%w: Average: model %d has %d taps and %d linear taps, model 0 has %d and %d", ErrShape, i, m.Taps, m.LinearTaps, first.Taps, first.LinearTaps)
		case len(m.Hidden) != len(first.Hidden) || (m.Branches > 0) != (first.Branches > 0):
			return nil, fmt.Errorf("%w: Average: model %d has hidden layers %v and %d branches, model 0 has %v and %d", ErrShape, i, m.Hidden, m.Branches, first.Hidden, first.Branches)
		case m.UScaler != first.UScaler || m.QScaler != first.QScaler:
			return nil, fmt.Errorf("%w: Average: model %d has other scalers than model 0 (train the members on the same data)", ErrShape, i)
		}
	}
	S := float64(len(members))
	st := first.Structure
	st.Branches = 0
	st.Hidden = make([]int, len(first.Hidden))
	for _, m := range members {
		st.Branches += m.Branches
		for l, h := range m.Hidden {
			st.Hidden[l] += h
		}
	}
	avg, err := New(st)
	if err != nil {
		return nil, fmt.Errorf("model: Average: %w", err)
	}
	avg.UScaler, avg.QScaler = first.UScaler, first.QScaler
	avg.G = avg.G[:0]
	for _, m := range members {
		for _, g := range m.G {
			avg.G = append(avg.G, g/S)
		}
		for k, g := range m.Lin {
			avg.Lin[k] += g / S
		}
	}
	if st.Branches == 0 {
		return avg, nil
	}
	// Layer l maps Sizes[l] → Sizes[l+1]. Member s occupies rows
	// [r0, r0+out_s) and, from layer 1 on, columns [c0, c0+in_s).
	L := avg.Lift.Layers()
	r0 := make([]int, L) // running row offset per layer
	for _, m := range members {
		c0 := 0
		if m.Branches == 0 {
			continue
		}
		for l := 0; l < L; l++ {
			nIn, nOut := m.Lift.Sizes[l], m.Lift.Sizes[l+1]
			cols := avg.Lift.Sizes[l]
			off := 0
			if l > 0 {
				off = c0
			}
			for i := 0; i < nOut; i++ {
				copy(avg.Lift.W[l][(r0[l]+i)*cols+off:], m.Lift.W[l][i*nIn:(i+1)*nIn])
			}
			copy(avg.Lift.B[l][r0[l]:], m.Lift.B[l])
			c0 = r0[l] // this member's outputs of layer l are the next layer's inputs
			r0[l] += nOut
		}
	}
	avg.Structure.Hidden = slices.Clone(st.Hidden)
	return avg, avg.Check()
}
