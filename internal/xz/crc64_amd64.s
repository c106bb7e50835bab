#include "textflag.h"

// REDUCE folds the four lanes X0..X3 into one, 128 bits at a time: x^191
// for the low lane, x^127 for the high lane, and stores it as lo and hi.
#define REDUCE \
	MOVQ   $0xe05dd497ca393ae4, AX; \
	MOVQ   AX, X4; \
	MOVQ   $0xdabe95afc7875f40, AX; \
	PINSRQ $1, AX, X4; \
	MOVOA     X0, X5; \
	PCLMULQDQ $0x00, X4, X0; \
	PCLMULQDQ $0x11, X4, X5; \
	PXOR      X5, X0; \
	PXOR      X1, X0; \
	MOVOA     X0, X5; \
	PCLMULQDQ $0x00, X4, X0; \
	PCLMULQDQ $0x11, X4, X5; \
	PXOR      X5, X0; \
	PXOR      X2, X0; \
	MOVOA     X0, X5; \
	PCLMULQDQ $0x00, X4, X0; \
	PCLMULQDQ $0x11, X4, X5; \
	PXOR      X5, X0; \
	PXOR      X3, X0; \
	MOVQ   X0, AX; \
	PEXTRQ $1, X0, BX; \
	MOVQ   AX, lo+32(FP); \
	MOVQ   BX, hi+40(FP)


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
	REDUCE
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// Folding constants (see crc64_amd64.go), the low lane's then the high
// lane's: by 2048 bits (x^2111, x^2047) and by 512 bits (x^575, x^511).
DATA crc64Fold2048<>+0(SB)/8, $0x8260adf2381ad81c
DATA crc64Fold2048<>+8(SB)/8, $0xf31fd9271e228b79
GLOBL crc64Fold2048<>(SB), RODATA|NOPTR, $16
DATA crc64Fold512<>+0(SB)/8, $0x6ae3efbb9dd441f3
DATA crc64Fold512<>+8(SB)/8, $0x081f6054a7842df4
GLOBL crc64Fold512<>(SB), RODATA|NOPTR, $16

// func crc64FoldVPCLMUL(r uint64, p []byte) (lo, hi uint64)
//
// crc64FoldCLMUL with 512-bit registers (AVX-512 and VPCLMULQDQ): p
// (len(p) a multiple of 64, at least 256) is folded 256 bytes a step in
// four registers of four 128-bit lanes each (by 2048 bits), those are
// folded into one (by 512 bits), which takes the remaining 64-byte
// blocks, and its four lanes go to crc64FoldCLMUL's final reduction.
TEXT ·crc64FoldVPCLMUL(SB), NOSPLIT, $0-48
	MOVQ r+0(FP), AX
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVQ     AX, X4
	VPXORQ    Z4, Z0, Z0
	ADDQ      $256, SI
	SUBQ      $256, CX

	VBROADCASTI32X4 crc64Fold2048<>(SB), Z16

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
	VBROADCASTI32X4 crc64Fold512<>(SB), Z16
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
	VMOVDQU       X3, X0
	VEXTRACTI32X4 $1, Z3, X1
	VEXTRACTI32X4 $2, Z3, X2
	VEXTRACTI32X4 $3, Z3, X3
	VZEROUPPER
	REDUCE
	RET
