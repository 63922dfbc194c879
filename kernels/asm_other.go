//go:build noasm || !amd64 || nfircuda

package kernels

const haveFMA = false

func corr32FMA(dst, h, x *float64, blocks, m int) { panic("kernels: no FMA kernel on this platform") }

func denseFwd4(x, wT, b, y *float64, rows, in, out int) { panic("kernels: no vector dense kernel") }

func denseBwdW4(d, x, dB, dWT *float64, rows, in, out int) { panic("kernels: no vector dense kernel") }

func denseBwdX4(d, w, dx *float64, rows, in, out int) { panic("kernels: no vector dense kernel") }

func fmaPeak(n int) { panic("kernels: no vector FMA on this platform") }

func tanh4FMA(dst, x *float64, blocks int) { panic("kernels: no vector tanh on this platform") }

func tanh4Fast(dst, x *float64, blocks int) { panic("kernels: no vector tanh on this platform") }

func denseFwdT(x, w, b, y *float64, n, in, ld int) { panic("kernels: no vector dense kernel") }

func dots4T(d, x0, x1, x2, x3 *float64, n int, out *[5]float64) {
	panic("kernels: no vector dense kernel")
}

func dtanhT(d, dy, y *float64, n int) { panic("kernels: no vector dense kernel") }

func mulT(dst, a, b *float64, n int) { panic("kernels: no vector kernel") }

func mulAddT(dst, a, b *float64, n int) { panic("kernels: no vector kernel") }

func mul2AddT(dst, a, b, c, d *float64, n int) { panic("kernels: no vector kernel") }

func corrT4(dst, h, xT *float64, blocks, m, S int) { panic("kernels: no FMA kernel on this platform") }

func interleave4(xT, x *float64, rows, S int) { panic("kernels: no vector kernel") }

const haveAVX512 = false

func tanh8Fast(dst, x *float64, blocks int) { panic("kernels: no vector tanh on this platform") }
