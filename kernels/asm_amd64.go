//go:build !noasm && !nfircuda

package kernels

import "golang.org/x/sys/cpu"

// haveFMA reports AVX2 and FMA, which the assembly kernels of this package
// need (corr_amd64.s, tanh_amd64.s, tanhfast_amd64.s, dense_amd64.s,
// lift_amd64.s, peak_amd64.s); without them, or with the noasm build tag, the Go paths run.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func corr32FMA(dst, h, x *float64, blocks, m int)

//go:noescape
func denseFwd4(x, wT, b, y *float64, rows, in, out int)

//go:noescape
func denseBwdW4(d, x, dB, dWT *float64, rows, in, out int)

//go:noescape
func denseBwdX4(d, w, dx *float64, rows, in, out int)

//go:noescape
func fmaPeak(n int)

//go:noescape
func tanh4FMA(dst, x *float64, blocks int)

//go:noescape
func tanh4Fast(dst, x *float64, blocks int)

//go:noescape
func denseFwdT(x, w, b, y *float64, n, in, ld int)

//go:noescape
func dots4T(d, x0, x1, x2, x3 *float64, n int, out *[5]float64)

//go:noescape
func dtanhT(d, dy, y *float64, n int)

//go:noescape
func mulT(dst, a, b *float64, n int)

//go:noescape
func mulAddT(dst, a, b *float64, n int)

//go:noescape
func mul2AddT(dst, a, b, c, d *float64, n int)

//go:noescape
func corrT4(dst, h, xT *float64, blocks, m, S int)

//go:noescape
func interleave4(xT, x *float64, rows, S int)

// haveAVX512 reports AVX-512F, which tanh8Fast needs.
var haveAVX512 = haveFMA && cpu.X86.HasAVX512F

//go:noescape
func tanh8Fast(dst, x *float64, blocks int)
