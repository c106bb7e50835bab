package unpack15

import "sync"

// Fixed prefix codes, given as the first position of each code length
// (index L is the number of symbols with codes shorter than L bits; the
// last entry is the symbol count). Codes are canonical: shorter codes
// first, symbols in increasing order within a length.
var (
	startsL1  = [...]uint16{0, 0, 0, 2, 3, 5, 7, 11, 16, 20, 24, 32, 32, 256}
	startsL2  = [...]uint16{0, 0, 0, 0, 5, 7, 9, 13, 18, 22, 26, 34, 36, 256}
	startsHf0 = [...]uint16{0, 0, 0, 0, 0, 8, 16, 24, 33, 33, 33, 33, 33, 257}
	startsHf1 = [...]uint16{0, 0, 0, 0, 0, 0, 4, 44, 60, 76, 80, 80, 127, 257}
	startsHf2 = [...]uint16{0, 0, 0, 0, 0, 0, 2, 7, 53, 117, 233, 257}
	startsHf3 = [...]uint16{0, 0, 0, 0, 0, 0, 0, 2, 16, 218, 251, 257}
	startsHf4 = [...]uint16{0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 257}
)

const fixedBits = 12

// fixedCode is a lookup table over the next 12 bits: sym<<4 | length.
// An entry with length 0 is a bit pattern the code does not assign.
type fixedCode [1 << fixedBits]uint16

var codeL1, codeL2, codeHf0, codeHf1, codeHf2, codeHf3, codeHf4 fixedCode

func (c *fixedCode) build(starts []uint16) {
	off := 0
	for l := 1; l+1 < len(starts) && l <= fixedBits; l++ {
		if starts[l+1] < starts[l] {
			break
		}
		span := 1 << (fixedBits - l)
		for s := starts[l]; s < starts[l+1]; s++ {
			if off+span > len(c) {
				return
			}
			e := s<<4 | uint16(l)
			for i := off; i < off+span; i++ {
				c[i] = e
			}
			off += span
		}
	}
}

// Short-match codes: for each length index the code's bits, left-aligned
// in a byte, and its length. Variant "a" (after the stream's toggle) adds
// index 14 and shortens index 1 or 3.
var (
	shortCode1  = [...]uint8{0x00, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff, 0xc0, 0x80, 0x90, 0x98, 0x9c}
	shortLen1   = [...]uint8{1, 3, 4, 4, 5, 6, 7, 8, 8, 4, 4, 5, 6, 6}
	shortCode1a = [...]uint8{0x00, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0}
	shortLen1a  = [...]uint8{1, 4, 4, 4, 5, 6, 7, 8, 8, 4, 4, 5, 6, 6, 4}
	shortCode2  = [...]uint8{0x00, 0x40, 0x60, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xc0, 0x80, 0x90, 0x98, 0x9c}
	shortLen2   = [...]uint8{2, 3, 3, 3, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6}
	shortCode2a = [...]uint8{0x00, 0x40, 0x60, 0xa0, 0xd0, 0xe0, 0xf0, 0xf8, 0xfc, 0xc0, 0x80, 0x90, 0x98, 0x9c, 0xb0}
	shortLen2a  = [...]uint8{2, 3, 3, 4, 4, 4, 5, 6, 6, 4, 4, 5, 6, 6, 4}
)

// shortTable maps the next 8 bits to index<<4 | length (length 0: not
// assigned).
type shortTable [256]uint8

// shortTables[avg>=37][toggle]
var shortTables [2][2]shortTable

func (t *shortTable) build(codes, lens []uint8) {
	for b := range t {
		for i, c := range codes {
			l := lens[i]
			mask := uint8(0xff) << (8 - l)
			if uint8(b)&mask == c&mask {
				t[b] = uint8(i)<<4 | l
				break
			}
		}
	}
}

// buildTablesOnce builds the tables above when the first file is decoded
// rather than at package initialisation, which every garc run pays for,
// RAR 1.5 archive or not (56 KiB of tables, about 0.05 ms).
var buildTablesOnce sync.Once

func buildTables() {
	codeL1.build(startsL1[:])
	codeL2.build(startsL2[:])
	codeHf0.build(startsHf0[:])
	codeHf1.build(startsHf1[:])
	codeHf2.build(startsHf2[:])
	codeHf3.build(startsHf3[:])
	codeHf4.build(startsHf4[:])
	shortTables[0][0].build(shortCode1[:], shortLen1[:])
	shortTables[0][1].build(shortCode1a[:], shortLen1a[:])
	shortTables[1][0].build(shortCode2[:], shortLen2[:])
	shortTables[1][1].build(shortCode2a[:], shortLen2a[:])
}
