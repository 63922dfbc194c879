//go:build noasm || !amd64

package chol

const haveFMA = false

func syrk4x8(c *float64, ldc int, ai, aj *float64, lda, k int) {
	panic("chol: no FMA kernel on this platform")
}

func syrk4x4(c *float64, ldc int, ai, aj *float64, lda, k int) {
	panic("chol: no FMA kernel on this platform")
}
