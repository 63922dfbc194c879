//go:build !noasm && !nfircuda

#include "textflag.h"

// The dense kernels below work on four adjacent outputs (or inputs) of a
// small layer at once, one YMM lane each, with a separate multiply and add
// per term (no FMA): every lane then computes exactly the sum of the scalar
// loops, in the same order, so the results are those loops' bit for bit.

// func denseFwd4(x, wT, b, y *float64, rows, in, out int)
//
// For r < rows: y[r·out + 0..3] = b[0..3] + Σ_{i<in} x[r·in+i]·wT[i·out + 0..3]
// (terms added in order of i). in ≥ 1.
TEXT ·denseFwd4(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ wT+8(FP), R8
	MOVQ b+16(FP), R9
	MOVQ y+24(FP), DI
	MOVQ rows+32(FP), CX
	MOVQ in+40(FP), DX
	MOVQ out+48(FP), R10
	SHLQ $3, R10 // out stride in bytes
	VMOVUPD (R9), Y3
	TESTQ CX, CX
	JEQ  fdone

frow:
	VMOVAPD Y3, Y0
	MOVQ R8, R11 // wT row i
	MOVQ DX, R12
	MOVQ SI, R13

fin:
	VBROADCASTSD (R13), Y1
	VMULPD (R11), Y1, Y2
	VADDPD Y2, Y0, Y0
	ADDQ $8, R13
	ADDQ R10, R11
	DECQ R12
	JNZ  fin

	VMOVUPD Y0, (DI)
	LEAQ (SI)(DX*8), SI
	ADDQ R10, DI
	DECQ CX
	JNZ  frow

fdone:
	VZEROUPPER
	RET

// func denseBwdW4(d, x, dB, dWT *float64, rows, in, out int)
//
// For r < rows, in order: dB[0..3] += d[r·out + 0..3] and, for i < in,
// dWT[i·out + 0..3] += d[r·out + 0..3]·x[r·in+i]. dB is kept in a register;
// dWT is updated in memory. in ≥ 1.
TEXT ·denseBwdW4(SB), NOSPLIT, $0-56
	MOVQ d+0(FP), R9
	MOVQ x+8(FP), SI
	MOVQ dB+16(FP), R8
	MOVQ dWT+24(FP), DI
	MOVQ rows+32(FP), CX
	MOVQ in+40(FP), DX
	MOVQ out+48(FP), R10
	SHLQ $3, R10
	VMOVUPD (R8), Y3
	TESTQ CX, CX
	JEQ  wdone

wrow:
	VMOVUPD (R9), Y0
	VADDPD Y0, Y3, Y3
	MOVQ DI, R11
	MOVQ DX, R12
	MOVQ SI, R13

win:
	VBROADCASTSD (R13), Y1
	VMULPD Y1, Y0, Y2
	VADDPD (R11), Y2, Y2
	VMOVUPD Y2, (R11)
	ADDQ $8, R13
	ADDQ R10, R11
	DECQ R12
	JNZ  win

	LEAQ (SI)(DX*8), SI
	ADDQ R10, R9
	DECQ CX
	JNZ  wrow

	VMOVUPD Y3, (R8)

wdone:
	VZEROUPPER
	RET

// func denseBwdX4(d, w, dx *float64, rows, in, out int)
//
// For r < rows: dx[r·in + 0..3] = Σ_{o<out} d[r·out+o]·w[o·in + 0..3]
// (terms added in order of o, from 0). out ≥ 1.
TEXT ·denseBwdX4(SB), NOSPLIT, $0-48
	MOVQ d+0(FP), SI
	MOVQ w+8(FP), R8
	MOVQ dx+16(FP), DI
	MOVQ rows+24(FP), CX
	MOVQ in+32(FP), R10
	SHLQ $3, R10 // in stride in bytes
	MOVQ out+40(FP), DX
	TESTQ CX, CX
	JEQ  xdone

xrow:
	VXORPD Y0, Y0, Y0
	MOVQ R8, R11
	MOVQ DX, R12
	MOVQ SI, R13

xout:
	VBROADCASTSD (R13), Y1
	VMULPD (R11), Y1, Y2
	VADDPD Y2, Y0, Y0
	ADDQ $8, R13
	ADDQ R10, R11
	DECQ R12
	JNZ  xout

	VMOVUPD Y0, (DI)
	LEAQ (SI)(DX*8), SI
	ADDQ R10, DI
	DECQ CX
	JNZ  xrow

xdone:
	VZEROUPPER
	RET
