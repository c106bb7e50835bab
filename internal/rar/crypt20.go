package rar

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"math/bits"
)

// RAR 2.0 encryption is a 32-round Feistel-like cipher on 16-byte blocks.
// The state is four 32-bit keys and a 256-byte substitution table, both
// set up from the password: the table starts from a fixed permutation and
// is shuffled by swaps driven by the CRC table and the password bytes, then
// the password (zero-padded, in 16-byte blocks) is encrypted to stir the
// keys. After every block the keys are XORed with CRC table entries of the
// block's ciphertext bytes, which makes the cipher a stream over blocks.

var crypt20InitTable = [256]byte{
	215, 19, 149, 35, 73, 197, 192, 205, 249, 28, 16, 119, 48, 221, 2, 42,
	232, 1, 177, 233, 14, 88, 219, 25, 223, 195, 244, 90, 87, 239, 153, 137,
	255, 199, 147, 70, 92, 66, 246, 13, 216, 40, 62, 29, 217, 230, 86, 6,
	71, 24, 171, 196, 101, 113, 218, 123, 93, 91, 163, 178, 202, 67, 44, 235,
	107, 250, 75, 234, 49, 167, 125, 211, 83, 114, 157, 144, 32, 193, 143, 36,
	158, 124, 247, 187, 89, 214, 141, 47, 121, 228, 61, 130, 213, 194, 174, 251,
	97, 110, 54, 229, 115, 57, 152, 94, 105, 243, 212, 55, 209, 245, 63, 11,
	164, 200, 31, 156, 81, 176, 227, 21, 76, 99, 139, 188, 127, 17, 248, 51,
	207, 120, 189, 210, 8, 226, 41, 72, 183, 203, 135, 165, 166, 60, 98, 7,
	122, 38, 155, 170, 69, 172, 252, 238, 39, 134, 59, 128, 236, 27, 240, 80,
	131, 3, 85, 206, 145, 79, 154, 142, 159, 220, 201, 133, 74, 64, 20, 129,
	224, 185, 138, 103, 173, 182, 43, 34, 254, 82, 198, 151, 231, 180, 58, 10,
	118, 26, 102, 12, 50, 132, 22, 191, 136, 111, 162, 179, 45, 4, 148, 108,
	161, 56, 78, 126, 242, 222, 15, 175, 146, 23, 33, 241, 181, 190, 77, 225,
	0, 46, 169, 186, 68, 95, 237, 65, 53, 208, 253, 168, 9, 18, 100, 52,
	116, 184, 160, 96, 109, 37, 30, 106, 140, 104, 150, 5, 204, 117, 112, 84,
}

// cipher20 is the RAR 2.0 cipher state.
type cipher20 struct {
	keys  [4]uint32
	subst [256]byte
}

func (c *cipher20) substLong(t uint32) uint32 {
	return uint32(c.subst[t&255]) | uint32(c.subst[(t>>8)&255])<<8 |
		uint32(c.subst[(t>>16)&255])<<16 | uint32(c.subst[t>>24])<<24
}

// setPassword initialises the state from the password bytes.
func (c *cipher20) setPassword(pw []byte) {
	c.keys = [4]uint32{0xD3A3B879, 0x3F6D12F7, 0x7515A235, 0xA4E7F123}
	var psw [128]byte
	n := copy(psw[:127], pw)
	c.subst = crypt20InitTable
	tab := crc32.IEEETable
	for j := 0; j < 256; j++ {
		for i := 0; i < n; i += 2 {
			a := uint(byte(tab[byte(int(psw[i])-j)]))
			b := uint(byte(tab[byte(int(psw[i+1])+j)]))
			for k := uint(1); a&0xff != b; a, k = a+1, k+1 {
				x, y := a&0xff, (a+uint(i)+k)&0xff
				c.subst[x], c.subst[y] = c.subst[y], c.subst[x]
			}
		}
	}
	for i := 0; i < n; i += 16 {
		c.crypt(psw[i:i+16], true)
	}
}

// crypt encrypts or decrypts one 16-byte block in place.
func (c *cipher20) crypt(buf []byte, encrypt bool) {
	var in [16]byte
	copy(in[:], buf)
	a := binary.LittleEndian.Uint32(buf[0:]) ^ c.keys[0]
	b := binary.LittleEndian.Uint32(buf[4:]) ^ c.keys[1]
	cc := binary.LittleEndian.Uint32(buf[8:]) ^ c.keys[2]
	d := binary.LittleEndian.Uint32(buf[12:]) ^ c.keys[3]
	for i := 0; i < 32; i++ {
		ki := i
		if !encrypt {
			ki = 31 - i
		}
		key := c.keys[ki&3]
		ta := a ^ c.substLong((cc+bits.RotateLeft32(d, 11))^key)
		tb := b ^ c.substLong((d^bits.RotateLeft32(cc, 17))+key)
		a, b, cc, d = cc, d, ta, tb
	}
	binary.LittleEndian.PutUint32(buf[0:], cc^c.keys[0])
	binary.LittleEndian.PutUint32(buf[4:], d^c.keys[1])
	binary.LittleEndian.PutUint32(buf[8:], a^c.keys[2])
	binary.LittleEndian.PutUint32(buf[12:], b^c.keys[3])
	src := in[:]
	if encrypt {
		src = buf
	}
	tab := crc32.IEEETable
	for i := 0; i < 16; i += 4 {
		for j := 0; j < 4; j++ {
			c.keys[j] ^= tab[src[i+j]]
		}
	}
}

// reader20 decrypts a RAR 2.0 encrypted stream.
type reader20 struct {
	c     cipher20
	src   io.Reader
	buf   [4096]byte
	start int
	end   int // decrypted buf[start:end]
	raw   int // undecrypted buf[end:raw]
	err   error
}

func newReader20(src io.Reader, pw []byte) *reader20 {
	r := &reader20{src: src}
	r.c.setPassword(pw)
	return r
}

func (r *reader20) Read(p []byte) (int, error) {
	for r.start == r.end {
		if r.err != nil {
			return 0, r.err
		}
		n := copy(r.buf[:], r.buf[r.end:r.raw])
		r.start, r.end, r.raw = 0, 0, n
		m, err := r.src.Read(r.buf[r.raw:])
		r.raw += m
		if err != nil {
			r.err = err
		}
		for r.end+16 <= r.raw {
			r.c.crypt(r.buf[r.end:r.end+16], false)
			r.end += 16
		}
		if r.err == io.EOF && r.end == r.start && r.raw > r.end {
			// a trailing partial block is passed through undecrypted
			r.end = r.raw
		}
	}
	n := copy(p, r.buf[r.start:r.end])
	r.start += n
	return n, nil
}

func (r *reader20) Close() error { return nil }
