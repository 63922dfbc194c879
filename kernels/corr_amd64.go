//go:build !noasm

package kernels

import "golang.org/x/sys/cpu"

// haveFMA selects the AVX2/FMA correlation (corrFMA) over gonum's SSE2
// AXPYs (corrAxpy).
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func corr32FMA(dst, h, x *float64, blocks, m int)
