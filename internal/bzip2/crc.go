package bzip2

import "sync"

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

// crcUpdate folds p into the running (not inverted at the end) CRC state.
func crcUpdate(crc uint32, p []byte) uint32 {
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
