package trainer

import (
	"context"

	"github.com/passivenfir/gputrain/kernels"
)

// gramContexter is a backend whose Gram assembly can be cancelled
// (kernels.CPU). On a 10⁷-sample record with 2000 taps the assembly alone
// takes minutes, so Ctrl-C must reach inside it.
type gramContexter interface {
	GramContext(ctx context.Context, s kernels.Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) (float64, error)
}

// gram is be.Gram, cancelled by ctx where the backend supports it and
// checked before and after where it does not.
func gram(ctx context.Context, be kernels.Backend, s kernels.Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) (float64, error) {
	if g, ok := be.(gramContexter); ok {
		return g.GramContext(ctx, s, mN, mG, mL, u, n, y, P, b)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	yy := be.Gram(s, mN, mG, mL, u, n, y, P, b)
	return yy, ctx.Err()
}
