package bzip2

import (
	"encoding/binary"
	"hash/crc32"
	"math/bits"
	"sync"
)

// bzip2 uses the CRC-32 polynomial 0x04C11DB7 shifted most significant bit
// first (not reflected), with initial value and final XOR 0xFFFFFFFF.
// crcTables()[k][b] is the CRC contribution of byte b followed by k zero
// bytes, so eight bytes are folded per step ("slicing by 8"). The table is
// built on first use, not at init: most garc processes touch no bzip2.
var (
	crcOnce  sync.Once
	crcTable *[8][256]uint32
)

// crcTables returns crcTable, building it on the first call.
func crcTables() *[8][256]uint32 {
	crcOnce.Do(func() {
		const poly = 0x04C11DB7
		t := new([8][256]uint32)
		for i := range 256 {
			c := uint32(i) << 24
			for range 8 {
				if c&0x80000000 != 0 {
					c = c<<1 ^ poly
				} else {
					c <<= 1
				}
			}
			t[0][i] = c
		}
		for k := 1; k < 8; k++ {
			for i := range 256 {
				c := t[k-1][i]
				t[k][i] = c<<8 ^ t[0][c>>24]
			}
		}
		crcTable = t
	})
	return crcTable
}

// crcChunk is the size of the bit-reversed copy crcUpdate folds at a
// time; crcClmulMin the least input it folds that way.
const (
	crcChunk    = 2048
	crcClmulMin = 256
)

// crcUpdate folds p into the running (not inverted at the end) CRC state.
// bzip2's CRC is the IEEE CRC-32 computed most significant bit first:
// that of the input with the bits of each byte reversed, computed least
// significant bit first as hash/crc32 does, has the state bit-reversed.
// So long inputs are folded by hash/crc32 (carry-less multiplication
// where the processor has it, 4 MiB of output in 0.3 ms rather than 3)
// a chunk at a time, each reversed into buf.
func crcUpdate(crc uint32, p []byte, buf *[crcChunk]byte) uint32 {
	if len(p) < crcClmulMin {
		return crcUpdateTable(crc, p)
	}
	r := ^bits.Reverse32(crc)
	for len(p) > 0 {
		n := min(len(p), len(buf))
		reverseBits(buf[:n], p[:n])
		r = crc32.Update(r, crc32.IEEETable, buf[:n])
		p = p[n:]
	}
	return bits.Reverse32(^r)
}

// reverseBits writes the bytes of src to dst (as long) with the order of
// the bits of each reversed.
func reverseBits(dst, src []byte) {
	dst = dst[:len(src)]
	for len(src) >= 8 && len(dst) >= 8 {
		x := binary.LittleEndian.Uint64(src)
		x = x>>1&0x5555555555555555 | x&0x5555555555555555<<1
		x = x>>2&0x3333333333333333 | x&0x3333333333333333<<2
		x = x>>4&0x0f0f0f0f0f0f0f0f | x&0x0f0f0f0f0f0f0f0f<<4
		binary.LittleEndian.PutUint64(dst, x)
		src, dst = src[8:], dst[8:]
	}
	for i, b := range src {
		dst[i] = bits.Reverse8(b)
	}
}

// crcUpdateTable is crcUpdate by the tables, for short inputs.
func crcUpdateTable(crc uint32, p []byte) uint32 {
	crcTable := crcTables()
	for len(p) >= 8 {
		crc ^= uint32(p[0])<<24 | uint32(p[1])<<16 | uint32(p[2])<<8 | uint32(p[3])
		crc = crcTable[7][crc>>24] ^ crcTable[6][crc>>16&0xff] ^
			crcTable[5][crc>>8&0xff] ^ crcTable[4][crc&0xff] ^
			crcTable[3][p[4]] ^ crcTable[2][p[5]] ^
			crcTable[1][p[6]] ^ crcTable[0][p[7]]
		p = p[8:]
	}
	for _, b := range p {
		crc = crc<<8 ^ crcTable[0][byte(crc>>24)^b]
	}
	return crc
}
