//go:build !noasm

package chol

import "golang.org/x/sys/cpu"

var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func syrk4x8(c *float64, ldc int, ai, aj *float64, lda, k int)

//go:noescape
func syrk4x4(c *float64, ldc int, ai, aj *float64, lda, k int)
