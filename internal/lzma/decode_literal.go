package lzma

import "encoding/binary"

// alignedMove makes the adaptation of a probability after a 0 bit,
// p + (probOne-p)>>moveBits, one arithmetic shift like the one after a 1
// bit: p - (p-alignedMove)>>moveBits with a signed shift equals it for
// every p below probOne.
const alignedMove = probOne - (1<<moveBits - 1)

// matchedLiteralProbs is the literal coder's size (0x300) rounded up to a
// power of two, so that masked indexes need no bounds checks.
const matchedLiteralProbs = 0x400

// decodeByte decodes an 8-bit symbol MSB first with the bit tree probs:
// an unmatched literal (the first 0x100 entries of its coder) or the high
// length tree. Both children of the current tree node are loaded while the
// bit is decoded, so the load of the next probability is off the chain of
// dependent operations; the bit then selects one of them. The input is
// read as one 8-byte word: in must hold 8 bytes at ip (the decoder keeps
// maxSymbolInput spare bytes after its input).
func decodeByte(probs *[0x100]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	next := binary.LittleEndian.Uint64(in[ip:])
	sym := uint32(1)
	p := uint32(probs[1])
	var i, n0, n1, bound, m uint32
	// bit 0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[1] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 1
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 2
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 3
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 4
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 5
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 6
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	i = (sym << 1) & 0x1FE
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m
	p = n1 + (n0-n1)&m
	// bit 7
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		ip++
	}
	bound = (rng >> probBits) * p
	m = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m
	code -= bound &^ m
	probs[sym&0xFF] = uint16(p - uint32(int32(p-alignedMove&m)>>moveBits))
	sym = sym + sym + 1 + m

	return sym & 0xFF, rng, code, ip
}

// decodeMatchedLiteral decodes a literal after a match: its bits are coded
// against those of the byte at distance rep0 (match) with probs[0x100:]
// until the first bit that differs, then with probs[:0x100] as an
// unmatched literal. As in 7-Zip's LzmaDec.c, offs is 0x100 while the bits
// agree and 0 after, so one unrolled loop serves both parts without a
// branch on the match; the probabilities of both outcomes of the next bit
// are loaded while the current bit is decoded. The indexes are masked to
// matchedLiteralProbs entries, which the decoder's probability array
// provides with spare capacity after the last coder.
func decodeMatchedLiteral(probs *[matchedLiteralProbs]uint16, match uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	next := binary.LittleEndian.Uint64(in[ip:])
	sym := uint32(1)
	mb := match << 1
	bitv := uint32(0x100)
	offs := bitv & mb
	idx := (offs + bitv + sym) & 0x3FF
	p := uint32(probs[idx])
	var o0, i0, i1, n0, n1, bound, m0 uint32
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	bitv = offs ^ bitv&m0
	offs = bitv & mb
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		next >>= 8
		ip++
	}
	mb <<= 1
	o0 = offs ^ bitv
	i0 = (o0&mb + o0 + sym + sym) & 0x3FF
	i1 = (offs&mb + offs + sym + sym + 1) & 0x3FF
	n0, n1 = uint32(probs[i0]), uint32(probs[i1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0
	idx = i1 + (i0-i1)&m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(uint8(next))
		ip++
	}
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[idx&0x3FF] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym = sym + sym + 1 + m0

	return sym & 0xFF, rng, code, ip
}

// decodeByteBranchy decodes the same symbol as decodeByte with a branch on
// every bit: faster where the bits are predictable (see run).
func decodeByteBranchy(probs *[0x100]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	sym := uint32(1)
	for sym < 0x100 {
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		p := probs[sym&0xFF]
		bound := (rng >> probBits) * uint32(p)
		if code < bound {
			rng = bound
			probs[sym&0xFF] = p + (probOne-p)>>moveBits
			sym <<= 1
		} else {
			rng -= bound
			code -= bound
			probs[sym&0xFF] = p - p>>moveBits
			sym = sym<<1 | 1
		}
	}
	return sym & 0xFF, rng, code, ip
}

// decodeMatchedLiteralBranchy decodes the same symbol as
// decodeMatchedLiteral with a branch on every bit.
func decodeMatchedLiteralBranchy(probs *[matchedLiteralProbs]uint16, match uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	sym := uint32(1)
	offs := uint32(0x100)
	for sym < 0x100 {
		match <<= 1
		bit := offs
		offs &= match
		i := (offs + bit + sym) & 0x3FF
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		p := probs[i]
		bound := (rng >> probBits) * uint32(p)
		if code < bound {
			rng = bound
			probs[i] = p + (probOne-p)>>moveBits
			sym <<= 1
			offs ^= bit
		} else {
			rng -= bound
			code -= bound
			probs[i] = p - p>>moveBits
			sym = sym<<1 | 1
		}
	}
	return sym & 0xFF, rng, code, ip
}
