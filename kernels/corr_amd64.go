//go:build !noasm

package kernels

import "golang.org/x/sys/cpu"

// haveFMA selects the AVX2/FMA correlation (corrFMA) over gonum's SSE2
// AXPYs (corrAxpy).
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
