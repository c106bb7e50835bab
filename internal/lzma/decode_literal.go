package lzma

import "encoding/binary"

// alignedMove makes the adaptation of a probability after a 0 bit,
// p + (probOne-p)>>moveBits, one arithmetic shift like the one after a 1
// bit: p - (p-alignedMove)>>moveBits with a signed shift equals it for
// every p below probOne.
const alignedMove = probOne - (1<<moveBits - 1)

// decodeLiteral decodes the eight bits of an unmatched literal MSB first
// with the coder probs (0x300 entries, the first 0x100 used here). Both
// children of the current tree node are loaded while the bit is decoded,
// so the load of the next probability is off the chain of dependent
// operations; the bit then selects one of them.
func decodeLiteral(probs *[literalCoderSize]uint16, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
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
		next >>= 8
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
