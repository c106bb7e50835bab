package deflate

// bitWriter packs bits least significant first (RFC 1951 section 3.1.1)
// into a byte slice.
type bitWriter struct {
	out []byte
	acc uint64
	n   uint
}

// bits appends the n ≤ 32 low bits of v.
func (b *bitWriter) bits(v uint32, n uint) {
	b.acc |= uint64(v) << b.n
	b.n += n
	if b.n >= 32 {
		b.out = append(b.out, byte(b.acc), byte(b.acc>>8), byte(b.acc>>16), byte(b.acc>>24))
		b.acc >>= 32
		b.n -= 32
	}
}

// align pads with zero bits to a byte boundary and moves whole bytes out.
func (b *bitWriter) align() {
	b.n = (b.n + 7) &^ 7
	for b.n > 0 {
		b.out = append(b.out, byte(b.acc))
		b.acc >>= 8
		b.n -= 8
	}
}
