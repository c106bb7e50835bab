package xz

import (
	"encoding/binary"
	"hash/crc64"
	"sync"
)

// The CRC-64 check of .xz (ECMA-182 polynomial, reflected, initial value
// and final XOR all ones), as hash/crc64 computes it but about twice as
// fast on long inputs: hash/crc64's slicing-by-8 loop waits on the
// previous step's result, so here two halves of each 32 KiB run are
// processed in one loop as two independent chains, and the first half's
// register is then carried over the second half's length by a linear map
// (shifting a CRC register over n zero bytes is linear in the register).
// On the mixed data of scripts/compare-read.sh the check costs about 7 %
// of decoding with hash/crc64.

// crc64Half is the length of each of the two interleaved halves.
const crc64Half = 16 << 10

// crc64Slices is the slicing-by-8 table: crc64Slices[k][b] is the register
// contribution of byte b followed by k zero bytes. It is built on first use
// (crc64Table), not at init: a process that reads no .xz pays nothing.
var (
	crc64SlicesOnce sync.Once
	crc64Slices     *[8][256]uint64
)

// crc64Table returns crc64Slices, building it on the first call.
func crc64Table() *[8][256]uint64 {
	crc64SlicesOnce.Do(func() {
		t := new([8][256]uint64)
		t[0] = *crc64.MakeTable(crc64.ECMA)
		for i := range 256 {
			c := t[0][i]
			for k := 1; k < 8; k++ {
				c = t[0][c&0xFF] ^ c>>8
				t[k][i] = c
			}
		}
		crc64Slices = t
	})
	return crc64Slices
}

var (
	crc64ShiftOnce sync.Once
	crc64ShiftCols [64]uint64 // where register bit i ends up after crc64Half zero bytes
)

// crc64Shift returns register r carried over crc64Half zero bytes.
func crc64Shift(r uint64) uint64 {
	crc64ShiftOnce.Do(func() {
		zeros := make([]byte, crc64Half)
		for i := range crc64ShiftCols {
			crc64ShiftCols[i] = crc64Raw(1<<i, zeros)
		}
	})
	var out uint64
	for i := 0; r != 0; i, r = i+1, r>>1 {
		if r&1 != 0 {
			out ^= crc64ShiftCols[i]
		}
	}
	return out
}

// crc64Step advances register r over the 8 bytes of v.
func crc64Step(t *[8][256]uint64, r, v uint64) uint64 {
	r ^= v
	return t[7][r&0xFF] ^ t[6][r>>8&0xFF] ^ t[5][r>>16&0xFF] ^ t[4][r>>24&0xFF] ^
		t[3][r>>32&0xFF] ^ t[2][r>>40&0xFF] ^ t[1][r>>48&0xFF] ^ t[0][r>>56]
}

// crc64Raw advances the register (no initial or final inversion) over p,
// one chain.
func crc64Raw(r uint64, p []byte) uint64 {
	t := crc64Table()
	for ; len(p) >= 8; p = p[8:] {
		r = crc64Step(t, r, binary.LittleEndian.Uint64(p))
	}
	for _, c := range p {
		r = t[0][byte(r)^c] ^ r>>8
	}
	return r
}

// crc64UpdateGeneric returns the CRC-64 of the data crc was computed over
// followed by p, with tables (crc64Update uses carry-less multiplication
// instead where the CPU has it).
func crc64UpdateGeneric(crc uint64, p []byte) uint64 {
	r := ^crc
	t := crc64Table()
	for ; len(p) >= 2*crc64Half; p = p[2*crc64Half:] {
		a, b := p[:crc64Half:crc64Half], p[crc64Half:2*crc64Half:2*crc64Half]
		ra, rb := r, uint64(0)
		for i := 0; i+8 <= len(a) && i+8 <= len(b); i += 8 {
			ra = crc64Step(t, ra, binary.LittleEndian.Uint64(a[i:]))
			rb = crc64Step(t, rb, binary.LittleEndian.Uint64(b[i:]))
		}
		r = crc64Shift(ra) ^ rb
	}
	return ^crc64Raw(r, p)
}

// crc64Digest is a hash.Hash of the CRC-64 with the byte order of
// hash/crc64's Sum (big-endian).
type crc64Digest struct{ crc uint64 }

func (d *crc64Digest) Write(p []byte) (int, error) {
	d.crc = crc64Update(d.crc, p)
	return len(p), nil
}

func (d *crc64Digest) Sum(b []byte) []byte { return binary.BigEndian.AppendUint64(b, d.crc) }
func (d *crc64Digest) Reset()              { d.crc = 0 }
func (d *crc64Digest) Size() int           { return 8 }
func (d *crc64Digest) BlockSize() int      { return 1 }
