//go:build !noasm

package kernels

//go:noescape
func tanh4FMA(dst, x *float64, blocks int)
