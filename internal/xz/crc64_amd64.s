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

// func crc64FoldCLMUL(r uint64, p []byte) (lo, hi uint64)
//
// Folds p (len(p) a multiple of 64, at least 64) into 128 bits congruent
// to it modulo the CRC-64 polynomial, with the register r XORed into its
// first eight bytes; see crc64_amd64.go.
TEXT ·crc64FoldCLMUL(SB), NOSPLIT, $0-48
	MOVQ r+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	MOVOU 0(SI), X0
	MOVOU 16(SI), X1
	MOVOU 32(SI), X2
	MOVOU 48(SI), X3
	MOVQ  AX, X4
	PXOR  X4, X0
	ADDQ  $64, SI
	SUBQ  $64, CX

	// X4 = the constants for folding by 512 bits: x^575 for the low
	// lane, x^511 for the high lane (mod P, bit-reflected).
	MOVQ   $0x6ae3efbb9dd441f3, AX
	MOVQ   AX, X4
	MOVQ   $0x081f6054a7842df4, AX
	PINSRQ $1, AX, X4

loop:
	CMPQ CX, $64
	JB   reduce
	MOVOA     X0, X5
	MOVOA     X1, X6
	MOVOA     X2, X7
	MOVOA     X3, X8
	PCLMULQDQ $0x00, X4, X0
	PCLMULQDQ $0x11, X4, X5
	PCLMULQDQ $0x00, X4, X1
	PCLMULQDQ $0x11, X4, X6
	PCLMULQDQ $0x00, X4, X2
	PCLMULQDQ $0x11, X4, X7
	PCLMULQDQ $0x00, X4, X3
	PCLMULQDQ $0x11, X4, X8
	MOVOU     0(SI), X9
	MOVOU     16(SI), X10
	MOVOU     32(SI), X11
	MOVOU     48(SI), X12
	PXOR      X5, X0
	PXOR      X6, X1
	PXOR      X7, X2
	PXOR      X8, X3
	PXOR      X9, X0
	PXOR      X10, X1
	PXOR      X11, X2
	PXOR      X12, X3
	ADDQ      $64, SI
	SUBQ      $64, CX
	JMP       loop

reduce:
	// Fold the four lanes into one, 128 bits at a time: x^191 for the
	// low lane, x^127 for the high lane.
	MOVQ   $0xe05dd497ca393ae4, AX
	MOVQ   AX, X4
	MOVQ   $0xdabe95afc7875f40, AX
	PINSRQ $1, AX, X4

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
	MOVQ   AX, lo+32(FP)
	MOVQ   BX, hi+40(FP)
	RET
