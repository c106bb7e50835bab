package ppmd

// encodeSymbol codes sym (a byte value, or -1 for the end marker: an
// escape out of the order-0 context) with e and updates the model exactly
// as decodeSymbol does on the decoding side. charMask is scratch space for
// the symbols excluded by escapes.
//
// It walks the same states in the same order as decodeSymbol: the first
// (most probable) state of a multi-symbol context, the others, the escape;
// the binary-context decision; then the masked suffix contexts with the
// escape frequency from SEE.
func (m *Model) encodeSymbol(e *rangeEncoder7z, sym int, charMask *[256]byte) {
	mem := m.mem
	mc := m.minContext
	ns := m.numStats(mc)
	if ns != 1 {
		s := m.stats(mc)
		st := mem[s : s+ns*stateSize]
		summFreq := m.summFreq(mc)
		cum := uint32(0)
		for i := uint32(0); i < ns; i++ {
			f := uint32(st[i*stateSize+1])
			if int(st[i*stateSize]) == sym {
				e.encode(cum, f, summFreq)
				m.foundState = s + i*stateSize
				if i == 0 {
					m.update1First()
				} else {
					m.prevSuccess = 0
					m.update1()
				}
				return
			}
			cum += f
		}
		m.prevSuccess = 0
		e.encode(cum, summFreq-cum, summFreq)
		m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
		*charMask = allUnmasked
		for i := uint32(0); i < ns; i++ {
			charMask[st[i*stateSize]] = 0
		}
	} else {
		s := mc + 2
		one := mem[s]
		freq := uint32(mem[s+1])
		m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
		col := m.prevSuccess + uint32(m.runLength>>26)&0x20 +
			uint32(ns2BSIndx[(m.numStats(m.suffix(mc))-1)&255]) + hiBitsFlag4(one) + m.hiBitsFlag
		prob := &m.binSumm[(freq-1)&127][col&63]
		pr0 := uint32(*prob)
		pr := pr0 - (pr0+1<<(periodBits-2))>>periodBits
		if int(one) == sym {
			e.encodeBit(pr0, false)
			*prob = uint16(pr + 1<<intBits)
			c := m.successor(s)
			m.foundState = s
			m.prevSuccess = 1
			m.runLength++
			if freq < 128 {
				mem[s+1] = byte(freq + 1)
			}
			if m.orderFall == 0 && c > m.text {
				m.minContext, m.maxContext = c, c
			} else {
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
	for {
		mc = m.minContext
		numMasked := m.numStats(mc)
		for {
			m.orderFall++
			suf := m.suffix(mc)
			if suf == 0 {
				if sym >= 0 {
					panic("symbol not in the order-0 context")
				}
				return // end marker written
			}
			mc = suf
			if m.numStats(mc) != numMasked {
				break
			}
		}
		ns = m.numStats(mc)
		s := m.stats(mc)
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
				e.encode(low, uint32(r[1]), sum+escFreq)
				sc.update()
				m.foundState = s + uint32(len(st)-len(r))
				m.update2()
				return
			}
			sum += uint32(r[1] & charMask[c])
			charMask[c] = 0
		}
		e.encode(sum, escFreq, sum+escFreq)
		sc.summ += uint16(sum + escFreq)
	}
}
