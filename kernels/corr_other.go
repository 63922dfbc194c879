//go:build noasm || !amd64

package kernels

const haveFMA = false

func corr32FMA(dst, h, x *float64, blocks, m int) { panic("kernels: no FMA kernel on this platform") }
