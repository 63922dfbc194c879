package trainer

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/passivenfir/gputrain/data"
	"github.com/passivenfir/gputrain/graph"
	"github.com/passivenfir/gputrain/kernels"
	"github.com/passivenfir/gputrain/model"
)

// TestPlan: the chunks cover every row of every trajectory once, in order,
// within the limit; a piece that starts inside its trajectory carries the
// history before it; data within the limit is one chunk of whole
// trajectories.
func TestPlan(t *testing.T) {
	lens := []int{5, 300, 1, 77, 64}
	length := func(i int) int { return lens[i] }
	for _, tc := range []struct {
		idx          []int
		hist, limit  int
		wantOneChunk bool
	}{
		{[]int{0, 1, 2, 3, 4}, 9, 1000, true},
		{[]int{0, 1, 2, 3, 4}, 9, 64, false},
		{[]int{3, 1}, 0, 50, false},
		{[]int{1}, 9, 10, false},
		{[]int{4, 2, 0}, 49, 70, true},
	} {
		chunks := plan(length, tc.idx, tc.hist, tc.limit)
		if got := len(chunks) == 1; got != tc.wantOneChunk {
			t.Errorf("%v, hist %d, limit %d: %d chunks", tc.idx, tc.hist, tc.limit, len(chunks))
		}
		next := map[int]int{} // next body row of each trajectory
		order := []int{}
		for _, ps := range chunks {
			rows := 0
			for _, p := range ps {
				rows += p.rows()
				if p.lo != next[p.tr] || p.hi <= p.lo {
					t.Fatalf("%v: piece %+v, want body from %d", tc.idx, p, next[p.tr])
				}
				if p.hist != min(tc.hist, p.lo) {
					t.Errorf("%v: piece %+v, want history %d", tc.idx, p, min(tc.hist, p.lo))
				}
				if p.lo == 0 {
					order = append(order, p.tr)
				}
				next[p.tr] = p.hi
			}
			if rows > max(tc.limit, tc.hist+1) {
				t.Errorf("%v: chunk of %d rows, limit %d", tc.idx, rows, tc.limit)
			}
		}
		for i, tr := range tc.idx {
			if next[tr] != lens[tr] || order[i] != tr {
				t.Errorf("%v: trajectory %d covered to %d of %d (order %v)", tc.idx, tr, next[tr], lens[tr], order)
			}
		}
	}
}

// streamSession is a session on random data for a random model of st,
// ready for the θ_G and θ_N passes.
func streamSession(t *testing.T, st model.Structure, skip int, lens ...int) *session {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 5))
	m, err := model.RandomPassive(st, rng)
	if err != nil {
		t.Fatal(err)
	}
	d := &data.Dataset{Name: "random", Ts: 1}
	for _, T := range lens {
		u, y := make([]float64, T), make([]float64, T)
		for i := range u {
			u[i] = rng.NormFloat64()
			if i > 0 {
				y[i] = 0.6*y[i-1] + 0.4*u[i] + 0.2*math.Tanh(y[i-1]) + 0.05*rng.NormFloat64()
			}
		}
		d.Batches = append(d.Batches, data.Batch{U: u, Y: y})
	}
	m.UScaler, m.QScaler = data.FitScaler(d.Batches[0].U), data.FitScaler(d.Batches[0].Y)
	cfg := DefaultConfig()
	cfg.Structure, cfg.Skip = st, skip
	s := &session{cfg: cfg, m: m, be: &kernels.CPU{Workers: 2}, theta: m.Lift.Flatten()}
	if s.open, err = graph.NewOpenLoop(m, s.be); err != nil {
		t.Fatal(err)
	}
	if s.train, err = s.prepare(d, skip); err != nil {
		t.Fatal(err)
	}
	return s
}

// withChunk runs f with chunkRows set to rows; below 1<<30 also without
// s's precomputed features, so that the chunks compute theirs.
func withChunk(s *session, rows int, f func()) {
	defer func(r int, x [][]float64) { chunkRows, s.train.src.x = r, x }(chunkRows, s.train.src.x)
	chunkRows = rows
	if rows < 1<<30 {
		s.train.src.x = nil
	}
	f()
}

func relErr(got, want []float64) float64 {
	num, den := 0.0, 0.0
	for i := range got {
		num = math.Max(num, math.Abs(got[i]-want[i]))
		den = math.Max(den, math.Abs(want[i]))
	}
	if den == 0 {
		return num
	}
	return num / den
}

var streamStructures = []struct {
	name string
	st   model.Structure
	skip int
}{
	{"FB", model.Structure{Branches: 3, Taps: 12, R1: 2, R2: 3, Hidden: []int{5, 4}, Feedback: true}, 0},
	{"FB+lin+skip", model.Structure{Branches: 2, Taps: 7, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true, LinearTaps: 20}, 30},
	{"FF+hold", model.Structure{Branches: 2, Taps: 9, R1: 4, Hidden: []int{3}, HoldStart: true}, 5},
	{"lin", model.Structure{LinearTaps: 15}, 3},
}

// TestStreamGram: the normal equations streamed over chunks of 97 rows
// (trajectories cut into pieces with history, several per chunk) equal the
// dense ones of one batch of the whole trajectories to 1e-12, with Skip and
// with the closed-loop candidate's fed-back output.
func TestStreamGram(t *testing.T) {
	for _, tc := range streamStructures {
		t.Run(tc.name, func(t *testing.T) {
			s := streamSession(t, tc.st, tc.skip, 400, 55, 230, 41)
			srcs := []*source{&s.train.src}
			if tc.st.Feedback {
				cl := &source{us: s.train.src.us, ys: s.train.src.ys}
				for _, y := range s.train.src.ys {
					q := data.Q(y)
					for i := range q {
						q[i] = 0.9*q[i] + 0.01
					}
					cl.qs = append(cl.qs, q)
				}
				srcs = append(srcs, cl)
			}
			nt := tc.st.Branches*tc.st.Taps + tc.st.LinearTaps
			for i, src := range srcs {
				var P, b [2][]float64
				var yy [2]float64
				for k, rows := range []int{1 << 30, 97} {
					P[k], b[k] = make([]float64, nt*nt), make([]float64, nt)
					withChunk(s, rows, func() {
						if len(s.plan(src, s.train.all)) == 1 != (k == 0) {
							t.Fatalf("chunk rows %d: wrong number of chunks", rows)
						}
						var err error
						if yy[k], err = s.streamGram(context.Background(), src, tc.skip, P[k], b[k]); err != nil {
							t.Fatal(err)
						}
					})
				}
				if e := relErr(P[1], P[0]); e > 1e-12 {
					t.Errorf("source %d: P streamed vs dense: relative error %.2g", i, e)
				}
				if e := relErr(b[1], b[0]); e > 1e-12 {
					t.Errorf("source %d: b streamed vs dense: relative error %.2g", i, e)
				}
				if e := math.Abs(yy[1]-yy[0]) / yy[0]; e > 1e-12 {
					t.Errorf("source %d: yᵀy streamed %v, dense %v", i, yy[1], yy[0])
				}
			}
		})
	}
}

// TestStreamLossGrad: Adam's loss and gradient over a mini-batch, and the
// open-loop error of a whole data set, streamed over chunks equal those of
// the dense batch to 1e-12.
func TestStreamLossGrad(t *testing.T) {
	for _, tc := range streamStructures {
		if tc.st.Branches == 0 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			s := streamSession(t, tc.st, tc.skip, 400, 55, 230, 41)
			rng := rand.New(rand.NewPCG(8, 8))
			for i := range s.m.G {
				s.m.G[i] = 0.3 * rng.NormFloat64()
			}
			for i := range s.m.Lin {
				s.m.Lin[i] = 0.1 * rng.NormFloat64()
			}
			lf := func(b *graph.Batch, grad []float64) (float64, error) {
				return s.open.LossGrad(b, s.theta, s.m.G, s.m.Lin, grad)
			}
			idx := []int{2, 0, 3}
			var loss [2]float64
			var rows [2]int
			var grad [2][]float64
			var mse [2]float64
			for k, chunk := range []int{1 << 30, 61} {
				grad[k] = make([]float64, len(s.theta))
				withChunk(s, chunk, func() {
					var err error
					if loss[k], rows[k], err = s.streamLossGrad(&s.train.src, idx, tc.skip, lf, grad[k], &graph.Batch{}); err != nil {
						t.Fatal(err)
					}
					e, ok, err := s.streamOutputMSE(&s.train)
					if err != nil || ok != (k == 1) {
						t.Fatalf("streamOutputMSE: ok %v, %v", ok, err)
					}
					if !ok {
						full, err := s.train.fullBatch()
						if err != nil {
							t.Fatal(err)
						}
						y := make([]float64, full.Rows())
						if err := s.open.Output(full, s.theta, s.m.G, s.m.Lin, y); err != nil {
							t.Fatal(err)
						}
						e = s.train.mse(y)
					}
					mse[k] = e
				})
			}
			if rows[0] != rows[1] {
				t.Errorf("scored rows: streamed %d, dense %d", rows[1], rows[0])
			}
			if e := math.Abs(loss[1]-loss[0]) / loss[0]; e > 1e-12 {
				t.Errorf("loss: streamed %v, dense %v", loss[1], loss[0])
			}
			if e := relErr(grad[1], grad[0]); e > 1e-12 {
				t.Errorf("gradient streamed vs dense: relative error %.2g", e)
			}
			if e := math.Abs(mse[1]-mse[0]) / mse[0]; e > 1e-12 {
				t.Errorf("open-loop MSE: streamed %v, dense %v", mse[1], mse[0])
			}
		})
	}
}

// TestStreamTrain: a whole training run whose passes stream over chunks of
// 64 rows gives the model of the dense run, to reduction-order noise
// amplified by one QP solve and a few Adam steps.
func TestStreamTrain(t *testing.T) {
	train, val := randomData(6, 300, 11), randomData(2, 300, 12)
	cfg := DefaultConfig()
	cfg.Structure = model.Structure{Branches: 2, Taps: 10, R1: 1, R2: 1, Hidden: []int{4}, Feedback: true}
	cfg.Iters, cfg.Epochs, cfg.Batch, cfg.Workers, cfg.Passivity, cfg.Skip = 2, 3, 2, 2, PassivitySampled, 4
	var res [2]*Result
	defer func(r int) { chunkRows = r }(chunkRows)
	for k, rows := range []int{1 << 30, 64} {
		chunkRows = rows
		r, err := Train(context.Background(), cfg, train, val)
		if err != nil {
			t.Fatal(err)
		}
		res[k] = r
	}
	if e := relErr(res[1].Model.G, res[0].Model.G); e > 1e-8 {
		t.Errorf("taps: streamed vs dense relative error %.2g", e)
	}
	if e := relErr(res[1].Model.Lift.Flatten(), res[0].Model.Lift.Flatten()); e > 1e-8 {
		t.Errorf("θ_N: streamed vs dense relative error %.2g", e)
	}
	if d := math.Abs(res[1].BestValFit - res[0].BestValFit); d > 1e-6 {
		t.Errorf("validation Fit: streamed %v, dense %v", res[1].BestValFit, res[0].BestValFit)
	}
}

// TestStreamClosed: the closed-loop simulation of a data set in groups of
// whole trajectories (chunks of 100 rows: one trajectory of 400 alone, the
// others grouped) is bit for bit that of one batch of them all, and so are
// the closed-loop error and the closed-loop candidate's fed-back output.
func TestStreamClosed(t *testing.T) {
	for _, tc := range streamStructures {
		if !tc.st.Feedback {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			s := streamSession(t, tc.st, tc.skip, 400, 55, 30, 41, 230)
			var err error
			if s.closed, err = graph.NewClosedLoop(s.m, s.be); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(9, 9))
			for i := range s.m.G {
				s.m.G[i] = 0.05 * rng.Float64()
			}
			var y [2][]float64
			var e [2]float64
			var q [2][][]float64
			for k, rows := range []int{1 << 30, 100} {
				withChunk(s, rows, func() {
					y[k] = make([]float64, s.train.rowsAll())
					if err := s.closedSim(&s.train, y[k]); err != nil {
						t.Fatal(err)
					}
					if e[k], err = s.closedMSE(&s.train, make([]float64, len(y[k]))); err != nil {
						t.Fatal(err)
					}
					cl, err := s.closedLoopBatch()
					if err != nil {
						t.Fatal(err)
					}
					q[k] = cl.qs
				})
			}
			for i := range y[0] {
				if y[1][i] != y[0][i] {
					t.Fatalf("row %d: grouped %v, one batch %v", i, y[1][i], y[0][i])
				}
			}
			if e[1] != e[0] || !(e[0] > 0) {
				t.Errorf("closed-loop error: grouped %v, one batch %v", e[1], e[0])
			}
			for b := range q[0] {
				for i := range q[0][b] {
					if q[1][b][i] != q[0][b][i] {
						t.Fatalf("trajectory %d, q(%d): grouped %v, one batch %v", b, i, q[1][b][i], q[0][b][i])
					}
				}
			}
		})
	}
}
