//go:build !noasm && !nfircuda

#include "textflag.h"

// The constants, each repeated in the four lanes of a YMM load. The exp and
// tanh constants are those of Go's math package (exp_amd64.s, tanh.go), so
// that tanh4FMA is math.Tanh bit for bit.
// absmask: |x| mask
DATA tanhc<>+0(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+8(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+16(SB)/8, $0x7fffffffffffffff
DATA tanhc<>+24(SB)/8, $0x7fffffffffffffff
// signmask: sign bit
DATA tanhc<>+32(SB)/8, $0x8000000000000000
DATA tanhc<>+40(SB)/8, $0x8000000000000000
DATA tanhc<>+48(SB)/8, $0x8000000000000000
DATA tanhc<>+56(SB)/8, $0x8000000000000000
// c0625: 0.625: the rational/exp switch
DATA tanhc<>+64(SB)/8, $0x3fe4000000000000
DATA tanhc<>+72(SB)/8, $0x3fe4000000000000
DATA tanhc<>+80(SB)/8, $0x3fe4000000000000
DATA tanhc<>+88(SB)/8, $0x3fe4000000000000
// csat: MAXLOG/2: tanh = ±1 above
DATA tanhc<>+96(SB)/8, $0x404601e678fc457b
DATA tanhc<>+104(SB)/8, $0x404601e678fc457b
DATA tanhc<>+112(SB)/8, $0x404601e678fc457b
DATA tanhc<>+120(SB)/8, $0x404601e678fc457b
// one: 1
DATA tanhc<>+128(SB)/8, $0x3ff0000000000000
DATA tanhc<>+136(SB)/8, $0x3ff0000000000000
DATA tanhc<>+144(SB)/8, $0x3ff0000000000000
DATA tanhc<>+152(SB)/8, $0x3ff0000000000000
// two: 2
DATA tanhc<>+160(SB)/8, $0x4000000000000000
DATA tanhc<>+168(SB)/8, $0x4000000000000000
DATA tanhc<>+176(SB)/8, $0x4000000000000000
DATA tanhc<>+184(SB)/8, $0x4000000000000000
// log2e: LOG2E
DATA tanhc<>+192(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+200(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+208(SB)/8, $0x3ff71547652b82fe
DATA tanhc<>+216(SB)/8, $0x3ff71547652b82fe
// ln2u: LN2U
DATA tanhc<>+224(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+232(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+240(SB)/8, $0x3fe62e42fefa3000
DATA tanhc<>+248(SB)/8, $0x3fe62e42fefa3000
// ln2l: LN2L
DATA tanhc<>+256(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+264(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+272(SB)/8, $0x3d53de6af278ece6
DATA tanhc<>+280(SB)/8, $0x3d53de6af278ece6
// sixteenth: 1/16
DATA tanhc<>+288(SB)/8, $0x3fb0000000000000
DATA tanhc<>+296(SB)/8, $0x3fb0000000000000
DATA tanhc<>+304(SB)/8, $0x3fb0000000000000
DATA tanhc<>+312(SB)/8, $0x3fb0000000000000
// e64: Taylor 1/8!
DATA tanhc<>+320(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+328(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+336(SB)/8, $0x3efa01a01a01a01a
DATA tanhc<>+344(SB)/8, $0x3efa01a01a01a01a
// e56: 1/7!
DATA tanhc<>+352(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+360(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+368(SB)/8, $0x3f2a01a01a01a01a
DATA tanhc<>+376(SB)/8, $0x3f2a01a01a01a01a
// e48: 1/6!
DATA tanhc<>+384(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+392(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+400(SB)/8, $0x3f56c16c16c16c17
DATA tanhc<>+408(SB)/8, $0x3f56c16c16c16c17
// e40: 1/5!
DATA tanhc<>+416(SB)/8, $0x3f81111111111111
DATA tanhc<>+424(SB)/8, $0x3f81111111111111
DATA tanhc<>+432(SB)/8, $0x3f81111111111111
DATA tanhc<>+440(SB)/8, $0x3f81111111111111
// e32: 1/4!
DATA tanhc<>+448(SB)/8, $0x3fa5555555555555
DATA tanhc<>+456(SB)/8, $0x3fa5555555555555
DATA tanhc<>+464(SB)/8, $0x3fa5555555555555
DATA tanhc<>+472(SB)/8, $0x3fa5555555555555
// e24: 1/3!
DATA tanhc<>+480(SB)/8, $0x3fc5555555555555
DATA tanhc<>+488(SB)/8, $0x3fc5555555555555
DATA tanhc<>+496(SB)/8, $0x3fc5555555555555
DATA tanhc<>+504(SB)/8, $0x3fc5555555555555
// half: 1/2
DATA tanhc<>+512(SB)/8, $0x3fe0000000000000
DATA tanhc<>+520(SB)/8, $0x3fe0000000000000
DATA tanhc<>+528(SB)/8, $0x3fe0000000000000
DATA tanhc<>+536(SB)/8, $0x3fe0000000000000
// p0: tanhP[0]
DATA tanhc<>+544(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+552(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+560(SB)/8, $0xbfeedc5baafd6f4b
DATA tanhc<>+568(SB)/8, $0xbfeedc5baafd6f4b
// p1: tanhP[1]
DATA tanhc<>+576(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+584(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+592(SB)/8, $0xc058d26a0e26682d
DATA tanhc<>+600(SB)/8, $0xc058d26a0e26682d
// p2: tanhP[2]
DATA tanhc<>+608(SB)/8, $0xc0993ac030580563
DATA tanhc<>+616(SB)/8, $0xc0993ac030580563
DATA tanhc<>+624(SB)/8, $0xc0993ac030580563
DATA tanhc<>+632(SB)/8, $0xc0993ac030580563
// q0: tanhQ[0]
DATA tanhc<>+640(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+648(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+656(SB)/8, $0x405c33f28a581b86
DATA tanhc<>+664(SB)/8, $0x405c33f28a581b86
// q1: tanhQ[1]
DATA tanhc<>+672(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+680(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+688(SB)/8, $0x40a176fa0e5535fa
DATA tanhc<>+696(SB)/8, $0x40a176fa0e5535fa
// q2: tanhQ[2]
DATA tanhc<>+704(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+712(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+720(SB)/8, $0x40b2ec102442040c
DATA tanhc<>+728(SB)/8, $0x40b2ec102442040c
// bias: exponent bias (int64)
DATA tanhc<>+736(SB)/8, $0x00000000000003ff
DATA tanhc<>+744(SB)/8, $0x00000000000003ff
DATA tanhc<>+752(SB)/8, $0x00000000000003ff
DATA tanhc<>+760(SB)/8, $0x00000000000003ff
GLOBL tanhc<>(SB), RODATA|NOPTR, $768

// func tanh4FMA(dst, x *float64, blocks int)
//
// dst[i] = math.Tanh(x[i]) for i < 4·blocks, four at a time: both branches of
// math.Tanh are evaluated in every lane and blended (|x| < 0.625: the
// rational function; 0.625 ≤ |x| ≤ MAXLOG/2: 1 − 2/(exp(2|x|)+1) with the
// sign of x, exp being the FMA path of math's archExp op for op; above:
// ±1; x = ±0: x). dst may equal x.
TEXT ·tanh4FMA(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ blocks+16(FP), CX
	TESTQ CX, CX
	JEQ  done

loop:
	VMOVUPD (SI), Y0
	VANDPD tanhc<>+0(SB), Y0, Y1

	// |x| < 0.625: x + x·s·P(s)/Q(s), s = x², in math.tanh's order.
	VMULPD Y0, Y0, Y2
	VMULPD tanhc<>+544(SB), Y2, Y3
	VADDPD tanhc<>+576(SB), Y3, Y3
	VMULPD Y2, Y3, Y3
	VADDPD tanhc<>+608(SB), Y3, Y3
	VADDPD tanhc<>+640(SB), Y2, Y4
	VMULPD Y2, Y4, Y4
	VADDPD tanhc<>+672(SB), Y4, Y4
	VMULPD Y2, Y4, Y4
	VADDPD tanhc<>+704(SB), Y4, Y4
	VMULPD Y2, Y0, Y5
	VMULPD Y3, Y5, Y5
	VDIVPD Y4, Y5, Y5
	VADDPD Y5, Y0, Y5

	// exp(2|x|) as archExp's FMA path: 2|x| = n·ln2 + r, r/16 by Taylor,
	// squared four times as (r+2)r, times 2^n.
	VADDPD Y1, Y1, Y6
	VMULPD tanhc<>+192(SB), Y6, Y7
	VCVTPD2DQY Y7, X8
	VCVTDQ2PD X8, Y7
	VMOVUPD tanhc<>+224(SB), Y9
	VFNMADD231PD Y9, Y7, Y6
	VMOVUPD tanhc<>+256(SB), Y9
	VFNMADD231PD Y9, Y7, Y6
	VMULPD tanhc<>+288(SB), Y6, Y6
	VMOVUPD tanhc<>+320(SB), Y7
	VFMADD213PD tanhc<>+352(SB), Y6, Y7
	VFMADD213PD tanhc<>+384(SB), Y6, Y7
	VFMADD213PD tanhc<>+416(SB), Y6, Y7
	VFMADD213PD tanhc<>+448(SB), Y6, Y7
	VFMADD213PD tanhc<>+480(SB), Y6, Y7
	VFMADD213PD tanhc<>+512(SB), Y6, Y7
	VFMADD213PD tanhc<>+128(SB), Y6, Y7
	VMULPD Y7, Y6, Y6
	VADDPD tanhc<>+160(SB), Y6, Y7
	VMULPD Y7, Y6, Y6
	VADDPD tanhc<>+160(SB), Y6, Y7
	VMULPD Y7, Y6, Y6
	VADDPD tanhc<>+160(SB), Y6, Y7
	VMULPD Y7, Y6, Y6
	VADDPD tanhc<>+160(SB), Y6, Y7
	VFMADD213PD tanhc<>+128(SB), Y7, Y6
	VPMOVSXDQ X8, Y9
	VPADDQ tanhc<>+736(SB), Y9, Y9
	VPSLLQ $52, Y9, Y9
	VMULPD Y9, Y6, Y6

	// 1 − 2/(e+1), with the sign of x.
	VADDPD tanhc<>+128(SB), Y6, Y6
	VMOVUPD tanhc<>+160(SB), Y7
	VDIVPD Y6, Y7, Y7
	VMOVUPD tanhc<>+128(SB), Y9
	VSUBPD Y7, Y9, Y9
	VANDPD tanhc<>+32(SB), Y0, Y10
	VXORPD Y10, Y9, Y9

	// Pick the branch per lane.
	VCMPPD $0x1D, tanhc<>+64(SB), Y1, Y11
	VBLENDVPD Y11, Y9, Y5, Y5
	VCMPPD $0x1E, tanhc<>+96(SB), Y1, Y11
	VMOVUPD tanhc<>+128(SB), Y12
	VORPD Y10, Y12, Y12
	VBLENDVPD Y11, Y12, Y5, Y5
	VXORPD Y13, Y13, Y13
	VCMPPD $0x00, Y13, Y0, Y11
	VBLENDVPD Y11, Y0, Y5, Y5

	VMOVUPD Y5, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
