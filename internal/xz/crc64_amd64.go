package xz

import (
	"encoding/binary"
	"sync/atomic"

	"github.com/garc-dev/garc/internal/checksum"
)

// clmulState is 0 until useCLMUL has asked the CPU, then 1 without the
// instructions crc64FoldCLMUL needs and 2 with them. The question is
// asked at the first long update, not at the package's initialization
// (issue 27): CPUID traps to the hypervisor on a virtual machine, and
// golang.org/x/sys/cpu, which this package used, asks a dozen of them
// and builds its option tables in every garc process (1 % of `garc
// --version`'s CPU).
var clmulState atomic.Int32

// useCLMUL reports whether the CPU has PCLMULQDQ and SSE4.1, which select
// the carry-less multiplication path of crc64Update.
func useCLMUL() bool {
	s := clmulState.Load()
	if s == 0 {
		s = 1
		// CPUID leaf 1: ECX bit 1 is PCLMULQDQ, bit 19 SSE4.1.
		if _, _, ecx, _ := cpuid(1, 0); ecx&(1<<1) != 0 && ecx&(1<<19) != 0 {
			s = 2
		}
		clmulState.Store(s)
	}
	return s == 2
}

// cpuid executes the CPUID instruction with EAX = leaf and ECX = sub.
//
//go:noescape
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

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

// crc64Update returns the CRC-64 of the data crc was computed over
// followed by p.
func crc64Update(crc uint64, p []byte) uint64 {
	if len(p) < 128 || !useCLMUL() {
		return crc64UpdateGeneric(crc, p)
	}
	n := len(p) &^ 63
	var lo, hi uint64
	if n >= checksum.FoldMin && checksum.HasVPCLMUL() {
		lo, hi = checksum.FoldVPCLMUL(^crc, p[:n], &crc64Keys)
	} else {
		lo, hi = crc64FoldCLMUL(^crc, p[:n])
	}
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return ^crc64Raw(crc64Raw(0, b[:]), p[n:])
}

// crc64Keys are checksum.FoldVPCLMUL's constants for CRC-64 (ECMA-182):
// four 512-bit registers fold 256 bytes a step, 3.6 times
// crc64FoldCLMUL's speed, whose chain of dependent multiplications on
// 64 bytes a step bounds it.
var crc64Keys = checksum.FoldKeys{
	0x8260adf2381ad81c, 0xf31fd9271e228b79, // 2048 bits: x^2111, x^2047
	0x6ae3efbb9dd441f3, 0x081f6054a7842df4, // 512 bits: x^575, x^511
	0xe05dd497ca393ae4, 0xdabe95afc7875f40, // 128 bits: x^191, x^127
}
