package zstd

import (
	"encoding/binary"
	"math/bits"
)

// The primes of XXH64.
const (
	xxP1 uint64 = 11400714785074694791
	xxP2 uint64 = 14029467366897019727
	xxP3 uint64 = 1609587929392839161
	xxP4 uint64 = 9650029242287828579
	xxP5 uint64 = 2870177450012600261
)

// xxh64 is a streaming XXH64 of seed 0, the content checksum of a zstd
// frame (its low 32 bits).
type xxh64 struct {
	v     [4]uint64
	total uint64
	mem   [32]byte
	n     int // bytes in mem
}

func (x *xxh64) reset() {
	p1 := xxP1 // wrapping sums, which constants may not be
	*x = xxh64{v: [4]uint64{p1 + xxP2, xxP2, 0, 0 - p1}}
}

func xxRound(acc, in uint64) uint64 {
	acc += in * xxP2
	return bits.RotateLeft64(acc, 31) * xxP1
}

func xxMerge(acc, v uint64) uint64 {
	acc ^= xxRound(0, v)
	return acc*xxP1 + xxP4
}

// stripes consumes the whole 32-byte stripes of p, returning the rest.
func (x *xxh64) stripes(p []byte) []byte {
	v0, v1, v2, v3 := x.v[0], x.v[1], x.v[2], x.v[3]
	for len(p) >= 32 {
		q := p[:32:32]
		v0 = xxRound(v0, binary.LittleEndian.Uint64(q[0:8]))
		v1 = xxRound(v1, binary.LittleEndian.Uint64(q[8:16]))
		v2 = xxRound(v2, binary.LittleEndian.Uint64(q[16:24]))
		v3 = xxRound(v3, binary.LittleEndian.Uint64(q[24:32]))
		p = p[32:]
	}
	x.v = [4]uint64{v0, v1, v2, v3}
	return p
}

func (x *xxh64) write(p []byte) {
	x.total += uint64(len(p))
	if x.n > 0 {
		k := copy(x.mem[x.n:], p)
		x.n += k
		p = p[k:]
		if x.n < 32 {
			return
		}
		x.stripes(x.mem[:])
		x.n = 0
	}
	p = x.stripes(p)
	x.n = copy(x.mem[:], p)
}

// writeRun hashes n bytes of value c, as write would: the stripes'
// input is a constant rather than read from memory, which leaves each
// lane's round an add, a rotation and one multiplication (an RLE block).
func (x *xxh64) writeRun(c byte, n int) {
	x.total += uint64(n)
	if x.n > 0 {
		k := min(32-x.n, n)
		for i := range k {
			x.mem[x.n+i] = c
		}
		x.n += k
		n -= k
		if x.n < 32 {
			return
		}
		x.stripes(x.mem[:])
		x.n = 0
	}
	in := uint64(c) * 0x0101010101010101 * xxP2
	v0, v1, v2, v3 := x.v[0], x.v[1], x.v[2], x.v[3]
	for range n / 32 {
		v0 = bits.RotateLeft64(v0+in, 31) * xxP1
		v1 = bits.RotateLeft64(v1+in, 31) * xxP1
		v2 = bits.RotateLeft64(v2+in, 31) * xxP1
		v3 = bits.RotateLeft64(v3+in, 31) * xxP1
	}
	x.v = [4]uint64{v0, v1, v2, v3}
	x.n = n % 32
	for i := range x.n {
		x.mem[i] = c
	}
}

func (x *xxh64) sum() uint64 {
	var h uint64
	if x.total >= 32 {
		v := x.v
		h = bits.RotateLeft64(v[0], 1) + bits.RotateLeft64(v[1], 7) + bits.RotateLeft64(v[2], 12) + bits.RotateLeft64(v[3], 18)
		for _, vi := range v {
			h = xxMerge(h, vi)
		}
	} else {
		h = xxP5
	}
	h += x.total
	p := x.mem[:x.n]
	for ; len(p) >= 8; p = p[8:] {
		h ^= xxRound(0, binary.LittleEndian.Uint64(p))
		h = bits.RotateLeft64(h, 27)*xxP1 + xxP4
	}
	if len(p) >= 4 {
		h ^= uint64(binary.LittleEndian.Uint32(p)) * xxP1
		h = bits.RotateLeft64(h, 23)*xxP2 + xxP3
		p = p[4:]
	}
	for _, b := range p {
		h ^= uint64(b) * xxP5
		h = bits.RotateLeft64(h, 11) * xxP1
	}
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	h ^= h >> 32
	return h
}
