package ppmd

import "encoding/binary"

// encodeSymbol codes sym (a byte value, or -1 for the end marker: an
// escape out of the order-0 context) with e and updates the model exactly
// as decodeSymbol does on the decoding side. charMask is scratch space for
// the symbols excluded by escapes.
//
// It walks the same states in the same order as decodeSymbol: the first
// (most probable) state of a multi-symbol context, the others, the escape;
// the binary-context decision; then the masked suffix contexts with the
// escape frequency from SEE. Like decodeSymbol it performs update1,
// update1First and update2 inline, with the record fields at hand.
func (m *Model) encodeSymbol(e *rangeEncoder7z, sym int, charMask *[256]byte) {
	mem := m.mem
	mc := m.minContext
	ctx := mem[mc : mc+unitSize : mc+unitSize]
	ns := uint32(binary.LittleEndian.Uint16(ctx[0:2]))
	if ns != 1 {
		s := binary.LittleEndian.Uint32(ctx[4:8])
		st := mem[s : s+ns*stateSize]
		summFreq := uint32(binary.LittleEndian.Uint16(ctx[2:4]))
		f := uint32(st[1])
		if int(st[0]) == sym {
			e.encode(0, f, summFreq)
			m.foundState = s
			// update1First
			m.prevSuccess = b2u(2*f > summFreq)
			m.runLength += int32(m.prevSuccess)
			binary.LittleEndian.PutUint16(ctx[2:4], uint16(summFreq+4))
			f += 4
			st[1] = byte(f)
			if f > maxFreq {
				m.rescale()
				m.nextContext()
				return
			}
			if c := binary.LittleEndian.Uint32(st[2:6]); m.orderFall == 0 && c > m.text {
				m.minContext, m.maxContext = c, c
			} else {
				m.updateModel()
			}
			return
		}
		m.prevSuccess = 0
		cum := f
		for r := st[stateSize:]; len(r) >= stateSize; r = r[stateSize:] {
			f = uint32(r[1])
			if int(r[0]) == sym {
				e.encode(cum, f, summFreq)
				i := uint32(len(st) - len(r))
				// update1
				f += 4
				binary.LittleEndian.PutUint16(ctx[2:4], uint16(summFreq+4))
				r[1] = byte(f)
				fs := s + i
				if f > uint32(st[i+1-stateSize]) {
					swapWithPrevious(mem, fs)
					fs -= stateSize
					m.foundState = fs
					if f > maxFreq {
						m.rescale()
						m.nextContext()
						return
					}
				} else {
					m.foundState = fs
				}
				if c := binary.LittleEndian.Uint32(mem[fs+2 : fs+stateSize]); m.orderFall == 0 && c > m.text {
					m.minContext, m.maxContext = c, c
				} else {
					m.updateModel()
				}
				return
			}
			cum += f
		}
		e.encode(cum, summFreq-cum, summFreq)
		m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
		*charMask = allUnmasked
		maskSymbols(st, charMask)
	} else {
		// Binary context: the state is inline at ctx[2:8].
		one := ctx[2]
		freq := uint32(ctx[3])
		hb := hiBitsFlag3(mem[m.foundState])
		m.hiBitsFlag = hb
		suf := binary.LittleEndian.Uint32(ctx[8:12])
		prob := m.binProb(one, freq, m.get16(suf), hb)
		pr0 := uint32(*prob)
		pr := pr0 - (pr0+1<<(periodBits-2))>>periodBits
		if int(one) == sym {
			e.encodeBit(pr0, false)
			*prob = uint16(pr + 1<<intBits)
			if !m.binHit(ctx, mc, freq) {
				m.updateModel()
			}
			return
		}
		e.encodeBit(pr0, true)
		*prob = uint16(pr)
		m.initEsc = uint32(expEscape[(pr>>10)&15])
		*charMask = allUnmasked
		charMask[one] = 0
		m.prevSuccess = 0
	}

	// Escape: walk to shorter contexts, excluding the symbols already
	// coded as absent, until the symbol is found or, for the end marker,
	// the order-0 context is left.
	numMasked := ns
	for {
		for {
			m.orderFall++
			suf := binary.LittleEndian.Uint32(ctx[8:12])
			if suf == 0 {
				if sym >= 0 {
					panic("ppmd: symbol not in the order-0 context")
				}
				return // end marker written
			}
			mc = suf
			ctx = mem[mc : mc+unitSize : mc+unitSize]
			ns = uint32(binary.LittleEndian.Uint16(ctx[0:2]))
			if ns != numMasked {
				break
			}
		}
		s := binary.LittleEndian.Uint32(ctx[4:8])
		st := mem[s : s+ns*stateSize]
		m.minContext = mc
		sc, escFreq := m.makeEscFreq(numMasked)
		// One pass: sum the unmasked frequencies, masking as we go, up
		// to the symbol; if it is there (it cannot be masked: it would
		// have been found before), finish the total and code it.
		sum := uint32(0)
		for r := st; len(r) >= stateSize; r = r[stateSize:] {
			c := r[0]
			if int(c) == sym {
				low := sum
				for q := r; len(q) >= stateSize; q = q[stateSize:] {
					sum += uint32(q[1] & charMask[q[0]])
				}
				f := uint32(r[1])
				e.encode(low, f, sum+escFreq)
				sc.update()
				m.foundState = s + uint32(len(st)-len(r))
				// update2
				f += 4
				m.runLength = m.initRL
				binary.LittleEndian.PutUint16(ctx[2:4], binary.LittleEndian.Uint16(ctx[2:4])+4)
				r[1] = byte(f)
				if f > maxFreq {
					m.rescale()
				}
				m.updateModel()
				return
			}
			sum += uint32(r[1] & charMask[c])
			charMask[c] = 0
		}
		e.encode(sum, escFreq, sum+escFreq)
		sc.summ += uint16(sum + escFreq)
		numMasked = ns
	}
}
