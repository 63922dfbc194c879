//go:build noasm || !amd64

package kernels

func tanh4FMA(dst, x *float64, blocks int) { panic("kernels: no vector tanh on this platform") }
