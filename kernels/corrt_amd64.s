//go:build !noasm && !nfircuda

#include "textflag.h"

// func corrT4(dst, h, xT *float64, blocks, m, S int)
//
// corr on four interleaved segments (corrt.go): xT holds rows of four,
// xT[4r+l] = x[r+lS], 32-byte aligned. For b < blocks, the 32 outputs of
// rows j = 8b … 8b+7: dst[j+lS] = Σ_{i<m} h[i]·xT[4(j+i)+l], accumulated in
// tap order with one rounding per tap (VFMADD231PD) from 0, as corr32FMA.
// Every load of x is an aligned row, where corr32FMA's loads step by one
// value and three in eight cross a cache line, and it serves two taps (nine
// rows for sixteen FMAs instead of sixteen). The eight accumulators (one
// row each) are transposed at the end of the block into four runs of eight
// outputs, one per segment. m ≥ 1.
TEXT ·corrT4(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ xT+16(FP), R8
	MOVQ blocks+24(FP), CX
	MOVQ m+32(FP), DX
	MOVQ S+40(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), R13
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
	SHRQ $1, R12
	JEQ  tail

	// Two taps a pass: rows j+i … j+i+8 are each loaded once and serve
	// tap i for one accumulator and tap i+1 for the one before it, so every
	// accumulator still takes its taps in order.
pair:
	VBROADCASTSD (R11), Y8
	VBROADCASTSD 8(R11), Y9
	VMOVAPD (R10), Y10
	VFMADD231PD Y10, Y8, Y0
	VMOVAPD 32(R10), Y11
	VFMADD231PD Y11, Y8, Y1
	VFMADD231PD Y11, Y9, Y0
	VMOVAPD 64(R10), Y10
	VFMADD231PD Y10, Y8, Y2
	VFMADD231PD Y10, Y9, Y1
	VMOVAPD 96(R10), Y11
	VFMADD231PD Y11, Y8, Y3
	VFMADD231PD Y11, Y9, Y2
	VMOVAPD 128(R10), Y10
	VFMADD231PD Y10, Y8, Y4
	VFMADD231PD Y10, Y9, Y3
	VMOVAPD 160(R10), Y11
	VFMADD231PD Y11, Y8, Y5
	VFMADD231PD Y11, Y9, Y4
	VMOVAPD 192(R10), Y10
	VFMADD231PD Y10, Y8, Y6
	VFMADD231PD Y10, Y9, Y5
	VMOVAPD 224(R10), Y11
	VFMADD231PD Y11, Y8, Y7
	VFMADD231PD Y11, Y9, Y6
	VFMADD231PD 256(R10), Y9, Y7
	ADDQ $16, R11
	ADDQ $64, R10
	DECQ R12
	JNZ  pair

tail:
	// An odd last tap.
	TESTQ $1, DX
	JEQ  store
	VBROADCASTSD (R11), Y8
	VFMADD231PD (R10), Y8, Y0
	VFMADD231PD 32(R10), Y8, Y1
	VFMADD231PD 64(R10), Y8, Y2
	VFMADD231PD 96(R10), Y8, Y3
	VFMADD231PD 128(R10), Y8, Y4
	VFMADD231PD 160(R10), Y8, Y5
	VFMADD231PD 192(R10), Y8, Y6
	VFMADD231PD 224(R10), Y8, Y7

store:
	// Rows j…j+3 (Y0…Y3) to segments: segment l gets lane l of each.
	VUNPCKLPD Y1, Y0, Y8
	VUNPCKHPD Y1, Y0, Y9
	VUNPCKLPD Y3, Y2, Y10
	VUNPCKHPD Y3, Y2, Y11
	VPERM2F128 $0x20, Y10, Y8, Y0
	VPERM2F128 $0x20, Y11, Y9, Y1
	VPERM2F128 $0x31, Y10, Y8, Y2
	VPERM2F128 $0x31, Y11, Y9, Y3
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, (DI)(R9*1)
	VMOVUPD Y2, (DI)(R9*2)
	VMOVUPD Y3, (DI)(R13*1)

	// Rows j+4…j+7 (Y4…Y7).
	VUNPCKLPD Y5, Y4, Y8
	VUNPCKHPD Y5, Y4, Y9
	VUNPCKLPD Y7, Y6, Y10
	VUNPCKHPD Y7, Y6, Y11
	VPERM2F128 $0x20, Y10, Y8, Y4
	VPERM2F128 $0x20, Y11, Y9, Y5
	VPERM2F128 $0x31, Y10, Y8, Y6
	VPERM2F128 $0x31, Y11, Y9, Y7
	VMOVUPD Y4, 32(DI)
	VMOVUPD Y5, 32(DI)(R9*1)
	VMOVUPD Y6, 32(DI)(R9*2)
	VMOVUPD Y7, 32(DI)(R13*1)

	ADDQ $64, DI
	ADDQ $256, R8
	DECQ CX
	JNZ  block

done:
	VZEROUPPER
	RET

// func interleave4(xT, x *float64, rows, S int)
//
// xT[4r+l] = x[r+lS] for r < rows (a multiple of 4), l < 4: four rows per
// pass, each pair of them from two 128-bit halves per segment and one
// unpack. x must hold 3S + rows values; xT is 32-byte aligned.
TEXT ·interleave4(SB), NOSPLIT, $0-32
	MOVQ xT+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), CX
	MOVQ S+24(FP), R9
	SHLQ $3, R9
	LEAQ (R9)(R9*2), R13
	SHRQ $2, CX
	JEQ  idone

iloop:
	// A = [x0 x1 | x2S x2S+1], B = [xS xS+1 | x3S x3S+1] (offsets from r).
	VMOVUPD (SI), X0
	VINSERTF128 $1, (SI)(R9*2), Y0, Y0
	VMOVUPD (SI)(R9*1), X1
	VINSERTF128 $1, (SI)(R13*1), Y1, Y1
	VMOVUPD 16(SI), X2
	VINSERTF128 $1, 16(SI)(R9*2), Y2, Y2
	VMOVUPD 16(SI)(R9*1), X3
	VINSERTF128 $1, 16(SI)(R13*1), Y3, Y3
	VUNPCKLPD Y1, Y0, Y4
	VUNPCKHPD Y1, Y0, Y5
	VUNPCKLPD Y3, Y2, Y6
	VUNPCKHPD Y3, Y2, Y7
	VMOVAPD Y4, (DI)
	VMOVAPD Y5, 32(DI)
	VMOVAPD Y6, 64(DI)
	VMOVAPD Y7, 96(DI)
	ADDQ $32, SI
	ADDQ $128, DI
	DECQ CX
	JNZ  iloop

idone:
	VZEROUPPER
	RET
