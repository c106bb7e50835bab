package lzma

// decodeDistance decodes the distance (0-based) of a simple match whose
// length (0-based) is length: the 6-bit slot with the tree of the length
// class, then the tail of slots from startPosModel on. The slot tree is
// unrolled and loads both children of a node while its bit is decoded.
func decodeDistance(all []uint16, length uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	so := offDistSlot + int(min(length, numLenToPosState-1))<<numDistSlotBits
	{
		probs := (*[1 << numDistSlotBits]uint16)(all[so : so+1<<numDistSlotBits])
		sym := uint32(1)
		p := uint32(probs[1])
		var i, n0, n1, bound, m0 uint32
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		i = (sym << 1) & 0x3e
		n0, n1 = uint32(probs[i]), uint32(probs[i+1])
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[1] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0
		p = n1 + (n0-n1)&m0
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		i = (sym << 1) & 0x3e
		n0, n1 = uint32(probs[i]), uint32(probs[i+1])
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[sym&0x3f] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0
		p = n1 + (n0-n1)&m0
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		i = (sym << 1) & 0x3e
		n0, n1 = uint32(probs[i]), uint32(probs[i+1])
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[sym&0x3f] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0
		p = n1 + (n0-n1)&m0
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		i = (sym << 1) & 0x3e
		n0, n1 = uint32(probs[i]), uint32(probs[i+1])
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[sym&0x3f] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0
		p = n1 + (n0-n1)&m0
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		i = (sym << 1) & 0x3e
		n0, n1 = uint32(probs[i]), uint32(probs[i+1])
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[sym&0x3f] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0
		p = n1 + (n0-n1)&m0
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		bound = (rng >> probBits) * p
		m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
		rng = bound + (rng-bound-bound)&^m0
		code -= bound &^ m0
		probs[sym&0x3f] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
		sym = sym + sym + 1 + m0

		slot := sym - 1<<numDistSlotBits
		if slot < startPosModel {
			return slot, rng, code, ip
		}
		if slot < endPosModel {
			return decodeDistSpec(all, slot, rng, code, in, ip)
		}
		return decodeDistDirect(all, slot, rng, code, in, ip)
	}
}

// decodeDistSpec decodes the rest of a distance whose slot is from
// startPosModel to endPosModel-1: its low bits, with the reverse bit tree
// of the slot.
func decodeDistSpec(all []uint16, slot uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	nBits := uint(slot>>1) - 1
	dist := (2 | slot&1) << nBits
	base := offDistSpec + int(dist) - int(slot)
	var low uint32
	low, rng, code, ip = bitTreeRev(all[base:base+1<<nBits], nBits, rng, code, in, ip)
	return dist + low, rng, code, ip
}

// decodeDistDirect decodes the rest of a distance whose slot is at least
// endPosModel: direct bits, then the four aligned bits.
func decodeDistDirect(all []uint16, slot uint32, rng, code uint32, in []byte, ip int) (uint32, uint32, uint32, int) {
	nDirect := uint(slot>>1) - 1
	dist := (2 | slot&1) << nDirect
	var direct uint32
	for i := nDirect - numAlignBits; i > 0; i-- {
		if rng < rangeTop {
			rng <<= 8
			code = code<<8 | uint32(in[ip])
			ip++
		}
		rng >>= 1
		t := (code - rng) >> 31 // 1 when code < rng
		code -= rng & (t - 1)
		direct = direct<<1 | (1 - t)
	}
	dist += direct << numAlignBits
	probs := (*[alignSize]uint16)(all[offAlign : offAlign+alignSize])
	sym, m := uint32(0), uint32(1)
	p := uint32(probs[1])
	var i, n0, n1, bound, m0 uint32
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	i = (m << 1) & 0xe
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[1] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym |= (^m0 & 1) << 0
	m = m + m + 1 + m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	i = (m << 1) & 0xe
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[m&0xf] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym |= (^m0 & 1) << 1
	m = m + m + 1 + m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	i = (m << 1) & 0xe
	n0, n1 = uint32(probs[i]), uint32(probs[i+1])
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[m&0xf] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym |= (^m0 & 1) << 2
	m = m + m + 1 + m0
	p = n1 + (n0-n1)&m0
	if rng < rangeTop {
		rng <<= 8
		code = code<<8 | uint32(in[ip])
		ip++
	}
	bound = (rng >> probBits) * p
	m0 = uint32((uint64(code) - uint64(bound)) >> 32) // all ones for a 0 bit
	rng = bound + (rng-bound-bound)&^m0
	code -= bound &^ m0
	probs[m&0xf] = uint16(p - uint32(int32(p-alignedMove&m0)>>moveBits))
	sym |= (^m0 & 1) << 3
	return dist + sym, rng, code, ip
}
