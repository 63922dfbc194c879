//go:build !noasm && !nfircuda

#include "textflag.h"

// func corr32FMA(dst, h, x *float64, blocks, m int)
//
// For b < blocks: dst[32b+t] = Σ_{i<m} h[i]·x[32b+t+i], t < 32, accumulated
// in tap order with one rounding per tap (VFMADD231PD), starting from 0.
// Eight YMM accumulators hide the FMA latency; the taps are broadcast one at
// a time. m ≥ 1.
TEXT ·corr32FMA(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ x+16(FP), R8
	MOVQ blocks+24(FP), CX
	MOVQ m+32(FP), DX
	TESTQ CX, CX
	JEQ  done

block:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ SI, R11
	MOVQ R8, R10
	MOVQ DX, R12

tap:
	VBROADCASTSD (R11), Y8
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD 32(R10), Y8, Y1
	VFMADD231PD 64(R10), Y8, Y2
	VFMADD231PD 96(R10), Y8, Y3
	VFMADD231PD 128(R10), Y8, Y4
	VFMADD231PD 160(R10), Y8, Y5
	VFMADD231PD 192(R10), Y8, Y6
	VFMADD231PD 224(R10), Y8, Y7
	ADDQ $8, R11
	ADDQ $8, R10
	DECQ R12
	JNZ  tap

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	ADDQ $256, DI
	ADDQ $256, R8
	DECQ CX
	JNZ  block

done:
	VZEROUPPER
	RET
