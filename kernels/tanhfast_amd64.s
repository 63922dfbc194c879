//go:build !noasm && !nfircuda

#include "textflag.h"

// The constants of tanh4Fast (tanhfast.go lists them with their meaning),
// each repeated in the four lanes of a YMM load.
// absmask
DATA tanhf<>+0(SB)/8, $0x7fffffffffffffff
DATA tanhf<>+8(SB)/8, $0x7fffffffffffffff
DATA tanhf<>+16(SB)/8, $0x7fffffffffffffff
DATA tanhf<>+24(SB)/8, $0x7fffffffffffffff
// signmask
DATA tanhf<>+32(SB)/8, $0x8000000000000000
DATA tanhf<>+40(SB)/8, $0x8000000000000000
DATA tanhf<>+48(SB)/8, $0x8000000000000000
DATA tanhf<>+56(SB)/8, $0x8000000000000000
// twenty
DATA tanhf<>+64(SB)/8, $0x4034000000000000
DATA tanhf<>+72(SB)/8, $0x4034000000000000
DATA tanhf<>+80(SB)/8, $0x4034000000000000
DATA tanhf<>+88(SB)/8, $0x4034000000000000
// mtwo
DATA tanhf<>+96(SB)/8, $0xc000000000000000
DATA tanhf<>+104(SB)/8, $0xc000000000000000
DATA tanhf<>+112(SB)/8, $0xc000000000000000
DATA tanhf<>+120(SB)/8, $0xc000000000000000
// m2log2e = −2·log2e
DATA tanhf<>+128(SB)/8, $0xc0071547652b82fe
DATA tanhf<>+136(SB)/8, $0xc0071547652b82fe
DATA tanhf<>+144(SB)/8, $0xc0071547652b82fe
DATA tanhf<>+152(SB)/8, $0xc0071547652b82fe
// magic
DATA tanhf<>+160(SB)/8, $0x4338000000000000
DATA tanhf<>+168(SB)/8, $0x4338000000000000
DATA tanhf<>+176(SB)/8, $0x4338000000000000
DATA tanhf<>+184(SB)/8, $0x4338000000000000
// ln2hi
DATA tanhf<>+192(SB)/8, $0x3fe62e42fee00000
DATA tanhf<>+200(SB)/8, $0x3fe62e42fee00000
DATA tanhf<>+208(SB)/8, $0x3fe62e42fee00000
DATA tanhf<>+216(SB)/8, $0x3fe62e42fee00000
// ln2lo
DATA tanhf<>+224(SB)/8, $0x3dea39ef35793c76
DATA tanhf<>+232(SB)/8, $0x3dea39ef35793c76
DATA tanhf<>+240(SB)/8, $0x3dea39ef35793c76
DATA tanhf<>+248(SB)/8, $0x3dea39ef35793c76
// one
DATA tanhf<>+256(SB)/8, $0x3ff0000000000000
DATA tanhf<>+264(SB)/8, $0x3ff0000000000000
DATA tanhf<>+272(SB)/8, $0x3ff0000000000000
DATA tanhf<>+280(SB)/8, $0x3ff0000000000000
// bias
DATA tanhf<>+288(SB)/8, $0x00000000000003ff
DATA tanhf<>+296(SB)/8, $0x00000000000003ff
DATA tanhf<>+304(SB)/8, $0x00000000000003ff
DATA tanhf<>+312(SB)/8, $0x00000000000003ff
// c13
DATA tanhf<>+320(SB)/8, $0x3de6124613a86d09
DATA tanhf<>+328(SB)/8, $0x3de6124613a86d09
DATA tanhf<>+336(SB)/8, $0x3de6124613a86d09
DATA tanhf<>+344(SB)/8, $0x3de6124613a86d09
// c12
DATA tanhf<>+352(SB)/8, $0x3e21eed8eff8d898
DATA tanhf<>+360(SB)/8, $0x3e21eed8eff8d898
DATA tanhf<>+368(SB)/8, $0x3e21eed8eff8d898
DATA tanhf<>+376(SB)/8, $0x3e21eed8eff8d898
// c11
DATA tanhf<>+384(SB)/8, $0x3e5ae64567f544e4
DATA tanhf<>+392(SB)/8, $0x3e5ae64567f544e4
DATA tanhf<>+400(SB)/8, $0x3e5ae64567f544e4
DATA tanhf<>+408(SB)/8, $0x3e5ae64567f544e4
// c10
DATA tanhf<>+416(SB)/8, $0x3e927e4fb7789f5c
DATA tanhf<>+424(SB)/8, $0x3e927e4fb7789f5c
DATA tanhf<>+432(SB)/8, $0x3e927e4fb7789f5c
DATA tanhf<>+440(SB)/8, $0x3e927e4fb7789f5c
// c9
DATA tanhf<>+448(SB)/8, $0x3ec71de3a556c734
DATA tanhf<>+456(SB)/8, $0x3ec71de3a556c734
DATA tanhf<>+464(SB)/8, $0x3ec71de3a556c734
DATA tanhf<>+472(SB)/8, $0x3ec71de3a556c734
// c8
DATA tanhf<>+480(SB)/8, $0x3efa01a01a01a01a
DATA tanhf<>+488(SB)/8, $0x3efa01a01a01a01a
DATA tanhf<>+496(SB)/8, $0x3efa01a01a01a01a
DATA tanhf<>+504(SB)/8, $0x3efa01a01a01a01a
// c7
DATA tanhf<>+512(SB)/8, $0x3f2a01a01a01a01a
DATA tanhf<>+520(SB)/8, $0x3f2a01a01a01a01a
DATA tanhf<>+528(SB)/8, $0x3f2a01a01a01a01a
DATA tanhf<>+536(SB)/8, $0x3f2a01a01a01a01a
// c6
DATA tanhf<>+544(SB)/8, $0x3f56c16c16c16c17
DATA tanhf<>+552(SB)/8, $0x3f56c16c16c16c17
DATA tanhf<>+560(SB)/8, $0x3f56c16c16c16c17
DATA tanhf<>+568(SB)/8, $0x3f56c16c16c16c17
// c5
DATA tanhf<>+576(SB)/8, $0x3f81111111111111
DATA tanhf<>+584(SB)/8, $0x3f81111111111111
DATA tanhf<>+592(SB)/8, $0x3f81111111111111
DATA tanhf<>+600(SB)/8, $0x3f81111111111111
// c4
DATA tanhf<>+608(SB)/8, $0x3fa5555555555555
DATA tanhf<>+616(SB)/8, $0x3fa5555555555555
DATA tanhf<>+624(SB)/8, $0x3fa5555555555555
DATA tanhf<>+632(SB)/8, $0x3fa5555555555555
// c3
DATA tanhf<>+640(SB)/8, $0x3fc5555555555555
DATA tanhf<>+648(SB)/8, $0x3fc5555555555555
DATA tanhf<>+656(SB)/8, $0x3fc5555555555555
DATA tanhf<>+664(SB)/8, $0x3fc5555555555555
// c2
DATA tanhf<>+672(SB)/8, $0x3fe0000000000000
DATA tanhf<>+680(SB)/8, $0x3fe0000000000000
DATA tanhf<>+688(SB)/8, $0x3fe0000000000000
DATA tanhf<>+696(SB)/8, $0x3fe0000000000000
GLOBL tanhf<>(SB), RODATA|NOPTR, $704

// func tanh4Fast(dst, x *float64, blocks int)
//
// dst[i] = tanhFast(x[i]) for i < 4·blocks, four at a time and bit for bit
// tanhFast (tanhfast.go), which is the specification: with a = min(|x|, 20)
// and expm1(−2a) = 2^k(1+p) − 1, tanh = (1 − 2^k − 2^k·p)/(1 + 2^k + 2^k·p)
// with the sign of x. One branch and one division for every lane.
// dst may equal x.
TEXT ·tanh4Fast(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JEQ  done
	VMOVUPD tanhf<>+64(SB), Y15
	VMOVUPD tanhf<>+256(SB), Y14
	VMOVUPD tanhf<>+160(SB), Y13

loop:
	VMOVUPD (SI), Y0
	VANDPD tanhf<>+0(SB), Y0, Y1
	// a = min(20, |x|); a NaN |x| is kept (the second source).
	VMINPD Y1, Y15, Y1
	// k = round(a·(−2·log2e)) by the 1.5·2^52 trick: its low bits hold k;
	// −2a alongside.
	VMULPD tanhf<>+128(SB), Y1, Y3
	VMULPD tanhf<>+96(SB), Y1, Y2
	VADDPD Y13, Y3, Y3
	VSUBPD Y13, Y3, Y4
	// r = −2a − k·ln2 (two parts).
	VFNMADD231PD tanhf<>+192(SB), Y4, Y2
	VFNMADD231PD tanhf<>+224(SB), Y4, Y2
	// p = expm1(r) = r + r²·q, q = c2 + c3·r + … + c13·r^11 by Estrin:
	// e_j = c(2j+2) + c(2j+3)·r, f = e + e'·r², q = f0 + f1·r⁴ + f2·r⁸.
	VMULPD Y2, Y2, Y5
	VMOVUPD tanhf<>+640(SB), Y6
	VFMADD213PD tanhf<>+672(SB), Y2, Y6
	VMOVUPD tanhf<>+576(SB), Y7
	VFMADD213PD tanhf<>+608(SB), Y2, Y7
	VMOVUPD tanhf<>+512(SB), Y8
	VFMADD213PD tanhf<>+544(SB), Y2, Y8
	VMOVUPD tanhf<>+448(SB), Y9
	VFMADD213PD tanhf<>+480(SB), Y2, Y9
	VMOVUPD tanhf<>+384(SB), Y10
	VFMADD213PD tanhf<>+416(SB), Y2, Y10
	VMOVUPD tanhf<>+320(SB), Y11
	VFMADD213PD tanhf<>+352(SB), Y2, Y11
	VMULPD Y5, Y5, Y1
	VMULPD Y1, Y1, Y4
	VFMADD231PD Y7, Y5, Y6
	VFMADD231PD Y9, Y5, Y8
	VFMADD231PD Y11, Y5, Y10
	VFMADD231PD Y8, Y1, Y6
	VFMADD231PD Y10, Y4, Y6
	VFMADD213PD Y2, Y5, Y6
	// 2^k from k's bits.
	VPADDQ tanhf<>+288(SB), Y3, Y3
	VPSLLQ $52, Y3, Y3
	// (1 − 2^k − 2^k·p)/(1 + 2^k + 2^k·p), then the sign of x.
	VSUBPD Y3, Y14, Y7
	VADDPD Y14, Y3, Y8
	VFNMADD231PD Y6, Y3, Y7
	VFMADD231PD Y6, Y3, Y8
	VDIVPD Y8, Y7, Y7
	VANDPD tanhf<>+32(SB), Y0, Y9
	VORPD Y9, Y7, Y7
	VMOVUPD Y7, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET

// func tanh8Fast(dst, x *float64, blocks int)
//
// tanh4Fast on eight lanes (AVX-512F): dst[i] = tanhFast(x[i]) for
// i < 8·blocks, bit for bit, the same operations in the same order. Zen 4
// runs a 512-bit operation as one op on its 256-bit units, so twice the
// lanes of the latency-bound chain fit the scheduler at once.
TEXT ·tanh8Fast(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JEQ  done8
	VBROADCASTSD tanhf<>+64(SB), Z15
	VBROADCASTSD tanhf<>+256(SB), Z14
	VBROADCASTSD tanhf<>+160(SB), Z13
	VPBROADCASTQ tanhf<>+0(SB), Z12
	VPBROADCASTQ tanhf<>+32(SB), Z16

loop8:
	VMOVUPD (SI), Z0
	VPANDQ Z12, Z0, Z1
	VMINPD Z1, Z15, Z1
	VMULPD.BCST tanhf<>+128(SB), Z1, Z3
	VMULPD.BCST tanhf<>+96(SB), Z1, Z2
	VADDPD Z13, Z3, Z3
	VSUBPD Z13, Z3, Z4
	VFNMADD231PD.BCST tanhf<>+192(SB), Z4, Z2
	VFNMADD231PD.BCST tanhf<>+224(SB), Z4, Z2
	VMULPD Z2, Z2, Z5
	VBROADCASTSD tanhf<>+640(SB), Z6
	VFMADD213PD.BCST tanhf<>+672(SB), Z2, Z6
	VBROADCASTSD tanhf<>+576(SB), Z7
	VFMADD213PD.BCST tanhf<>+608(SB), Z2, Z7
	VBROADCASTSD tanhf<>+512(SB), Z8
	VFMADD213PD.BCST tanhf<>+544(SB), Z2, Z8
	VBROADCASTSD tanhf<>+448(SB), Z9
	VFMADD213PD.BCST tanhf<>+480(SB), Z2, Z9
	VBROADCASTSD tanhf<>+384(SB), Z10
	VFMADD213PD.BCST tanhf<>+416(SB), Z2, Z10
	VBROADCASTSD tanhf<>+320(SB), Z11
	VFMADD213PD.BCST tanhf<>+352(SB), Z2, Z11
	VMULPD Z5, Z5, Z1
	VMULPD Z1, Z1, Z4
	VFMADD231PD Z7, Z5, Z6
	VFMADD231PD Z9, Z5, Z8
	VFMADD231PD Z11, Z5, Z10
	VFMADD231PD Z8, Z1, Z6
	VFMADD231PD Z10, Z4, Z6
	VFMADD213PD Z2, Z5, Z6
	VPADDQ.BCST tanhf<>+288(SB), Z3, Z3
	VPSLLQ $52, Z3, Z3
	VSUBPD Z3, Z14, Z7
	VADDPD Z14, Z3, Z8
	VFNMADD231PD Z6, Z3, Z7
	VFMADD231PD Z6, Z3, Z8
	VDIVPD Z8, Z7, Z7
	VPANDQ Z16, Z0, Z9
	VPORQ Z9, Z7, Z7
	VMOVUPD Z7, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNZ  loop8

done8:
	VZEROUPPER
	RET
