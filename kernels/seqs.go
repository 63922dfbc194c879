package kernels

import (
	"errors"
	"fmt"
)

// ErrShape reports arguments whose dimensions disagree: bad offsets, short
// slices, inconsistent layer sizes. The kernels panic with an error wrapping
// ErrShape (as gonum's BLAS does), because a mismatch there is a programming
// error of the caller; callers that handle user input validate first with
// Seqs.Check, ClosedLoop.Check or NewSeqs, which return it as an error.
var ErrShape = errors.New("kernels: inconsistent dimensions")

// Seqs describes trajectories stored back to back in one array: trajectory b
// occupies the global samples [Off[b], Off[b+1]). Off[0] must be 0 and Off
// must be non-decreasing; trajectories may have different lengths (even 0).
// Every per-sample array the kernels take (u, y, dy, …) is indexed by the
// global sample index, and every per-sample-per-branch array (gains n, z, dn)
// is Total() × m_N row-major. Signals are zero before the start of their own
// trajectory: no kernel ever reads across a trajectory boundary.
type Seqs struct {
	Off []int
}

// NewSeqs returns the Seqs of trajectories with the given lengths, in order.
// A negative length is an error wrapping ErrShape.
func NewSeqs(lengths ...int) (Seqs, error) {
	off := make([]int, len(lengths)+1)
	for b, n := range lengths {
		if n < 0 {
			return Seqs{}, fmt.Errorf("kernels: trajectory %d has length %d: %w", b, n, ErrShape)
		}
		off[b+1] = off[b] + n
	}
	return Seqs{Off: off}, nil
}

// Uniform returns batches trajectories of T samples each.
func Uniform(batches, T int) Seqs {
	off := make([]int, batches+1)
	for b := range batches {
		off[b+1] = off[b] + T
	}
	return Seqs{Off: off}
}

// Check reports whether the offsets are valid: at least one entry, Off[0] = 0
// and non-decreasing. The error wraps ErrShape.
func (s Seqs) Check() error {
	if len(s.Off) == 0 {
		return fmt.Errorf("kernels: Seqs has no offsets (want Off[0] = 0 at least): %w", ErrShape)
	}
	if s.Off[0] != 0 {
		return fmt.Errorf("kernels: Seqs.Off[0] = %d, want 0: %w", s.Off[0], ErrShape)
	}
	for b := 1; b < len(s.Off); b++ {
		if s.Off[b] < s.Off[b-1] {
			return fmt.Errorf("kernels: Seqs.Off[%d] = %d < Off[%d] = %d: offsets must be non-decreasing: %w",
				b, s.Off[b], b-1, s.Off[b-1], ErrShape)
		}
	}
	return nil
}

// Batches returns the number of trajectories.
func (s Seqs) Batches() int {
	if len(s.Off) == 0 {
		return 0
	}
	return len(s.Off) - 1
}

// Total returns the total number of samples, Off[Batches()].
func (s Seqs) Total() int {
	if len(s.Off) == 0 {
		return 0
	}
	return s.Off[len(s.Off)-1]
}

// Len returns the length of trajectory b.
func (s Seqs) Len(b int) int { return s.Off[b+1] - s.Off[b] }

// MaxLen returns the length of the longest trajectory.
func (s Seqs) MaxLen() int {
	m := 0
	for b := 0; b+1 < len(s.Off); b++ {
		m = max(m, s.Off[b+1]-s.Off[b])
	}
	return m
}

// split returns the fixed partition of the trajectories into at most W
// contiguous groups of roughly equal sample counts: worker w owns the
// trajectories [bnd[w], bnd[w+1]). It depends only on the offsets and W, so
// the order of every floating-point reduction is fixed for a given W.
func (s Seqs) split(W int, bnd []int) []int {
	B := s.Batches()
	bnd = append(bnd[:0], 0)
	total := s.Total()
	b := 0
	for w := 1; w < W; w++ {
		target := int(int64(total) * int64(w) / int64(W))
		for b < B && s.Off[b] < target {
			b++
		}
		bnd = append(bnd, b)
	}
	return append(bnd, B)
}
