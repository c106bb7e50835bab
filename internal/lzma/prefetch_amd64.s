#include "textflag.h"

// func prefetch3(a, b *uint32, c *byte)
TEXT ·prefetch3(SB), NOSPLIT|NOFRAME, $0-24
	MOVQ a+0(FP), AX
	PREFETCHT0 (AX)
	MOVQ b+8(FP), AX
	PREFETCHT0 (AX)
	MOVQ c+16(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetch1(a *uint32)
TEXT ·prefetch1(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ a+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func prefetchN(p *uintptr, n int)
TEXT ·prefetchN(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE done
loop:
	MOVQ (AX), DX
	PREFETCHT0 (DX)
	ADDQ $8, AX
	DECQ CX
	JNZ loop
done:
	RET
