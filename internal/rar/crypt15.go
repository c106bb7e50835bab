package rar

import (
	"hash/crc32"
	"io"
	"math/bits"
)

// RAR 1.5 encryption is a byte stream cipher over four 16-bit keys seeded
// from the CRC32 register of the password (low and high halves) and from
// sums and XORs of the password bytes with their CRC table entries. For
// each byte the keys are stepped (add 0x1234, mix in CRC table entries
// indexed by the key, two 16-bit rotations) and the data byte is XORed
// with the high byte of key 0.

// cipher15 is the RAR 1.5 cipher state.
type cipher15 struct {
	k0, k1, k2, k3 uint16
}

func (c *cipher15) setPassword(pw []byte) {
	tab := crc32.IEEETable
	crc := rawCRC(pw)
	c.k0, c.k1 = uint16(crc), uint16(crc>>16)
	c.k2, c.k3 = 0, 0
	for _, b := range pw {
		t := tab[b]
		c.k2 ^= uint16(b) ^ uint16(t)
		c.k3 += uint16(b) + uint16(t>>16)
	}
}

// rawCRC is the CRC32 register after pw, started at all ones and not
// inverted at the end.
func rawCRC(pw []byte) uint32 {
	return ^crc32.ChecksumIEEE(pw)
}

func (c *cipher15) xor(p []byte) {
	tab := crc32.IEEETable
	for i := range p {
		c.k0 += 0x1234
		t := tab[(c.k0>>1)&0xff]
		c.k1 ^= uint16(t)
		c.k2 -= uint16(t >> 16)
		c.k0 ^= c.k2
		c.k3 = bits.RotateLeft16(c.k3, -1) ^ c.k1
		c.k3 = bits.RotateLeft16(c.k3, -1)
		c.k0 ^= c.k3
		p[i] ^= byte(c.k0 >> 8)
	}
}

// reader15 decrypts a RAR 1.5 encrypted stream.
type reader15 struct {
	c   cipher15
	src io.Reader
}

func (r *reader15) Read(p []byte) (int, error) {
	n, err := r.src.Read(p)
	r.c.xor(p[:n])
	return n, err
}

func (r *reader15) Close() error { return nil }

// RAR 1.3 (archives of RAR 1.3/1.4) encryption: three 8-bit keys from the
// password (sum, XOR, and a rotating sum); for each byte key 2 += key 3,
// key 1 += key 2, and key 1 is subtracted from the data byte.

type cipher13 struct{ k1, k2, k3 byte }

func (c *cipher13) setPassword(pw []byte) {
	c.k1, c.k2, c.k3 = 0, 0, 0
	for _, b := range pw {
		c.k1 += b
		c.k2 ^= b
		c.k3 += b
		c.k3 = bits.RotateLeft8(c.k3, 1)
	}
}

type reader13 struct {
	c   cipher13
	src io.Reader
}

func (r *reader13) Read(p []byte) (int, error) {
	n, err := r.src.Read(p)
	for i := range p[:n] {
		r.c.k2 += r.c.k3
		r.c.k1 += r.c.k2
		p[i] -= r.c.k1
	}
	return n, err
}

func (r *reader13) Close() error { return nil }
