//go:build !noasm && !nfircuda

#include "textflag.h"

// The kernels of the feature-major lifting network (lift.go). Each has a Go
// twin there that gives the same bits: denseFwdT keeps a separate multiply
// and add per term, in the twin's order; dotT fixes its lanes and their
// reduction tree, which liftDotGo writes out.

// func denseFwdT(x, w, b, y *float64, n, in, ld int)
//
// For t < n (n a multiple of 4): y[t] = b[0] + w[0]·x[t] + w[1]·x[ld+t] + …
// + w[in−1]·x[(in−1)·ld+t], added in that order. in ≥ 1.
TEXT ·denseFwdT(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ w+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ y+24(FP), DI
	MOVQ n+32(FP), CX
	MOVQ in+40(FP), DX
	MOVQ ld+48(FP), R10
	SHLQ $3, R10
	VBROADCASTSD (R9), Y15
	CMPQ CX, $16
	JLT  f4

f16:
	VMOVAPD Y15, Y0
	VMOVAPD Y15, Y1
	VMOVAPD Y15, Y2
	VMOVAPD Y15, Y3
	MOVQ R8, R11
	MOVQ SI, R13
	MOVQ DX, R12

f16in:
	VBROADCASTSD (R11), Y4
	VMULPD (R13), Y4, Y5
	VMULPD 32(R13), Y4, Y6
	VMULPD 64(R13), Y4, Y7
	VMULPD 96(R13), Y4, Y8
	VADDPD Y5, Y0, Y0
	VADDPD Y6, Y1, Y1
	VADDPD Y7, Y2, Y2
	VADDPD Y8, Y3, Y3
	ADDQ $8, R11
	ADDQ R10, R13
	DECQ R12
	JNZ  f16in

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ $128, SI
	ADDQ $128, DI
	SUBQ $16, CX
	CMPQ CX, $16
	JGE  f16

f4:
	CMPQ CX, $4
	JLT  fdone
	VMOVAPD Y15, Y0
	MOVQ R8, R11
	MOVQ SI, R13
	MOVQ DX, R12

f4in:
	VBROADCASTSD (R11), Y4
	VMULPD (R13), Y4, Y5
	VADDPD Y5, Y0, Y0
	ADDQ $8, R11
	ADDQ R10, R13
	DECQ R12
	JNZ  f4in

	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $4, CX
	JMP  f4

fdone:
	VZEROUPPER
	RET

// func dotT(a, b *float64, n int) float64
//
// Σ_{t<n} a[t]·b[t] for n a multiple of 16: lane t mod 16 accumulates by FMA
// from 0, the 16 lanes are reduced as liftDotGo does.
TEXT ·dotT(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	SHRQ $4, CX
	JEQ  dred

dloop:
	VMOVUPD (SI), Y4
	VMOVUPD 32(SI), Y5
	VMOVUPD 64(SI), Y6
	VMOVUPD 96(SI), Y7
	VFMADD231PD (DI), Y4, Y0
	VFMADD231PD 32(DI), Y5, Y1
	VFMADD231PD 64(DI), Y6, Y2
	VFMADD231PD 96(DI), Y7, Y3
	ADDQ $128, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  dloop

dred:
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, ret+24(FP)
	VZEROUPPER
	RET

// func dtanhT(d, dy, y *float64, n int)
//
// d[t] = dy[t]·(1 − y[t]·y[t]) for t < n (n a multiple of 4), each product
// and difference rounded as in Go.
TEXT ·dtanhT(SB), NOSPLIT, $0-32
	MOVQ d+0(FP), DI
	MOVQ dy+8(FP), SI
	MOVQ y+16(FP), R8
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JEQ  tdone
	MOVQ $0x3ff0000000000000, AX
	MOVQ AX, X15
	VBROADCASTSD X15, Y15

tloop:
	VMOVUPD (R8), Y0
	VMULPD Y0, Y0, Y0
	VSUBPD Y0, Y15, Y0
	VMULPD (SI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  tloop

tdone:
	VZEROUPPER
	RET

// func mulT(dst, a, b *float64, n int)
//
// dst[t] = a[t]·b[t] for t < n (n a multiple of 4).
TEXT ·mulT(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JEQ  mdone

mloop:
	VMOVUPD (SI), Y0
	VMULPD (R8), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  mloop

mdone:
	VZEROUPPER
	RET

// func mulAddT(dst, a, b *float64, n int)
//
// dst[t] += a[t]·b[t] for t < n (n a multiple of 4), the product rounded
// before the sum.
TEXT ·mulAddT(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ n+24(FP), CX
	SHRQ $2, CX
	JEQ  madone

maloop:
	VMOVUPD (SI), Y0
	VMULPD (R8), Y0, Y0
	VADDPD (DI), Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JNZ  maloop

madone:
	VZEROUPPER
	RET

// func mul2AddT(dst, a, b, c, d *float64, n int)
//
// dst[t] = a[t]·b[t] + c[t]·d[t] for t < n (n a multiple of 4), both products
// rounded before the sum.
TEXT ·mul2AddT(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), R8
	MOVQ c+24(FP), R9
	MOVQ d+32(FP), R10
	MOVQ n+40(FP), CX
	SHRQ $2, CX
	JEQ  m2done

m2loop:
	VMOVUPD (SI), Y0
	VMULPD (R8), Y0, Y0
	VMOVUPD (R9), Y1
	VMULPD (R10), Y1, Y1
	VADDPD Y1, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	ADDQ $32, R10
	DECQ CX
	JNZ  m2loop

m2done:
	VZEROUPPER
	RET
