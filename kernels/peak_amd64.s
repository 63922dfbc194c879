//go:build !noasm && !nfircuda

#include "textflag.h"

// func fmaPeak(n int)
//
// n rounds of 10 independent VFMADD231PD chains on YMM registers: 80 flops
// a round, no memory traffic. It measures the machine's vector FMA peak
// (BenchmarkPeakFMA), the yardstick for the kernels' achieved rates.
TEXT ·fmaPeak(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
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
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	TESTQ CX, CX
	JEQ  done

loop:
	VFMADD231PD Y10, Y11, Y0
	VFMADD231PD Y10, Y11, Y1
	VFMADD231PD Y10, Y11, Y2
	VFMADD231PD Y10, Y11, Y3
	VFMADD231PD Y10, Y11, Y4
	VFMADD231PD Y10, Y11, Y5
	VFMADD231PD Y10, Y11, Y6
	VFMADD231PD Y10, Y11, Y7
	VFMADD231PD Y10, Y11, Y8
	VFMADD231PD Y10, Y11, Y9
	DECQ CX
	JNZ  loop

done:
	VZEROUPPER
	RET
