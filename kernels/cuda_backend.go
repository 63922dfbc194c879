//go:build nfircuda

package kernels

import (
	_ "embed"
	"fmt"
	"math"
	"sync"
	"unsafe"
)

//go:generate sh cuda/gen.sh

// nfirPTX is kernels/cuda/nfir.ptx, generated from nfir.cu by nvcc for
// compute_80 and committed, so that building needs no nvcc; the driver
// JIT-compiles it for the GPU at hand (sm_80 and newer) when NewCUDA runs.
//
//go:embed cuda/nfir.ptx
var nfirPTX []byte

// Kernel indices, in the order of kernelNames.
const (
	kSumPartials = iota
	kColprod
	kDenseFwd
	kDensePre
	kDenseDx
	kConvFwd
	kConvOut
	kConvBwdDn
	kXcorr
	kLinFwd
	kGramPartial
	kGramReduce
	kResidual
	kAdam
	kFeatures
	kClFwd
	kClBwd
	nKernels
)

var kernelNames = [nKernels]string{
	"sum_partials", "colprod_partial", "dense_fwd", "dense_pre", "dense_dx",
	"conv_fwd", "conv_out", "conv_bwd_dn", "xcorr_partial", "lin_fwd",
	"gram_partial", "gram_reduce", "residual", "adam", "features", "cl_fwd", "cl_bwd",
}

// CUDA is the Backend running the kernels of kernels/cuda/nfir.cu on an
// NVIDIA GPU (float64 throughout). It implements exactly the maths of the
// Backend documentation, on the same host slices: every method uploads its
// inputs, runs its kernels and downloads its outputs before returning.
//
// What stays on the device: every buffer is allocated once and grown, never
// freed between calls (named scratch slots), the trajectory layout (Seqs)
// is uploaded only when it changes, slices declared with Resident (the data
// set: u, q, y) are uploaded once, and ClosedLoopForward keeps its tape
// (activations and z) on the device for ClosedLoopBackward — the tape never
// crosses the bus (Tape.Dev holds it; Tape.Act and Tape.Z are filled only
// when HostTape is set). What crosses the bus per call: the non-resident
// inputs and every output, because the host-slice interface hands them back
// to the caller. OpenLoopLossGrad computes a whole open-loop loss and
// gradient on the device; per call only θ (θ_N, g, lin) goes up and the
// loss and the gradient (a few hundred numbers) come back. See docs/GPU.md.
//
// Reductions (tap gradients, dθ, Gram, loss) are summed per group in a fixed
// layout and the groups added in order, never with atomics: results are
// deterministic run to run, but the summation order differs from the CPU
// backend's, so the two agree to rounding (≈1e-13 relative), not bitwise.
//
// Methods panic on shape errors (wrapping ErrShape, as the CPU backend) and
// on driver errors (the interface has no error results). A CUDA is safe for
// concurrent use (calls are serialized).
type CUDA struct {
	// HostTape makes ClosedLoopForward also copy its tape into Tape.Act and
	// Tape.Z (costly: (Σ Sizes + MN)·Total() numbers per call).
	HostTape bool

	mu   sync.Mutex
	desc string
	fn   []drvFunc
	slot map[string]*dbuf
	res  map[*float64]*dbuf // Resident host slices, keyed by &x[0]

	seqOff []int // the Seqs whose ts/te/off are on the device
	ts, te dbuf  // int32 per sample: trajectory start / end (exclusive)
	off    dbuf  // int32 Off, Batches()+1
}

// dbuf is a device buffer that only grows.
type dbuf struct {
	p     uint64
	bytes int
	n     int // for resident slices: the length
}

var _ Backend = (*CUDA)(nil)

// NewCUDA initialises the driver on device 0, JIT-compiles the embedded
// PTX and returns the backend. Without an NVIDIA driver or GPU it returns an
// error wrapping ErrNoCUDA; it never exits the process.
func NewCUDA() (*CUDA, error) {
	desc, err := drvOpen()
	if err != nil {
		return nil, err
	}
	fn, err := drvLoad(nfirPTX, kernelNames[:])
	if err != nil {
		return nil, err
	}
	return &CUDA{desc: desc, fn: fn, slot: map[string]*dbuf{}, res: map[*float64]*dbuf{}}, nil
}

// Name returns "cuda".
func (c *CUDA) Name() string { return "cuda" }

// Device describes the GPU (name, compute capability, driver version).
func (c *CUDA) Device() string { return c.desc }

// Close frees every device buffer. The backend must not be used afterwards.
func (c *CUDA) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, b := range c.slot {
		drvFree(b.p)
	}
	for _, b := range c.res {
		drvFree(b.p)
	}
	for _, b := range []*dbuf{&c.ts, &c.te, &c.off} {
		if b.p != 0 {
			drvFree(b.p)
		}
	}
	c.slot, c.res, c.seqOff = map[string]*dbuf{}, map[*float64]*dbuf{}, nil
	c.ts, c.te, c.off = dbuf{}, dbuf{}, dbuf{}
}

// Resident uploads the given host slices once and uses the device copies
// whenever exactly these slices (same first element, same length) are
// passed as inputs later, instead of uploading them again. The caller
// promises not to modify them until Release; meant for the data set (u, q,
// y), which is constant during training.
func (c *CUDA) Resident(xs ...[]float64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range xs {
		if len(x) == 0 {
			continue
		}
		b := c.res[&x[0]]
		if b == nil {
			b = new(dbuf)
			c.res[&x[0]] = b
		}
		if err := grow(b, 8*len(x)); err != nil {
			return err
		}
		if err := drvHtoD(b.p, unsafe.Pointer(&x[0]), 8*len(x)); err != nil {
			return err
		}
		b.n = len(x)
	}
	return nil
}

// Release forgets (and frees the device copies of) resident slices.
func (c *CUDA) Release(xs ...[]float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, x := range xs {
		if len(x) == 0 {
			continue
		}
		if b := c.res[&x[0]]; b != nil {
			drvFree(b.p)
			delete(c.res, &x[0])
		}
	}
}

func grow(b *dbuf, bytes int) error {
	bytes = max(bytes, 8)
	if b.bytes >= bytes {
		return nil
	}
	if b.p != 0 {
		drvFree(b.p)
		b.p, b.bytes = 0, 0
	}
	p, err := drvAlloc(bytes)
	if err != nil {
		return err
	}
	b.p, b.bytes = p, bytes
	return nil
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}

// buf returns the device scratch slot name with room for n float64s.
func (c *CUDA) buf(name string, n int) uint64 {
	b := c.slot[name]
	if b == nil {
		b = new(dbuf)
		c.slot[name] = b
	}
	check(grow(b, 8*n))
	return b.p
}

// up returns a device copy of x[:n] (n ≤ len(x)): the resident copy if x
// is resident, else x uploaded into slot name.
func (c *CUDA) up(name string, x []float64, n int) uint64 {
	if n == 0 {
		return c.buf(name, 1)
	}
	if b := c.res[&x[0]]; b != nil && b.n >= n {
		return b.p
	}
	p := c.buf(name, n)
	check(drvHtoD(p, unsafe.Pointer(&x[0]), 8*n))
	return p
}

// down copies n float64s from device p into x.
func down(x []float64, p uint64, n int) {
	if n > 0 {
		check(drvDtoH(unsafe.Pointer(&x[0]), p, 8*n))
	}
}

func upInts(p uint64, v []int32) {
	if len(v) > 0 {
		check(drvHtoD(p, unsafe.Pointer(&v[0]), 4*len(v)))
	}
}

// dptr marks a device pointer kernel argument; nil pointers are dptr(0).
type dptr uint64

// launch runs kernel k. Arguments: int (passed as a 32-bit int, checked),
// int64 (long long), float64, dptr or uint64 (pointers).
func (c *CUDA) launch(k int, grid, block [3]uint32, shmem int, args ...any) {
	a := make([]uint64, len(args))
	for i, v := range args {
		switch v := v.(type) {
		case int:
			if v > math.MaxInt32 || v < math.MinInt32 {
				panic(fmt.Errorf("kernels: cuda: %s: argument %d = %d overflows a 32-bit int: %w", kernelNames[k], i, v, ErrShape))
			}
			a[i] = uint64(uint32(int32(v)))
		case int64:
			a[i] = uint64(v)
		case float64:
			a[i] = math.Float64bits(v)
		case dptr:
			a[i] = uint64(v)
		case uint64:
			a[i] = v
		default:
			panic(fmt.Sprintf("kernels: cuda: launch %s: argument %d has type %T", kernelNames[k], i, v))
		}
	}
	for d := range 3 {
		if grid[d] == 0 {
			return // empty launch
		}
	}
	check(drvLaunch(c.fn[k], grid, block, uint32(shmem), a))
}

// grid1 is a 1-D launch of n threads in blocks of bs.
func grid1(n int64, bs int) ([3]uint32, [3]uint32) {
	g := (n + int64(bs) - 1) / int64(bs)
	if g > math.MaxInt32 {
		panic(fmt.Errorf("kernels: cuda: launch of %d threads is too large: %w", n, ErrShape))
	}
	return [3]uint32{uint32(g), 1, 1}, [3]uint32{uint32(bs), 1, 1}
}

func dims(x, y, z int) [3]uint32 { return [3]uint32{uint32(x), uint32(y), uint32(z)} }

// seqs makes the device trajectory tables describe s.
func (c *CUDA) seqs(s Seqs) {
	N := s.Total()
	if N > math.MaxInt32 {
		panic(fmt.Errorf("kernels: cuda: %d samples exceed the 32-bit sample index of the kernels: %w", N, ErrShape))
	}
	same := len(c.seqOff) == len(s.Off)
	for i := 0; same && i < len(s.Off); i++ {
		same = c.seqOff[i] == s.Off[i]
	}
	if same && c.ts.p != 0 {
		return
	}
	ts, te := make([]int32, N), make([]int32, N)
	off := make([]int32, len(s.Off))
	for b := 0; b < s.Batches(); b++ {
		for t := s.Off[b]; t < s.Off[b+1]; t++ {
			ts[t], te[t] = int32(s.Off[b]), int32(s.Off[b+1])
		}
	}
	for i, v := range s.Off {
		off[i] = int32(v)
	}
	check(grow(&c.ts, 4*N))
	check(grow(&c.te, 4*N))
	check(grow(&c.off, 4*len(off)))
	upInts(c.ts.p, ts)
	upInts(c.te.p, te)
	upInts(c.off.p, off)
	c.seqOff = append(c.seqOff[:0], s.Off...)
}

// groups is the number of sample groups of a two-pass reduction over n
// samples: fixed by n alone, so the summation order is reproducible.
func groups(n int) int { return max(1, min(256, n/2048)) }

// reduceRows computes out[a*nb+c] (+)= Σ_r A[r*na+a]·B[r*nb+c] over rows
// (B == 0: nb = 1, factor 1) on the device.
func (c *CUDA) reduceRows(rows, na, nb int, A, B, out uint64, acc bool) {
	np := na * nb
	if np == 0 {
		return
	}
	G := groups(rows)
	part := c.buf("part", G*np)
	c.launch(kColprod, dims(np, G, 1), dims(256, 1, 1), 0, rows, na, nb, dptr(A), dptr(B), G, dptr(part))
	c.sumPartials(np, G, part, out, acc)
}

func (c *CUDA) sumPartials(np, G int, part, out uint64, acc bool) {
	gr, bl := grid1(int64(np), 128)
	c.launch(kSumPartials, gr, bl, 0, np, G, dptr(part), dptr(out), b2i(acc))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// xcorrTile is XT of nfir.cu: the samples per shared-memory tile of
// xcorr_partial.
const xcorrTile = 256

// xcorr computes out[j*mG+k] (+)= Σ_t a(t)an_j(t) b(t−k)bn_j(t−k) (an, bn
// may be 0) over the current Seqs.
func (c *CUDA) xcorr(N, mN, mG int, a, an, b, bn, out uint64, acc bool) {
	if mN*mG == 0 {
		return
	}
	G := groups(N)
	part := c.buf("xpart", G*mN*mG)
	bs := min(256, (mG+31)/32*32)
	c.launch(kXcorr, dims(G, mN, 1), dims(bs, 1, 1), 8*(3*xcorrTile+bs-1), N, mN, mG, dptr(c.ts.p), dptr(a), dptr(an), dptr(b), dptr(bn), G, dptr(part))
	c.sumPartials(mN*mG, G, part, out, acc)
}

// ConvForward implements Backend.ConvForward on the GPU.
func (c *CUDA) ConvForward(s Seqs, mN, mG int, u, n, g, z, y []float64) {
	N, done := convForwardArgs(s, mN, mG, u, n, g, z, y)
	if done {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, dn, dg := c.up("u", u, N), c.up("n", n, N*mN), c.up("g", g, mN*mG)
	dz, dy := c.buf("z", N*mN), c.buf("y", N)
	c.convFwd(N, mN, mG, du, dn, dg, dz, dy)
	down(z, dz, N*mN)
	down(y, dy, N)
}

// bankTile is the time tile (and tap chunk) of conv_fwd and conv_bwd_dn:
// one thread per sample of the tile; their shared memory holds a tap chunk
// and the tile's staged signal with its halo, 3·bankTile − 1 doubles.
const bankTile = 256

// bankGrid is the launch of conv_fwd / conv_bwd_dn: one block per (time
// tile, branch), flattened as tile·mN + j.
func bankGrid(N, mN int) (grid, block [3]uint32, shmem int) {
	tiles := (int64(N) + bankTile - 1) / bankTile
	gr, bl := grid1(tiles*int64(mN)*bankTile, bankTile)
	return gr, bl, 8 * (3*bankTile - 1)
}

func (c *CUDA) convFwd(N, mN, mG int, du, dn, dg, dz, dy uint64) {
	gr, bl, sh := bankGrid(N, mN)
	c.launch(kConvFwd, gr, bl, sh, N, mN, mG, dptr(c.ts.p), dptr(du), dptr(dn), dptr(dg), dptr(dz))
	gr, bl = grid1(int64(N), 128)
	c.launch(kConvOut, gr, bl, 0, N, mN, dptr(dn), dptr(dz), dptr(dy))
}

// ConvBackward implements Backend.ConvBackward on the GPU.
func (c *CUDA) ConvBackward(s Seqs, mN, mG int, u, n, g, z, dy, dn, dg []float64) {
	N, done := convBackwardArgs(s, mN, mG, u, n, g, z, dy, dn, dg)
	if done {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, dnn, dgg, dz, ddy := c.up("u", u, N), c.up("n", n, N*mN), c.up("g", g, mN*mG), c.up("z", z, N*mN), c.up("dy", dy, N)
	ddn := c.buf("dn", N*mN)
	c.convBwd(N, mN, mG, du, dnn, dgg, dz, ddy, ddn)
	down(dn, ddn, N*mN)
	if dg != nil {
		ddg := c.up("dg", dg, mN*mG)
		c.xcorr(N, mN, mG, ddy, dnn, du, dnn, ddg, true)
		down(dg, ddg, mN*mG)
	}
}

func (c *CUDA) convBwd(N, mN, mG int, du, dn, dg, dz, ddy, ddn uint64) {
	gr, bl, sh := bankGrid(N, mN)
	c.launch(kConvBwdDn, gr, bl, sh, N, mN, mG, dptr(c.te.p), dptr(du), dptr(dn), dptr(dg), dptr(dz), dptr(ddy), dptr(ddn))
}

// LinearForward implements Backend.LinearForward on the GPU.
func (c *CUDA) LinearForward(s Seqs, mL int, u, lin, y []float64) {
	N, done := linearForwardArgs(s, mL, u, lin, y)
	if done {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, dl := c.up("u", u, N), c.up("lin", lin, mL)
	dy := c.buf("y", N)
	check(drvHtoD(dy, unsafe.Pointer(&y[0]), 8*N))
	gr, bl := grid1(int64(N), 128)
	c.launch(kLinFwd, gr, bl, 0, N, mL, dptr(c.ts.p), dptr(du), dptr(dl), dptr(dy))
	down(y, dy, N)
}

// LinearBackward implements Backend.LinearBackward on the GPU.
func (c *CUDA) LinearBackward(s Seqs, mL int, u, dy, dlin []float64) {
	N, done := linearBackwardArgs(s, mL, u, dy, dlin)
	if done {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, ddy, dl := c.up("u", u, N), c.up("dy", dy, N), c.up("dlin", dlin, mL)
	c.xcorr(N, 1, mL, ddy, 0, du, 0, dl, true)
	down(dlin, dl, mL)
}

// clThreads is the block size of cl_fwd and cl_bwd (one trajectory per
// block): each step's tap sums are split over clThreads/mN threads per
// branch, the MLP's units over the block.
const clThreads = 128

// gtile is GT of nfir.cu (the Gram tile width).
const gtile = 16

// Gram implements Backend.Gram on the GPU (tiled ΦᵀΦ with Φ generated on
// the fly, never stored).
func (c *CUDA) Gram(s Seqs, mN, mG, mL int, u, n, y []float64, P, b []float64) float64 {
	N, nt := gramArgs(s, mN, mG, mL, u, n, y, P, b)
	if N == 0 || nt == 0 {
		clear(P[:nt*nt])
		clear(b[:nt])
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	du, dyv := c.up("u", u, N), c.up("y", y, N)
	dn := c.up("n", n, N*mN)
	tiles := (nt + gtile - 1) / gtile
	G := max(1, min(64, (1<<25)/(nt*nt), (N+gtile-1)/gtile))
	part := c.buf("gpart", G*nt*nt)
	c.launch(kGramPartial, dims(tiles, tiles, G), dims(gtile, gtile, 1), 0, N, mN, mG, mL, dptr(c.ts.p), dptr(du), dptr(dn), G, dptr(part))
	dP := c.buf("P", nt*nt)
	gr, bl := grid1(int64(nt)*int64(nt), 128)
	c.launch(kGramReduce, gr, bl, 0, nt, G, dptr(part), dptr(dP))
	db := c.buf("b", nt)
	c.xcorr(N, mN, mG, dyv, dn, du, dn, db, false)
	c.xcorr(N, 1, mL, dyv, 0, du, 0, db+uint64(8*mN*mG), false)
	dyy := c.buf("yy", 1)
	c.reduceRows(N, 1, 1, dyv, dyv, dyy, false)
	down(P, dP, nt*nt)
	down(b, db, nt)
	var yy [1]float64
	down(yy[:], dyy, 1)
	return yy[0]
}

// DenseTanhForward implements Backend.DenseTanhForward on the GPU.
func (c *CUDA) DenseTanhForward(rows, in, out int, x, w, b, y []float64) {
	const op = "DenseTanhForward"
	checkDims(op, rows, in, out)
	need(op, "x", len(x), rows*in)
	need(op, "w", len(w), out*in)
	need(op, "b", len(b), out)
	need(op, "y", len(y), rows*out)
	if rows == 0 || out == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dx, dw, db := c.up("x", x, rows*in), c.up("w", w, out*in), c.up("b", b, out)
	dy := c.buf("dense_y", rows*out)
	gr, bl := grid1(int64(rows)*int64(out), 128)
	c.launch(kDenseFwd, gr, bl, 0, rows, in, out, dptr(dx), dptr(dw), dptr(db), dptr(dy))
	down(y, dy, rows*out)
}

// DenseTanhBackward implements Backend.DenseTanhBackward on the GPU.
func (c *CUDA) DenseTanhBackward(rows, in, out int, x, w, y, dy, dx, dw, db []float64) {
	if denseBackwardArgs(rows, in, out, x, w, y, dy, dx, dw, db) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	dX, dW := c.up("x", x, rows*in), c.up("w", w, out*in)
	dY, dDY := c.up("dense_y", y, rows*out), c.up("dense_dy", dy, rows*out)
	pre := c.buf("dpre", rows*out)
	gr, bl := grid1(int64(rows)*int64(out), 128)
	c.launch(kDensePre, gr, bl, 0, int64(rows)*int64(out), dptr(dY), dptr(dDY), dptr(pre))
	if dx != nil && in > 0 {
		ddx := c.buf("dx", rows*in)
		gr, bl = grid1(int64(rows)*int64(in), 128)
		c.launch(kDenseDx, gr, bl, 0, rows, in, out, dptr(pre), dptr(dW), dptr(ddx))
		down(dx, ddx, rows*in)
	}
	ddw, ddb := c.up("dw", dw, out*in), c.up("db", db, out)
	c.reduceRows(rows, out, in, pre, dX, ddw, true)
	c.reduceRows(rows, out, 1, pre, 0, ddb, true)
	down(dw, ddw, out*in)
	down(db, ddb, out)
}

// devTape is the device half of a Tape recorded by ClosedLoopForward.
type devTape struct {
	owner  *CUDA
	N, mN  int
	sizes  []int
	act, z dbuf // act: layer l at act + aoff[l]·N·8, rows of sizes[l]; z: N×mN
	geo    dbuf // int32 sizes[L+1] then aoff[L+1]
}

func (t *devTape) aoff() []int {
	a := make([]int, len(t.sizes))
	for l := 1; l < len(t.sizes); l++ {
		a[l] = a[l-1] + t.sizes[l-1]
	}
	return a
}

// ClosedLoopForward implements Backend.ClosedLoopForward on the GPU: one
// thread block per trajectory, the whole time loop inside one launch. The
// tape stays on the device (tape.Dev).
func (c *CUDA) ClosedLoopForward(cl *ClosedLoop, s Seqs, theta, g, lin, u, y []float64, tape *Tape) {
	const op = "ClosedLoopForward"
	cl.checkCall(op, s, theta, g, lin, u)
	N := s.Total()
	need(op, "y", len(y), N)
	if tape == nil {
		panic(fmt.Errorf("kernels: %s: nil tape: %w", op, ErrShape))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	mN := cl.MN
	var sizes []int
	if mN > 0 {
		sizes = append(sizes, cl.Sizes...)
	}
	dt, _ := tape.Dev.(*devTape)
	if dt == nil || dt.owner != c {
		dt = &devTape{owner: c}
		tape.Dev = dt
	}
	dt.N, dt.mN, dt.sizes = N, mN, sizes
	width := 0
	for _, w := range sizes {
		width += w
	}
	check(grow(&dt.act, 8*N*width))
	check(grow(&dt.z, 8*N*mN))
	geo := make([]int32, 0, 2*len(sizes))
	for _, w := range sizes {
		geo = append(geo, int32(w))
	}
	for _, a := range dt.aoff() {
		geo = append(geo, int32(a))
	}
	check(grow(&dt.geo, 4*len(geo)))
	upInts(dt.geo.p, geo)
	L := max(0, len(sizes)-1)
	dth := c.up("theta", theta, cl.NumParams())
	dg, dl, du := c.up("g", g, mN*cl.MG), c.up("lin", lin, cl.ML), c.up("u", u, N)
	dy := c.buf("cl_y", N)
	c.launch(kClFwd, dims(s.Batches(), 1, 1), dims(clThreads, 1, 1), 8*max(clThreads, mN),
		dptr(c.off.p), mN, cl.MG, cl.ML, cl.R1, cl.R2, b2i(cl.Feedback), b2i(cl.HoldU), L,
		dptr(dt.geo.p), dptr(dt.geo.p+uint64(4*len(sizes))), dptr(dth), dptr(dg), dptr(dl), dptr(du),
		cl.UA, cl.UB, cl.QA, cl.QB, N, dptr(dt.act.p), dptr(dt.z.p), dptr(dy))
	down(y, dy, N)
	if c.HostTape {
		tape.Act = tape.Act[:0]
		for l, w := range sizes {
			a := make([]float64, N*w)
			down(a, dt.act.p+uint64(8*N*dt.aoff()[l]), N*w)
			tape.Act = append(tape.Act, a)
		}
		tape.Z = buf(&tape.Z, N*mN)
		down(tape.Z, dt.z.p, N*mN)
	}
}

// ClosedLoopBackward implements Backend.ClosedLoopBackward on the GPU: the
// BPTT adjoint runs backwards in time in one launch (one block per
// trajectory, per-block θ_N gradients summed afterwards in trajectory order);
// the tap gradients are then the same correlations as ConvBackward's with
// the complete output adjoint.
func (c *CUDA) ClosedLoopBackward(cl *ClosedLoop, s Seqs, theta, g, lin, u []float64, tape *Tape, dy, dtheta, dg, dlin []float64) {
	const op = "ClosedLoopBackward"
	cl.checkBackward(op, s, theta, g, lin, u, tape, dy, dtheta, dg, dlin)
	N := s.Total()
	mN, mG, mL := cl.MN, cl.MG, cl.ML
	np := cl.NumParams()
	if N == 0 {
		return
	}
	dt, _ := tape.Dev.(*devTape)
	if dt == nil || dt.owner != c || dt.N != N || dt.mN != mN {
		panic(fmt.Errorf("kernels: %s: the tape was not recorded by this CUDA backend's ClosedLoopForward for this batch: %w", op, ErrShape))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seqs(s)
	B := s.Batches()
	L := max(0, len(dt.sizes)-1)
	wmax := 0
	for _, w := range dt.sizes {
		wmax = max(wmax, w)
	}
	dth := c.up("theta", theta, np)
	dgg, du := c.up("g", g, mN*mG), c.up("u", u, N)
	ay := c.buf("ay", N)
	check(drvHtoD(ay, unsafe.Pointer(&dy[0]), 8*N))
	var part uint64
	wantTheta := dtheta != nil && mN > 0 && np > 0
	if wantTheta {
		part = c.buf("thpart", B*np)
	}
	if mN > 0 {
		c.launch(kClBwd, dims(B, 1, 1), dims(clThreads, 1, 1), 16*wmax+8*max(clThreads, mN),
			dptr(c.off.p), mN, mG, cl.R1, cl.R2, b2i(cl.Feedback), L,
			dptr(dt.geo.p), dptr(dt.geo.p+uint64(4*len(dt.sizes))), np, dptr(dth), dptr(dgg), dptr(du), cl.QA, N,
			dptr(dt.act.p), dptr(dt.z.p), dptr(ay), dptr(part))
	}
	if wantTheta {
		dd := c.up("dtheta", dtheta, np)
		c.sumPartials(np, B, part, dd, true)
		down(dtheta, dd, np)
	}
	if dg != nil && mN > 0 {
		nrow := dt.act.p + uint64(8*N*dt.aoff()[L])
		ddg := c.up("dg", dg, mN*mG)
		c.xcorr(N, mN, mG, ay, nrow, du, nrow, ddg, true)
		down(dg, ddg, mN*mG)
	}
	if dlin != nil && mL > 0 {
		dd := c.up("dlin", dlin, mL)
		c.xcorr(N, 1, mL, ay, 0, du, 0, dd, true)
		down(dlin, dd, mL)
	}
}
