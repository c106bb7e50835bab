package checksum

import "sync/atomic"

// vpclmulState is 0 until HasVPCLMUL has asked the CPU, then 1 without
// what FoldVPCLMUL needs and 2 with it. The question is asked at the first
// long update, not at the package's initialization: CPUID traps to the
// hypervisor on a virtual machine (see internal/xz's clmulState).
var vpclmulState atomic.Int32

// HasVPCLMUL reports whether FoldVPCLMUL can run: the CPU has AVX-512F and
// VPCLMULQDQ (and the SSE4.1 and PCLMULQDQ of its last steps), and the
// operating system saves the 512-bit registers.
func HasVPCLMUL() bool {
	s := vpclmulState.Load()
	if s == 0 {
		s = 1
		// CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 19 SSE4.1, bit 27
		// OSXSAVE; leaf 7: EBX bit 16 AVX512F, ECX bit 10 VPCLMULQDQ;
		// XCR0 bits 1, 2 and 5 to 7 are the XMM, YMM, opmask and ZMM
		// states.
		const leaf1 = 1<<1 | 1<<19 | 1<<27
		if max, _, _, _ := cpuid(0, 0); max >= 7 {
			if _, _, ecx, _ := cpuid(1, 0); ecx&leaf1 == leaf1 && xgetbv()&0xE6 == 0xE6 {
				if _, ebx, ecx7, _ := cpuid(7, 0); ebx&(1<<16) != 0 && ecx7&(1<<10) != 0 {
					s = 2
				}
			}
		}
		vpclmulState.Store(s)
	}
	return s == 2
}

// cpuid executes the CPUID instruction with EAX = leaf and ECX = sub.
//
//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns the low half of XCR0, the register states the operating
// system saves (execute only when CPUID reports OSXSAVE).
//
//go:noescape
func xgetbv() (eax uint32)

// FoldVPCLMUL folds p (len(p) a multiple of 64, at least 256), with r
// XORed into its first eight bytes, into 128 bits (lo, hi: the bytes of a
// 16-byte message, little-endian) whose CRC register from zero equals the
// register r leaves after p, for the reflected CRC whose constants k
// gives. Four 512-bit registers of four 128-bit lanes each advance 256
// bytes a step: a lane's two 64-bit halves are multiplied (VPCLMULQDQ) by
// k's constants for 2048 bits and the next data XORed in; the registers
// are then folded into one by 512 bits, which takes the remaining 64-byte
// blocks, and its lanes into one by 128 bits (Intel's "Fast CRC
// Computation for Generic Polynomials Using PCLMULQDQ", widened). Call it
// only when HasVPCLMUL reports true.
//
//go:noescape
func FoldVPCLMUL(r uint64, p []byte, k *FoldKeys) (lo, hi uint64)
