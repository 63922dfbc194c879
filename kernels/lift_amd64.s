//go:build !noasm && !nfircuda

#include "textflag.h"

// The kernels of the feature-major lifting network (lift.go). Each has a Go
// twin there that gives the same bits: denseFwdT keeps a separate multiply
// and add per term, in the twin's order; dots4T fixes its lanes and their
// reduction tree, which liftDotsGo writes out.

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

// func dots4T(d, x0, x1, x2, x3 *float64, n int, out *[5]float64)
//
// out[i] = Σ_{t<n} d[t]·x_i[t] for i < 4 and out[4] = Σ_{t<n} d[t], n a
// multiple of 8: each sum in 8 lanes (t mod 8, two registers) by FMA (adds
// for out[4]) from 0, reduced as liftDotsGo does. d is loaded once for the
// five sums.
TEXT ·dots4T(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), SI
	MOVQ x0+8(FP), R8
	MOVQ x1+16(FP), R9
	MOVQ x2+24(FP), R10
	MOVQ x3+32(FP), R11
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	XORQ AX, AX
	SHRQ $3, CX
	JEQ  dred

dloop:
	VMOVUPD (SI)(AX*1), Y10
	VMOVUPD 32(SI)(AX*1), Y11
	VFMADD231PD (R8)(AX*1), Y10, Y0
	VFMADD231PD 32(R8)(AX*1), Y11, Y1
	VFMADD231PD (R9)(AX*1), Y10, Y2
	VFMADD231PD 32(R9)(AX*1), Y11, Y3
	VFMADD231PD (R10)(AX*1), Y10, Y4
	VFMADD231PD 32(R10)(AX*1), Y11, Y5
	VFMADD231PD (R11)(AX*1), Y10, Y6
	VFMADD231PD 32(R11)(AX*1), Y11, Y7
	VADDPD Y10, Y8, Y8
	VADDPD Y11, Y9, Y9
	ADDQ $64, AX
	DECQ CX
	JNZ  dloop

dred:
	// Lane l + lane l+4, then (0 + 2) + (1 + 3).
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y5, Y4, Y4
	VADDPD Y7, Y6, Y6
	VADDPD Y9, Y8, Y8
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VUNPCKHPD X0, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, (DI)
	VEXTRACTF128 $1, Y2, X3
	VADDPD X3, X2, X2
	VUNPCKHPD X2, X2, X3
	VADDSD X3, X2, X2
	VMOVSD X2, 8(DI)
	VEXTRACTF128 $1, Y4, X5
	VADDPD X5, X4, X4
	VUNPCKHPD X4, X4, X5
	VADDSD X5, X4, X4
	VMOVSD X4, 16(DI)
	VEXTRACTF128 $1, Y6, X7
	VADDPD X7, X6, X6
	VUNPCKHPD X6, X6, X7
	VADDSD X7, X6, X6
	VMOVSD X6, 24(DI)
	VEXTRACTF128 $1, Y8, X9
	VADDPD X9, X8, X8
	VUNPCKHPD X8, X8, X9
	VADDSD X9, X8, X8
	VMOVSD X8, 32(DI)
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
