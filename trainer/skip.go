package trainer

import (
	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/kernels"
)

// Config.Skip leaves the first samples of every training trajectory out of
// the loss without a mask in the graph or the kernels: every output of the
// model at time t depends on the data up to t only (open loop, closed loop
// and the θ_G regressors alike), so the part of a batch's loss, gradient or
// Gram matrix that Skip leaves out is exactly that of the batch cut to its
// first Skip samples, and is subtracted. The same code then serves every
// backend.

// prefix returns the first skip samples of every trajectory of b (all of a
// shorter one), or nil when skip is 0.
func prefix(b *graph.Batch, skip int) *graph.Batch {
	if skip <= 0 || b.Rows() == 0 {
		return nil
	}
	f := len(b.X) / b.Rows()
	off := b.Seqs.Off
	lens := make([]int, len(off)-1)
	p := &graph.Batch{}
	for i := range lens {
		lo := off[i]
		hi := min(off[i+1], lo+skip)
		lens[i] = hi - lo
		p.X = append(p.X, b.X[lo*f:hi*f]...)
		p.U = append(p.U, b.U[lo:hi]...)
		p.Y = append(p.Y, b.Y[lo:hi]...)
	}
	p.Seqs, _ = kernels.NewSeqs(lens...) // lengths of slices: never negative
	return p
}

// scoredRows is the number of samples of s after the first skip of every
// trajectory.
func scoredRows(s kernels.Seqs, skip int) int {
	n := 0
	for i := 0; i+1 < len(s.Off); i++ {
		n += max(s.Off[i+1]-s.Off[i]-skip, 0)
	}
	return n
}

// lossGradFunc returns the mean squared error over a batch's rows and writes
// its gradient into grad.
type lossGradFunc func(b *graph.Batch, grad []float64) (float64, error)

// skipLoss turns lf, the MSE over all rows of a batch, into the MSE over the
// rows after the first skip of every trajectory: N·L − N_p·L_p over N − N_p
// rows, where p is the batch's prefix.
func skipLoss(skip int, lf lossGradFunc) lossGradFunc {
	if skip <= 0 {
		return lf
	}
	var gp []float64
	return func(b *graph.Batch, grad []float64) (float64, error) {
		loss, err := lf(b, grad)
		if err != nil {
			return 0, err
		}
		p := prefix(b, skip)
		n, np := float64(b.Rows()), float64(p.Rows())
		if np == 0 {
			return loss, nil
		}
		if len(gp) != len(grad) {
			gp = make([]float64, len(grad))
		}
		lp, err := lf(p, gp)
		if err != nil {
			return 0, err
		}
		w, wp := n/(n-np), np/(n-np)
		for i := range grad {
			grad[i] = w*grad[i] - wp*gp[i]
		}
		return max(w*loss-wp*lp, 0), nil
	}
}
