package xz

import (
	"encoding/binary"
	"sync/atomic"
)

// clmulState is 0 until clmulLevel has asked the CPU, then 1 without the
// instructions crc64FoldCLMUL needs, 2 with them, and 3 when
// crc64FoldVPCLMUL's (AVX-512 and VPCLMULQDQ, with the operating system
// saving the 512-bit registers) are there too. The question is asked at
// the first long update, not at the package's initialization (issue 27):
// CPUID traps to the hypervisor on a virtual machine, and
// golang.org/x/sys/cpu, which this package used, asks a dozen of them
// and builds its option tables in every garc process (1 % of `garc
// --version`'s CPU).
var clmulState atomic.Int32

// clmulLevel returns clmulState, asking the CPU first if need be.
func clmulLevel() int32 {
	s := clmulState.Load()
	if s == 0 {
		s = 1
		// CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 19 SSE4.1, bit 27
		// OSXSAVE (XGETBV tells which registers the system saves).
		if _, _, ecx, _ := cpuid(1, 0); ecx&(1<<1) != 0 && ecx&(1<<19) != 0 {
			s = 2
			// Leaf 7: EBX bit 16 is AVX512F, ECX bit 10 VPCLMULQDQ;
			// XCR0 bits 1, 2 and 5 to 7 are the XMM, YMM, opmask and
			// ZMM states.
			if max, _, _, _ := cpuid(0, 0); max >= 7 && ecx&(1<<27) != 0 && xgetbv()&0xE6 == 0xE6 {
				if _, ebx, ecx7, _ := cpuid(7, 0); ebx&(1<<16) != 0 && ecx7&(1<<10) != 0 {
					s = 3
				}
			}
		}
		clmulState.Store(s)
	}
	return s
}

// useCLMUL reports whether the CPU has PCLMULQDQ and SSE4.1, which select
// the carry-less multiplication path of crc64Update.
func useCLMUL() bool { return clmulLevel() >= 2 }

// useVPCLMUL reports whether crc64FoldVPCLMUL can run: AVX-512 with
// VPCLMULQDQ, its registers saved by the operating system.
func useVPCLMUL() bool { return clmulLevel() == 3 }

// cpuid executes the CPUID instruction with EAX = leaf and ECX = sub.
//
//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns the low half of XCR0, the register states the operating
// system saves (execute only when CPUID reports OSXSAVE).
//
//go:noescape
func xgetbv() (eax uint32)

// crc64FoldCLMUL folds p (len(p) a multiple of 64, at least 64), with the
// register r XORed into its first eight bytes, into 128 bits (lo, hi: the
// bytes of a 16-byte message, little-endian) whose CRC register from zero
// equals the register r leaves after p. Four 128-bit lanes advance 64
// bytes per step: a lane's two 64-bit halves are multiplied (PCLMULQDQ) by
// x^575 and x^511 modulo the polynomial, bit-reflected, and the next data
// XORed in; the lanes are then folded into one with x^191 and x^127. Each
// step keeps the value congruent modulo the polynomial, so the CRC of the
// result is that of the input (Intel's "Fast CRC Computation for Generic
// Polynomials Using PCLMULQDQ").
//
//go:noescape
func crc64FoldCLMUL(r uint64, p []byte) (lo, hi uint64)

// crc64FoldVPCLMUL is crc64FoldCLMUL for len(p) at least 256 (a multiple
// of 64) on 512-bit registers: four of them, sixteen 128-bit lanes, fold
// 256 bytes a step (by x^2111 and x^2047), and are then folded into one
// by 512 bits. About three times the speed of crc64FoldCLMUL's 64 bytes a
// step, whose chain of dependent multiplications bounds it.
//
//go:noescape
func crc64FoldVPCLMUL(r uint64, p []byte) (lo, hi uint64)

// vpclmulMin is the shortest update crc64FoldVPCLMUL takes: below it the
// 512-bit registers' set-up is not repaid.
const vpclmulMin = 1024

// crc64Update returns the CRC-64 of the data crc was computed over
// followed by p.
func crc64Update(crc uint64, p []byte) uint64 {
	if len(p) < 128 || !useCLMUL() {
		return crc64UpdateGeneric(crc, p)
	}
	n := len(p) &^ 63
	var lo, hi uint64
	if n >= vpclmulMin && useVPCLMUL() {
		lo, hi = crc64FoldVPCLMUL(^crc, p[:n])
	} else {
		lo, hi = crc64FoldCLMUL(^crc, p[:n])
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return ^crc64Raw(crc64Raw(0, b[:]), p[n:])
}
