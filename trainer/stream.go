package trainer

import (
	"context"
	"fmt"

	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/kernels"
)

// The open-loop passes over a data set — the gains and the Gram matrix of
// the θ_G step, Adam's loss and gradient over a mini-batch, the open-loop
// validation error — stream over it in chunks of at most chunkRows rows, so
// that the graph tapes and the gains they hold grow with the model and the
// chunk, not with the record: a 10⁷-sample record otherwise holds about a
// hundred float64s per sample in tapes.
//
// A chunk is a graph batch of pieces of trajectories. A piece that starts
// inside its trajectory, at lo > 0, carries the model's FIR memory before
// lo (up to max(m_G, L_lin) − 1 rows) as history, and the lifting network's
// features are those of the whole trajectory: every open-loop output and
// regressor at a row of the piece's body is then exactly the one of the whole
// trajectory, because it depends on the gains and inputs of the FIR's memory
// and on the features only (see skip.go). The history rows, and the rows that
// Config.Skip leaves out, are left out as skip.go does: the contribution of
// the piece cut to them is subtracted. A pass whose rows all fit in one chunk
// is one batch of whole trajectories, the dense path, unchanged.

// chunkRows is the most rows of one chunk (a piece's history included):
// 2¹⁷ rows keep an open-loop tape of the paper's structure near 100 MiB,
// each kernel call long enough that its fixed cost does not show, and the
// data sets of up to 2¹⁷ samples (the paper's 300 × 250, the robot's, the
// circuit records of 80 000) on the dense path, bit for bit as before
// streaming. A variable so that tests can stream small data.
var chunkRows = 1 << 17

// piece is the rows [lo−hist, hi) of trajectory tr: hist rows of history,
// then the body [lo, hi), whose rows are the ones it scores.
type piece struct{ tr, lo, hi, hist int }

// rows is the number of rows of p in its chunk.
func (p piece) rows() int { return p.hist + p.hi - p.lo }

// plan splits the trajectories idx, of lengths length(i), into chunks of
// pieces of at most limit rows each (a piece has at least one body row, so a
// limit below hist+1 is exceeded), in order. Trajectories that fit in the
// chunk being filled go whole; a longer one is cut, each piece after its
// first with hist rows of history (fewer near the start). When all of idx
// fits in limit rows the plan is one chunk of the whole trajectories.
func plan(length func(int) int, idx []int, hist, limit int) [][]piece {
	var chunks [][]piece
	var cur []piece
	used := 0
	for _, tr := range idx {
		T := length(tr)
		for lo := 0; lo < T; {
			h := min(hist, lo)
			if used > 0 && limit-used < h+1 {
				chunks, cur, used = append(chunks, cur), nil, 0
			}
			body := min(T-lo, max(limit-used-h, 1))
			cur = append(cur, piece{tr: tr, lo: lo, hi: lo + body, hist: h})
			used += h + body
			lo += body
		}
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}

// source is the per-trajectory data a chunk is cut from.
type source struct {
	us, ys [][]float64
	// qs is the fed-back output of a feedback model's features; nil: the
	// measured one, q(t) = y(t−1).
	qs [][]float64
	// x holds each trajectory's features (rows × F), kept for a small data
	// set; nil: computed for each chunk.
	x [][]float64
}

// featureCache is the most float64s of features that prepare keeps per data
// set (8 MiB): a mini-batch of short trajectories then only copies them, as
// before streaming, and a long record computes them per chunk instead of
// holding F more values per sample.
const featureCache = 1 << 20

// history is the rows of history a piece needs: the FIRs' memory minus one.
func (s *session) history() int {
	st := s.cfg.Structure
	h := st.LinearTaps
	if st.Branches > 0 {
		h = max(h, st.Taps)
	}
	return max(h-1, 0)
}

// plan is the chunks of the trajectories idx of src.
func (s *session) plan(src *source, idx []int) [][]piece {
	return plan(func(i int) int { return len(src.us[i]) }, idx, s.history(), chunkRows)
}

// batch returns the graph batch of the pieces ps of src, reusing the
// buffers of into (which may be nil); the batch is into's until the next
// call.
func (s *session) batch(src *source, ps []piece, into *graph.Batch) *graph.Batch {
	return s.batchOf(src, ps, into, true)
}

// batchOf is batch, with the features only when features is set (the
// closed loop computes its own).
func (s *session) batchOf(src *source, ps []piece, into *graph.Batch, features bool) *graph.Batch {
	lens := make([]int, len(ps))
	rows := 0
	for i, p := range ps {
		lens[i] = p.rows()
		rows += lens[i]
	}
	st := s.cfg.Structure
	F := 0
	if st.Branches > 0 && features {
		F = st.NumFeatures()
	}
	if into == nil {
		into = &graph.Batch{}
	}
	into.Seqs, _ = kernels.NewSeqs(lens...) // row counts: never negative
	into.X = grow(into.X, rows*F)
	into.U = grow(into.U, rows)
	into.Y = grow(into.Y, rows)
	var q []float64
	o := 0
	for i, p := range ps {
		a := p.lo - p.hist
		u, y := src.us[p.tr], src.ys[p.tr]
		copy(into.U[o:], u[a:p.hi])
		copy(into.Y[o:], y[a:p.hi])
		switch {
		case F == 0:
		case src.x != nil:
			copy(into.X[o*F:], src.x[p.tr][a*F:p.hi*F])
		default:
			// The feature windows reach R1−1 and R2−1 samples before a;
			// from base on the trajectory is cut so that they still read
			// its samples (and t = 0 stays t = 0 when base is 0).
			base := max(0, a-max(st.R1, st.R2))
			ub := u[base:p.hi]
			var qb []float64
			if st.Feedback {
				if src.qs != nil {
					qb = src.qs[p.tr][base:p.hi]
				} else {
					q = grow(q, p.hi-base)
					for t := range q {
						if base+t > 0 {
							q[t] = y[base+t-1]
						} else {
							q[t] = 0
						}
					}
					qb = q
				}
			}
			for t := a; t < p.hi; t++ {
				r := o + t - a
				s.m.FeatureAt(ub, qb, t-base, into.X[r*F:(r+1)*F])
			}
		}
		o += lens[i]
	}
	return into
}

// grow returns b resized to n, reallocated only when too short.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

// unscored returns, per piece, the leading rows its scores leave out: the
// history, and the first skip samples of its trajectory.
func unscored(ps []piece, skip int) []int {
	k := make([]int, len(ps))
	for i, p := range ps {
		k[i] = p.hist + max(0, min(skip, p.hi)-p.lo)
	}
	return k
}

// streamGram assembles the normal equations of the θ_G step over the
// trajectories of src, after the first skip samples of each: P (nt × nt)
// and b, and returns yᵀy. theta is θ_N.
func (s *session) streamGram(ctx context.Context, src *source, skip int, P, b []float64) (float64, error) {
	st := s.cfg.Structure
	nt := len(b)
	all := make([]int, len(src.us))
	for i := range all {
		all[i] = i
	}
	chunks := s.plan(src, all)
	var Pc, bc, n []float64
	var buf graph.Batch
	yy := 0.0
	for c, ps := range chunks {
		cb := s.batch(src, ps, &buf)
		dP, db := P, b // a single chunk: the dense path, in place
		if len(chunks) > 1 {
			Pc, bc = grow(Pc, nt*nt), grow(bc, nt)
			dP, db = Pc, bc
		}
		n = grow(n, cb.Rows()*st.Branches)
		if st.Branches > 0 {
			if err := s.open.Gains(cb, s.theta, n); err != nil {
				return 0, fmt.Errorf("trainer: gains: %w", err)
			}
		}
		y, err := gram(ctx, s.be, cb.Seqs, st.Branches, st.Taps, st.LinearTaps, cb.U, n, cb.Y, dP, db)
		if err != nil {
			return 0, fmt.Errorf("trainer: Gram matrix: %w", err)
		}
		if pre := prefixN(cb, unscored(ps, skip)); pre != nil {
			// The rows left out (see skip.go).
			np := make([]float64, pre.Rows()*st.Branches)
			if st.Branches > 0 {
				if err := s.open.Gains(pre, s.theta, np); err != nil {
					return 0, fmt.Errorf("trainer: gains: %w", err)
				}
			}
			Pp := make([]float64, nt*nt)
			bp := make([]float64, nt)
			yp, err := gram(ctx, s.be, pre.Seqs, st.Branches, st.Taps, st.LinearTaps, pre.U, np, pre.Y, Pp, bp)
			if err != nil {
				return 0, fmt.Errorf("trainer: Gram matrix: %w", err)
			}
			y -= yp
			for i := range dP {
				dP[i] -= Pp[i]
			}
			for i := range db {
				db[i] -= bp[i]
			}
		}
		if len(chunks) == 1 {
			yy = y
			break
		}
		if c == 0 {
			copy(P, Pc)
			copy(b, bc)
			yy = y
			continue
		}
		for i, v := range Pc {
			P[i] += v
		}
		for i, v := range bc {
			b[i] += v
		}
		yy += y
	}
	return max(yy, 0), nil
}

// streamLossGrad is lf, the mean squared error over a batch's rows and its
// gradient, over the trajectories idx of src after the first skip samples
// of each: the mean over those rows and its gradient (into grad), and their
// number.
func (s *session) streamLossGrad(src *source, idx []int, skip int, lf lossGradFunc, grad []float64, buf *graph.Batch) (float64, int, error) {
	chunks := s.plan(src, idx)
	if len(chunks) == 1 {
		b := s.batch(src, chunks[0], buf)
		loss, err := skipLoss(skip, lf)(b, grad)
		return loss, scoredRows(b.Seqs, skip), err
	}
	sum, scored := 0.0, 0
	gc := make([]float64, len(grad))
	clear(grad)
	for _, ps := range chunks {
		b := s.batch(src, ps, buf)
		l, err := lf(b, gc)
		if err != nil {
			return 0, 0, err
		}
		n := float64(b.Rows())
		sum += n * l
		for i, v := range gc {
			grad[i] += n * v
		}
		scored += b.Rows()
		if pre := prefixN(b, unscored(ps, skip)); pre != nil {
			lp, err := lf(pre, gc)
			if err != nil {
				return 0, 0, err
			}
			np := float64(pre.Rows())
			sum -= np * lp
			for i, v := range gc {
				grad[i] -= np * v
			}
			scored -= pre.Rows()
		}
	}
	if scored == 0 {
		clear(grad)
		return 0, 0, nil
	}
	w := 1 / float64(scored)
	for i := range grad {
		grad[i] *= w
	}
	return max(sum*w, 0), scored, nil
}

// streamOutputMSE is the mean squared error of the open-loop output of
// every trajectory of t after its first t.skip samples, computed chunk by
// chunk; ok is false when t fits in one chunk, for the caller's dense path.
func (s *session) streamOutputMSE(t *traj) (mse float64, ok bool, err error) {
	chunks := s.plan(&t.src, t.all)
	if len(chunks) == 1 {
		return 0, false, nil
	}
	var buf graph.Batch
	var y []float64
	sum, n := 0.0, 0
	for _, ps := range chunks {
		b := s.batch(&t.src, ps, &buf)
		y = grow(y, b.Rows())
		if err := s.open.Output(b, s.theta, s.m.G, s.m.Lin, y); err != nil {
			return 0, true, err
		}
		k := unscored(ps, t.skip)
		for i := range ps {
			for r := b.Seqs.Off[i] + k[i]; r < b.Seqs.Off[i+1]; r++ {
				d := y[r] - b.Y[r]
				sum += d * d
				n++
			}
		}
	}
	return sum / float64(n), true, nil
}

// closedSim writes the closed-loop output of every trajectory of t into y
// (t's rows, in order). A closed loop does not stream within a trajectory,
// whose state at a row depends on all of it before, but trajectories are
// independent: they are simulated in groups of whole trajectories of up to
// chunkRows rows (a longer one alone), so that the tapes grow with the
// longest trajectory rather than with the data set; each trajectory's
// output is bit for bit that of one batch of them all.
func (s *session) closedSim(t *traj, y []float64) error {
	var buf graph.Batch
	var group []piece
	o, rows := 0, 0
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		b := s.batchOf(&t.src, group, &buf, false)
		if err := s.closed.Simulate(b, s.theta, s.m.G, s.m.Lin, y[o:o+b.Rows()]); err != nil {
			return err
		}
		o += b.Rows()
		group, rows = group[:0], 0
		return nil
	}
	for tr, u := range t.src.us {
		if rows > 0 && rows+len(u) > chunkRows {
			if err := flush(); err != nil {
				return err
			}
		}
		group = append(group, piece{tr: tr, hi: len(u)})
		rows += len(u)
	}
	return flush()
}

// prefixN returns the first k[i] rows of every trajectory i of b (all of a
// shorter one), or nil when that is no row.
func prefixN(b *graph.Batch, k []int) *graph.Batch {
	if b.Rows() == 0 {
		return nil
	}
	f := len(b.X) / b.Rows()
	off := b.Seqs.Off
	lens := make([]int, len(off)-1)
	p := &graph.Batch{}
	total := 0
	for i := range lens {
		lo := off[i]
		hi := min(off[i+1], lo+max(k[i], 0))
		lens[i] = hi - lo
		total += lens[i]
		p.X = append(p.X, b.X[lo*f:hi*f]...)
		p.U = append(p.U, b.U[lo:hi]...)
		p.Y = append(p.Y, b.Y[lo:hi]...)
	}
	if total == 0 {
		return nil
	}
	p.Seqs, _ = kernels.NewSeqs(lens...) // lengths of slices: never negative
	return p
}
