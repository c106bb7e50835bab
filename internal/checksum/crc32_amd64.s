#include "textflag.h"

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func FoldVPCLMUL(r uint64, p []byte, k *FoldKeys) (lo, hi uint64)
TEXT ·FoldVPCLMUL(SB), NOSPLIT, $0-56
	MOVQ r+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX
	MOVQ k+32(FP), DX

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVQ     AX, X4
	VPXORQ    Z4, Z0, Z0
	ADDQ      $256, SI
	SUBQ      $256, CX

	VBROADCASTI32X4 0(DX), Z16

loop256:
	CMPQ       CX, $256
	JB         fold
	VPCLMULQDQ $0x00, Z16, Z0, Z4
	VPCLMULQDQ $0x11, Z16, Z0, Z0
	VPCLMULQDQ $0x00, Z16, Z1, Z5
	VPCLMULQDQ $0x11, Z16, Z1, Z1
	VPCLMULQDQ $0x00, Z16, Z2, Z6
	VPCLMULQDQ $0x11, Z16, Z2, Z2
	VPCLMULQDQ $0x00, Z16, Z3, Z7
	VPCLMULQDQ $0x11, Z16, Z3, Z3
	VPTERNLOGQ $0x96, 0(SI), Z4, Z0
	VPTERNLOGQ $0x96, 64(SI), Z5, Z1
	VPTERNLOGQ $0x96, 128(SI), Z6, Z2
	VPTERNLOGQ $0x96, 192(SI), Z7, Z3
	ADDQ       $256, SI
	SUBQ       $256, CX
	JMP        loop256

fold:
	// Each register folded by 512 bits into the next.
	VBROADCASTI32X4 16(DX), Z16
	VPCLMULQDQ      $0x00, Z16, Z0, Z4
	VPCLMULQDQ      $0x11, Z16, Z0, Z0
	VPTERNLOGQ      $0x96, Z4, Z0, Z1
	VPCLMULQDQ      $0x00, Z16, Z1, Z4
	VPCLMULQDQ      $0x11, Z16, Z1, Z1
	VPTERNLOGQ      $0x96, Z4, Z1, Z2
	VPCLMULQDQ      $0x00, Z16, Z2, Z4
	VPCLMULQDQ      $0x11, Z16, Z2, Z2
	VPTERNLOGQ      $0x96, Z4, Z2, Z3

loop64:
	CMPQ       CX, $64
	JB         lanes
	VPCLMULQDQ $0x00, Z16, Z3, Z4
	VPCLMULQDQ $0x11, Z16, Z3, Z3
	VPTERNLOGQ $0x96, 0(SI), Z4, Z3
	ADDQ       $64, SI
	SUBQ       $64, CX
	JMP        loop64

lanes:
	// The four lanes folded into one by 128 bits.
	VMOVDQU       X3, X0
	VEXTRACTI32X4 $1, Z3, X1
	VEXTRACTI32X4 $2, Z3, X2
	VEXTRACTI32X4 $3, Z3, X3
	VZEROUPPER
	MOVOU         32(DX), X4

	MOVOA     X0, X5
	PCLMULQDQ $0x00, X4, X0
	PCLMULQDQ $0x11, X4, X5
	PXOR      X5, X0
	PXOR      X1, X0

	MOVOA     X0, X5
	PCLMULQDQ $0x00, X4, X0
	PCLMULQDQ $0x11, X4, X5
	PXOR      X5, X0
	PXOR      X2, X0

	MOVOA     X0, X5
	PCLMULQDQ $0x00, X4, X0
	PCLMULQDQ $0x11, X4, X5
	PXOR      X5, X0
	PXOR      X3, X0

	MOVQ   X0, AX
	PEXTRQ $1, X0, BX
	MOVQ   AX, lo+40(FP)
	MOVQ   BX, hi+48(FP)
	RET
