package kernels

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/passivenfir/gputrain/internal/gopanic"
)

// Backend is the set of hot loops of the training engine. The CPU type
// implements it in pure Go; a CUDA implementation (build tag cuda) implements
// the same maths on the same host-slice arguments. All slices are float64 host
// slices laid out as documented on Seqs (global sample index; gains, z and dn
// Total()×m_N row-major; taps G m_N×m_G row-major, G[j*mG+k] = g_j(k)).
// Arguments that are written ("overwrites") must not alias any input.
// Accumulating outputs ("+=") are added to, never cleared. A method panics
// with an error wrapping ErrShape when a slice is too short for the
// dimensions given. Results are deterministic for a given implementation and
// worker count: reductions over trajectories/rows are summed per worker in a
// fixed order and the workers' partial sums are added in worker order.
type Backend interface {
	// Name identifies the backend ("cpu", "cuda").
	Name() string

	// ConvForward evaluates the branch-convolution bank. For every
	// trajectory, every sample t of it and every branch j < mN:
	//
	//	z_j(t) = Σ_{k=0}^{mG−1} g_j(k) n_j(t−k) u(t−k)   (terms with t−k before the trajectory start are 0)
	//	y(t)   = Σ_j n_j(t) z_j(t)
	//
	// with n_j(t) = n[t*mN+j], g_j(k) = g[j*mG+k], z_j(t) → z[t*mN+j].
	// z and y are overwritten (z is kept for ConvBackward).
	ConvForward(s Seqs, mN, mG int, u, n, g, z, y []float64)

	// ConvBackward is the adjoint of ConvForward for an output adjoint dy:
	//
	//	dn_j(t)  = dy(t) z_j(t) + u(t) Σ_{k=0}^{mG−1} g_j(k) dy(t+k) n_j(t+k)   (t+k within the trajectory)
	//	dg_j(k) += Σ_t dy(t) n_j(t) n_j(t−k) u(t−k)                              (only if dg != nil)
	//
	// dn (Total()×mN) is overwritten; dg (mN×mG) is accumulated.
	ConvBackward(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64)

	// LinearForward adds the parallel linear FIR: y(t) += Σ_{k=0}^{mL−1} lin(k) u(t−k)
	// (within the trajectory).
	LinearForward(s Seqs, mL int, u, lin, y []float64)

	// LinearBackward accumulates the tap gradient of LinearForward:
	// dlin(k) += Σ_t dy(t) u(t−k) (within the trajectory).
	LinearBackward(s Seqs, mL int, u, dy, dlin []float64)

	// Gram assembles the normal equations of the θ_G least-squares step.
	// With nθ = mN·mG + mL regressors per sample t (θ_G order):
	//
	//	φ_{j·mG+k}(t)  = n_j(t) n_j(t−k) u(t−k)   (branch j, tap k)
	//	φ_{mN·mG+k}(t) = u(t−k)                   (linear tap k)
	//
	// (0 when t−k is before the trajectory start), it overwrites P (nθ×nθ
	// row-major, full symmetric) with Σ_t φ(t)φ(t)ᵀ and b (nθ) with
	// Σ_t φ(t) y(t), and returns Σ_t y(t)².
	Gram(s Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) float64

	// DenseTanhForward is one tanh layer on rows independent rows:
	// y = tanh(x wᵀ + b), x rows×in, w out×in, b out, y rows×out, all
	// row-major: y[r*out+o] = tanh(b[o] + Σ_i w[o*in+i] x[r*in+i]).
	// y is overwritten.
	DenseTanhForward(rows, in, out int, x, w, b, y []float64)

	// DenseTanhBackward is the adjoint of DenseTanhForward given its output
	// y and the output adjoint dy. With dpre = dy ⊙ (1 − y²) (rows×out):
	//
	//	dx  = dpre w           (rows×in, overwritten; skipped if dx == nil)
	//	dw += dpreᵀ x          (out×in)
	//	db += Σ_rows dpre      (out)
	DenseTanhBackward(rows, in, out int, x, w, y, dy, dx, dw, db []float64)

	// ClosedLoopForward simulates every trajectory in closed loop (see
	// ClosedLoop) writing ŷ into y (overwritten) and recording in tape what
	// ClosedLoopBackward needs.
	ClosedLoopForward(c *ClosedLoop, s Seqs, theta, g, lin, u, y []float64, tape *Tape)

	// ClosedLoopBackward is the exact adjoint (backpropagation through time)
	// of ClosedLoopForward, for the output adjoint dy (the derivative of the
	// loss w.r.t. ŷ, Total() entries). It accumulates into dtheta (θ_N in
	// Flatten order), dg (mN×mG) and dlin (mL); each may be nil. tape must
	// come from ClosedLoopForward with the same c, s, theta, g, lin and u.
	// The recursion is documented on CPU.ClosedLoopBackward.
	ClosedLoopBackward(c *ClosedLoop, s Seqs, theta, g, lin, u []float64, tape *Tape, dy, dtheta, dg, dlin []float64)
}

// CPU is the pure-Go Backend. Workers is the number of goroutines a kernel
// uses (0: runtime.GOMAXPROCS(0)); results are deterministic for a given
// Workers value, and differ between worker counts only by floating-point
// summation order. A CPU keeps per-worker scratch between calls so that the
// steady state allocates no buffers; it is safe for concurrent use, but must
// not be copied after first use (use *CPU).
type CPU struct {
	Workers int

	mu   sync.Mutex
	free []*scratch
}

var _ Backend = (*CPU)(nil)

// Name returns "cpu".
func (c *CPU) Name() string { return "cpu" }

func (c *CPU) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// scratch is one worker's reusable memory. Buffers only grow.
type scratch struct {
	a, b, c, d, f []float64 // general buffers; meaning per kernel
	e             []float64 // worker 0 only: per-call tables shared read-only (reversed taps)
	acc           []float64 // the worker's private accumulators
	acc2, acc3    []float64
	yy            float64
}

// buf returns (*p)[:n], growing it if needed; the contents are not cleared.
func buf(p *[]float64, n int) []float64 {
	if cap(*p) < n {
		*p = make([]float64, n)
	}
	*p = (*p)[:n]
	return *p
}

// zbuf is buf with the first n entries cleared.
func zbuf(p *[]float64, n int) []float64 {
	b := buf(p, n)
	clear(b)
	return b
}

// get takes W scratches from the free list, in the order put returned them,
// so that a worker index keeps the same scratch (and its buffer sizes) from
// call to call.
func (c *CPU) get(W int) []*scratch {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*scratch, W)
	n := len(c.free)
	k := min(W, n)
	copy(out, c.free[n-k:])
	c.free = c.free[:n-k]
	for w := k; w < W; w++ {
		out[w] = new(scratch)
	}
	return out
}

func (c *CPU) put(sc []*scratch) {
	c.mu.Lock()
	c.free = append(c.free, sc...)
	c.mu.Unlock()
}

// parallel runs f(w, sc[w]) for w < W on W goroutines (the calling one
// included) and waits for all.
func parallel(sc []*scratch, f func(w int, sc *scratch)) {
	W := len(sc)
	if W == 1 {
		f(0, sc[0])
		return
	}
	// One value, so that the goroutines' closures make one allocation
	// (TestSteadyStateAllocs). A worker's panic is raised again here, in
	// the caller's goroutine, not in its own, which would end the process.
	var pool struct {
		wg sync.WaitGroup
		pc gopanic.Catcher
	}
	pool.wg.Add(W - 1)
	for w := 1; w < W; w++ {
		go func() {
			defer pool.wg.Done()
			defer pool.pc.Catch()
			f(w, sc[w])
		}()
	}
	f(0, sc[0])
	pool.wg.Wait()
	pool.pc.Repanic()
}

// seqWorkers is the number of workers for s: Workers, but at most one per
// trajectory.
func (c *CPU) seqWorkers(s Seqs) int { return max(1, min(c.workers(), s.Batches())) }

// overSeqs runs f on every trajectory, worker w = 0..len(sc)−1 owning a fixed
// contiguous group of trajectories (Seqs.split); init, if not nil, runs once
// per worker first (to clear its accumulators). The caller reduces the
// workers' accumulators in worker order before releasing sc with c.put.
func overSeqs(sc []*scratch, s Seqs, init func(sc *scratch), f func(sc *scratch, o, T int)) {
	var bndArr [16]int
	bnd := s.split(len(sc), bndArr[:0])
	parallel(sc, func(w int, sc *scratch) {
		if init != nil {
			init(sc)
		}
		for b := bnd[w]; b < bnd[w+1]; b++ {
			if T := s.Len(b); T > 0 {
				f(sc, s.Off[b], T)
			}
		}
	})
}

// rowWorkers is the number of workers for rows independent rows, at least
// minPer rows each.
func (c *CPU) rowWorkers(rows, minPer int) int {
	return max(1, min(c.workers(), rows/max(1, minPer)))
}

// overRows runs f(sc, r0, r1) for the fixed split of [0, rows) into
// len(sc) contiguous ranges, worker w owning [rows·w/W, rows·(w+1)/W).
func overRows(sc []*scratch, rows int, init func(sc *scratch), f func(sc *scratch, r0, r1 int)) {
	W := len(sc)
	parallel(sc, func(w int, sc *scratch) {
		if init != nil {
			init(sc)
		}
		r0, r1 := rows*w/W, rows*(w+1)/W
		if r1 > r0 {
			f(sc, r0, r1)
		}
	})
}

func need(op, name string, have, want int) {
	if have < want {
		panic(fmt.Errorf("kernels: %s: len(%s) = %d, need %d: %w", op, name, have, want, ErrShape))
	}
}

func checkSeqs(op string, s Seqs) {
	if err := s.Check(); err != nil {
		panic(fmt.Errorf("kernels: %s: %w", op, err))
	}
}

func checkDims(op string, dims ...int) {
	for _, d := range dims {
		if d < 0 {
			panic(fmt.Errorf("kernels: %s: negative dimension in %v: %w", op, dims, ErrShape))
		}
	}
}
