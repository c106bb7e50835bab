package checksum

import "hash/crc32"

// UpdateCRC32 returns the IEEE CRC-32 (as hash/crc32's IEEE table
// computes it) of the data crc was computed over followed by p. Where
// the CPU has AVX-512 with VPCLMULQDQ, long inputs are folded sixteen
// 128-bit lanes at a time, about three times the speed of hash/crc32's
// four lanes of PCLMULQDQ; anything else is hash/crc32's.
func UpdateCRC32(crc uint32, p []byte) uint32 {
	if len(p) < FoldMin || !HasVPCLMUL() {
		return crc32.Update(crc, crc32.IEEETable, p)
	}
	n := len(p) &^ 63
	lo, hi := FoldVPCLMUL(uint64(^crc), p[:n], &crc32Keys)
	// (lo, hi) is a 16-byte message congruent to the register XORed into
	// p[:n] followed by p[:n]: its CRC register from zero is theirs. It is
	// run through the table here, not through crc32.Update, whose
	// indirect call would move a byte array holding it to the heap on
	// every update.
	reg := tableBytes(0, lo)
	reg = tableBytes(reg, hi)
	return crc32.Update(^reg, crc32.IEEETable, p[n:])
}

// tableBytes runs the CRC-32 register reg (not inverted) over the eight
// bytes of v, least significant first, with the IEEE table.
func tableBytes(reg uint32, v uint64) uint32 {
	for range 8 {
		reg = crc32.IEEETable[byte(reg)^byte(v)] ^ reg>>8
		v >>= 8
	}
	return reg
}

// FoldMin is the shortest update worth FoldVPCLMUL: below it the
// 512-bit registers' set-up is not repaid. Callers folding another CRC
// with it (xz's CRC-64) use the same bound.
const FoldMin = 1024

// FoldKeys are the folding constants of one CRC for FoldVPCLMUL, each
// pair the low lane's and the high lane's: x^(d+63) and x^(d-1) modulo
// the CRC's polynomial, bit-reflected into 64 bits, for folding by d =
// 2048, 512 and 128 bits.
type FoldKeys [6]uint64

// crc32Keys are the IEEE CRC-32's (polynomial 0x04C11DB7).
var crc32Keys = FoldKeys{
	0x7cc8e1e700000000, 0x03f9f86300000000, // 2048
	0x653d982200000000, 0xcad38e8f00000000, // 512
	0x65673b4600000000, 0x9ba54c6f00000000, // 128
}

// CRC32 is a hash.Hash32 of the IEEE CRC-32 computed with UpdateCRC32,
// as crc32.NewIEEE's; its zero value is ready for use.
type CRC32 struct{ crc uint32 }

// Write adds p to the checksum; it never fails.
func (d *CRC32) Write(p []byte) (int, error) {
	d.crc = UpdateCRC32(d.crc, p)
	return len(p), nil
}

// Sum32 returns the checksum of the bytes written.
func (d *CRC32) Sum32() uint32 { return d.crc }

// Sum appends the checksum, big-endian, to b.
func (d *CRC32) Sum(b []byte) []byte {
	return append(b, byte(d.crc>>24), byte(d.crc>>16), byte(d.crc>>8), byte(d.crc))
}

// Reset forgets the bytes written.
func (d *CRC32) Reset() { d.crc = 0 }

// Size returns 4, the checksum's length in bytes.
func (d *CRC32) Size() int { return 4 }

// BlockSize returns 1: Write takes any length.
func (d *CRC32) BlockSize() int { return 1 }
