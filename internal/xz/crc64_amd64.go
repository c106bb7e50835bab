package xz

import (
	"encoding/binary"

	"golang.org/x/sys/cpu"
)

// useCLMUL selects the carry-less multiplication path of crc64Update.
var useCLMUL = cpu.X86.HasPCLMULQDQ && cpu.X86.HasSSE41

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
	if !useCLMUL || len(p) < 128 {
		return crc64UpdateGeneric(crc, p)
	}
	n := len(p) &^ 63
	lo, hi := crc64FoldCLMUL(^crc, p[:n])
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:8], lo)
	binary.LittleEndian.PutUint64(b[8:], hi)
	return ^crc64Raw(crc64Raw(0, b[:]), p[n:])
}
