package kernels

import (
	"math"
	"unsafe"
)

// fastCorrT selects the interleaved path of corrT (a variable for the tests
// and benchmarks).
var fastCorrT = haveFMA

// corrTMin is the shortest output for which corrT interleaves: below it the
// rounding up to whole blocks of 32 costs more than the aligned loads save.
const corrTMin = 64

// corrTPad returns the length corrT needs of x for T outputs of an m-tap
// correlation: its values past T+m−1 must be finite (the callers pad with
// zeros); they meet only outputs past T, which are discarded.
func corrTPad(T, m int) int {
	if T < corrTMin {
		return T + m - 1
	}
	S, rows := corrTShape(T, m)
	return max(T+m-1, 3*S+rows)
}

// corrTShape returns corrT's segment length S (T/4 rounded up to whole
// blocks of eight rows) and the rows of the interleaved input (S+m−1 rounded
// up to four).
func corrTShape(T, m int) (S, rows int) {
	S = (T + 31) / 32 * 8
	rows = (S + m - 1 + 3) &^ 3
	return S, rows
}

// corrT is corr (the same bits: every output accumulated in tap order by
// FMAs from 0, as corrFMA) with x laid out in four interleaved segments
// first: output t = r + lS is lane l of row r, so every load of the tap loop
// is one aligned row of four values. corr32FMA's loads step by one value,
// three in eight of them cross a cache line, and at T = 250, m = 50 it runs
// at about 64 % of the FMA peak against 86 % with aligned loads
// (docs/BENCHMARKS.md, session 20). work is scratch; x must hold
// corrTPad(len(dst), len(h)) values.
func corrT(dst, h, x []float64, work *[]float64) {
	T, m := len(dst), len(h)
	if !fastCorrT || T < corrTMin || m == 0 {
		corr(dst, h, x[:T+m-1])
		return
	}
	S, rows := corrTShape(T, m)
	if len(x) < 3*S+rows {
		panic("kernels: corrT: x too short")
	}
	// 4 values of slack to align xT to 32 bytes.
	w := buf(work, 4*rows+4*S+4)
	off := int((32-uintptrOf(w)&31)&31) / 8
	xT, out := w[off:off+4*rows], w[off+4*rows:off+4*rows+4*S]
	interleave4(&xT[0], &x[0], rows, S)
	corrT4(&out[0], &h[0], &xT[0], S/8, m, S)
	copy(dst, out[:T])
}

// interleave4Go is interleave4 in Go.
func interleave4Go(xT, x []float64, rows, S int) {
	for r := range rows {
		for l := range 4 {
			xT[4*r+l] = x[r+l*S]
		}
	}
}

// corrT4Go is corrT4 in Go (math.FMA), bit for bit: out[r+lS] for r < S
// from the interleaved xT.
func corrT4Go(out, h, xT []float64, S int) {
	for r := range S {
		for l := range 4 {
			s := 0.0
			for i, hv := range h {
				s = math.FMA(hv, xT[4*(r+i)+l], s)
			}
			out[r+l*S] = s
		}
	}
}

func uintptrOf(x []float64) uintptr { return uintptr(unsafe.Pointer(&x[0])) }
