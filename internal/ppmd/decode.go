package ppmd

import "encoding/binary"

// allMasked is copied over a decoder's symbol mask to unmask every symbol.
var allUnmasked = func() (a [256]byte) {
	for i := range a {
		a[i] = 0xFF
	}
	return a
}()

// symStop is decodeSymbols' result when it met its stop symbol.
const symStop = -3

func hiBitsFlag3(sym byte) uint32 { return (uint32(sym) + 0xC0) >> (8 - 3) & (1 << 3) }
func hiBitsFlag4(sym byte) uint32 { return (uint32(sym) + 0xC0) >> (8 - 4) & (1 << 4) }

// binHit updates the model after the binary context ctx, at mc, of
// frequency freq, coded its one symbol: the symbol's state (inline at
// ctx[2:8]) is the found one and its frequency grows. When the state's
// successor is already a context at the maximum order, it becomes the
// next context and binHit reports true; otherwise the caller must call
// updateModel. The call is left to the caller so that binHit inlines
// into the coding loops: on long runs of one byte nearly every symbol
// takes this path.
func (m *Model) binHit(ctx []byte, mc, freq uint32) bool {
	c := binary.LittleEndian.Uint32(ctx[4:8])
	m.foundState = mc + 2
	m.prevSuccess = 1
	m.runLength++
	if freq < 128 {
		ctx[3] = byte(freq + 1)
	}
	if m.orderFall == 0 && c > m.text {
		m.minContext, m.maxContext = c, c
		return true
	}
	return false
}

// binProb returns the adaptive probability of a binary context's one
// symbol sym, of frequency freq, whose suffix context has nsuf symbols:
// binSumm's row by the frequency, its column by the model's recent
// success and run, the suffix's size and the symbols' high bits (hb of the
// previous symbol), as decoder and encoder both choose it.
func (m *Model) binProb(sym byte, freq, nsuf, hb uint32) *uint16 {
	col := m.prevSuccess +
		uint32(m.runLength>>26)&0x20 +
		uint32(ns2BSIndx[(nsuf-1)&255]) +
		hiBitsFlag4(sym) +
		hb
	return &m.binSumm[(freq-1)&127][col&63]
}

// decodeSymbol decodes one symbol with rc and updates the model. It
// returns the byte value, symEnd for an escape out of the order-0 context
// (the end marker) or symError when the code cannot be a symbol; when
// rc.err is set after it, the input failed and the result means nothing.
// charMask is scratch space for the symbols excluded by escapes: 0x00
// masks a symbol, 0xFF lets it through.
func (m *Model) decodeSymbol(rc *rangeDecoder, charMask *[256]byte) int {
	var b [1]byte
	if n, res := m.decodeSymbols(rc, charMask, b[:], -1); n == 0 {
		return res
	}
	return int(b[0])
}

// decodeSymbols decodes symbols into p, updating the model, until p is
// full, the symbol stop was decoded (it is not stored; stop -1 stops at
// none), the input failed (rc.err is set; the symbol decoded with the
// failure is dropped) or the code is not a symbol. It returns the count
// stored and what ended it: 0 for a full p, symStop, or symEnd or
// symError as decodeSymbol returns them; the caller checks rc.err first.
//
// The loop is here rather than in the decoders: a symbol found in the
// first context, the most frequent case, then costs no call and return
// and no reload of the model's fields, which on long runs of one byte
// took a tenth of the decoding time.
func (m *Model) decodeSymbols(rc *rangeDecoder, charMask *[256]byte, p []byte, stop int) (n, res int) {
	mem := m.mem
	for n < len(p) {
		var sym int
		mc := m.minContext
		// ctx is the context record: one bounds check for all its fields.
		ctx := unitAt(mem, mc)
		ns := uint32(binary.LittleEndian.Uint16(ctx[0:2]))
		// Below the maximum order the suffix's states were prefetched by
		// the updateModel that made mc the context (see touchStates).
		if ns != 1 {
			s := binary.LittleEndian.Uint32(ctx[4:8])
			st := statesAt(mem, s, ns)
			summFreq := uint32(binary.LittleEndian.Uint16(ctx[2:4]))
			if summFreq > rc.rng || summFreq == 0 {
				return n, symError
			}
			rc.scale(summFreq)
			f := uint32(st[1])
			if rc.below(f) {
				rc.decode(0, f)
				m.foundState = s
				sym = int(st[0])
				// update1First, with the record fields at hand.
				m.prevSuccess = b2u(2*f > summFreq)
				m.runLength += int32(m.prevSuccess)
				binary.LittleEndian.PutUint16(ctx[2:4], uint16(summFreq+4))
				f += 4
				st[1] = byte(f)
				if f > maxFreq {
					m.rescale()
					m.nextContext()
				} else if c := binary.LittleEndian.Uint32(st[2:6]); m.orderFall == 0 && c > m.text {
					m.minContext, m.maxContext = c, c
				} else {
					m.updateModel()
				}
				goto emit
			}
			m.prevSuccess = 0
			count := rc.count()
			i, cum := findCount(st, count)
			if i < len(st) {
				e := st[i : i+stateSize]
				f = uint32(e[1])
				rc.decode(cum, f)
				sym = int(e[0])
				// update1, with the record fields at hand.
				f += 4
				binary.LittleEndian.PutUint16(ctx[2:4], uint16(summFreq+4))
				e[1] = byte(f)
				fs := s + uint32(i)
				if f > uint32(st[i+1-stateSize]) {
					swapWithPrevious(mem, fs)
					fs -= stateSize
					m.foundState = fs
					if f > maxFreq {
						m.rescale()
						m.nextContext()
						goto emit
					}
				} else {
					m.foundState = fs
				}
				if c := binary.LittleEndian.Uint32(stateAt(mem, fs)[2:6]); m.orderFall == 0 && c > m.text {
					m.minContext, m.maxContext = c, c
				} else {
					m.updateModel()
				}
				goto emit
			}
			if count >= summFreq {
				return n, symError
			}
			rc.decode(cum, summFreq-cum)
			m.hiBitsFlag = hiBitsFlag3(mem[m.foundState])
			*charMask = allUnmasked
			maskSymbols(st, charMask)
		} else {
			// Binary context: one symbol, coded as a yes/no decision with
			// an adaptive probability from binSumm. Its state is inline at
			// ctx[2:8].
			bsym := ctx[2]
			freq := uint32(ctx[3])
			hb := hiBitsFlag3(mem[m.foundState])
			m.hiBitsFlag = hb
			suf := binary.LittleEndian.Uint32(ctx[8:12])
			prob := m.binProb(bsym, freq, uint32(binary.LittleEndian.Uint16(unitAt(mem, suf)[0:2])), hb)
			pr := uint32(*prob)
			size0 := (rc.rng >> 14) * pr
			pr -= (pr + 1<<(periodBits-2)) >> periodBits
			if rc.code < size0 {
				*prob = uint16(pr + 1<<intBits)
				rc.rng = size0
				if !m.binHit(ctx, mc, freq) {
					m.updateModel()
				}
				sym = int(bsym)
				goto emit
			}
			*prob = uint16(pr)
			m.initEsc = uint32(expEscape[(pr>>10)&15])
			rc.decodeBinEscape(size0)
			*charMask = allUnmasked
			charMask[bsym] = 0
			m.prevSuccess = 0
		}
		sym = m.decodeEscaped(rc, charMask, mc, ns)
		if sym < 0 {
			return n, sym
		}
	emit:
		// The normalisation after every symbol, written out: the call to
		// normalizeSlow for the one byte the 7z flavour takes, about every
		// third symbol of text and every symbol of random data, cost a
		// spill and reload of the loop's registers.
		if rc.rng < rcTop || rc.rar {
			if pos := rc.pos; pos < rc.nbuf && rc.rng >= 1<<16 && !rc.rar {
				rc.code = rc.code<<8 | uint32(rc.buf[pos])
				rc.pos = pos + 1
				rc.rng <<= 8
			} else {
				rc.normalizeSlow()
			}
		}
		if rc.err != nil {
			return n, sym
		}
		if sym == stop {
			return n, symStop
		}
		p[n] = byte(sym)
		n++
	}
	return n, 0
}

// touchStates prefetches the first state of the context record ctx, a
// suffix that updateModel (crediting the symbol there, creating
// successors) and an escape will read: the two dependent cache misses,
// context record then state list, then start while the current context
// is decoded instead of after it. A prefetch, not a load: the load's
// value had to be stored somewhere, and that store held up every later
// instruction until the state list arrived. The record may be a
// one-state context, whose state overlays the offset; a prefetch of such
// an address is harmless.
func (m *Model) touchStates(ctx []byte) {
	prefetch(&m.mem[0], binary.LittleEndian.Uint32(ctx[4:8]))
}

// decodeEscaped continues decodeSymbol after an escape out of context mc,
// whose numMasked symbols charMask excludes. It is a function of its own
// so that the compiler allocates the registers of decodeSymbol's two
// common paths (the symbol found in the first context, binary or not)
// without the escape loop's variables. The range decoder is left to be
// normalised after the symbol found.
func (m *Model) decodeEscaped(rc *rangeDecoder, charMask *[256]byte, mc, numMasked uint32) int {
	// Escape: walk to shorter contexts, excluding the symbols already
	// seen, until the symbol is found or the order-0 context is left.
	// A consistent model has at most MaxOrder suffix links above any
	// context; the step bound only guards against a broken one.
	mem := m.mem
	ctx := unitAt(mem, mc)
	var ns uint32
	for steps := 0; ; {
		rc.normalize()
		for {
			m.orderFall++
			suf := binary.LittleEndian.Uint32(ctx[8:12])
			if suf == 0 {
				return symEnd
			}
			if steps++; steps > 2*MaxOrder {
				panic(errModelInvariant)
			}
			mc = suf
			ctx = unitAt(mem, mc)
			ns = uint32(binary.LittleEndian.Uint16(ctx[0:2]))
			if ns != numMasked {
				break
			}
		}
		s := binary.LittleEndian.Uint32(ctx[4:8])
		st := statesAt(mem, s, ns)
		// The SEE cell depends on the suffix's NumStats, rarely in the
		// cache: it is loaded before the states are summed, so that the
		// two misses overlap instead of following each other. The
		// suffix's first state, read by the next escape step or by
		// updateModel's credit to the suffix, is loaded early too.
		var sufNS uint32
		if ns != 256 {
			sctx := unitAt(mem, binary.LittleEndian.Uint32(ctx[8:12]))
			sufNS = uint32(binary.LittleEndian.Uint16(sctx[0:2]))
			m.touchStates(sctx)
		}
		hiCnt := maskedSum(st, charMask)
		m.minContext = mc

		// Escape frequency from the SEE cell of this context class
		// (makeEscFreq, with the context fields already at hand).
		var sc *see
		freqSum := uint32(1)
		if ns == 256 {
			sc = &m.dummySee
		} else {
			nonMasked := ns - numMasked
			idx := b2u(nonMasked < sufNS-ns) +
				2*b2u(uint32(binary.LittleEndian.Uint16(ctx[2:4])) < 11*ns) +
				4*b2u(numMasked > nonMasked) +
				m.hiBitsFlag
			sc = &m.see[ns2Indx[(nonMasked-1)&255]][idx&15]
			r := uint32(sc.summ >> sc.shift)
			sc.summ -= uint16(r)
			freqSum = r + b2u(r == 0)
		}
		freqSum += hiCnt
		if freqSum > rc.rng {
			return symError
		}
		rc.scale(freqSum)
		if rc.below(hiCnt) {
			// The walk starts at the end nearer the count: in a large
			// context of even frequencies (random-like data) that halves
			// it; both ends find the same state.
			var i int
			var cum uint32
			if count := rc.count(); 2*count < hiCnt {
				i, cum = findMaskedCount(st, charMask, count)
			} else {
				i, cum = findMaskedCountBack(st, charMask, count, hiCnt)
			}
			if i < len(st) {
				e := st[i : i+stateSize]
				f := uint32(e[1])
				{
					rc.decode(cum, f) // decodeSymbols normalises
					sc.update()
					m.foundState = s + uint32(i)
					sym := e[0]
					// update2, with the record fields at hand.
					f += 4
					m.runLength = m.initRL
					binary.LittleEndian.PutUint16(ctx[2:4], binary.LittleEndian.Uint16(ctx[2:4])+4)
					e[1] = byte(f)
					if f > maxFreq {
						m.rescale()
					}
					m.updateModel()
					return int(sym)
				}
			}
			return symError
		}
		if !rc.below(freqSum) {
			return symError
		}
		rc.decode(hiCnt, freqSum-hiCnt)
		sc.summ += uint16(freqSum)
		maskSymbols(st, charMask)
		numMasked = ns
	}
}

// The loops over a context's state list are kept out of decodeSymbol, as
// small leaf functions that are not inlined: inside the large function
// the compiler spilled their counters to the stack on every step. st is a
// state list (a multiple of stateSize bytes). They step two states at a
// time, as 7-Zip does, by index: with o <= len(st)-12 as the loop
// condition the compiler drops the bounds checks, where advancing a
// re-sliced st cost a guarded pointer update per step.

// findCount returns the byte offset in st of the state whose cumulative
// frequency interval holds count, with the sum of the frequencies before
// it. The first state was already tested. When no state holds count it
// returns len(st) and the sum of all frequencies.
func findCount(st []byte, count uint32) (int, uint32) {
	cum := uint32(st[1])
	o := stateSize
	for end := len(st) - 2*stateSize; o <= end; o += 2 * stateSize {
		e := st[o : o+2*stateSize : o+2*stateSize]
		f0 := uint32(e[1])
		if count < cum+f0 {
			return o, cum
		}
		cum += f0
		f1 := uint32(e[stateSize+1])
		if count < cum+f1 {
			return o + stateSize, cum
		}
		cum += f1
	}
	if o+stateSize <= len(st) {
		f := uint32(st[o+1])
		if count < cum+f {
			return o, cum
		}
		cum += f
	}
	return len(st), cum
}

// findMaskedCount is findCount over the unmasked states of st, starting
// at the first one.
//
//go:noinline
func findMaskedCount(st []byte, charMask *[256]byte, count uint32) (int, uint32) {
	mask := charMask[:] // one nil check, not one per step
	cum := uint32(0)
	o := 0
	for end := len(st) - 2*stateSize; o <= end; o += 2 * stateSize {
		e := st[o : o+2*stateSize : o+2*stateSize]
		f0 := uint32(e[1]) & uint32(mask[e[0]])
		if count < cum+f0 {
			return o, cum
		}
		cum += f0
		f1 := uint32(e[stateSize+1]) & uint32(mask[e[stateSize]])
		if count < cum+f1 {
			return o + stateSize, cum
		}
		cum += f1
	}
	if o+stateSize <= len(st) {
		f := uint32(st[o+1]) & uint32(mask[st[o]])
		if count < cum+f {
			return o, cum
		}
		cum += f
	}
	return len(st), cum
}

// findMaskedCountBack is findMaskedCount walking from the last state
// back, for a count below total, the sum of the unmasked frequencies: the
// state found is the last whose sum before it is at most count, which is
// the one holding count (every state after it starts above count, so its
// own frequency is not masked). When none is (a broken sum) it returns
// len(st).
//
//go:noinline
func findMaskedCountBack(st []byte, charMask *[256]byte, count, total uint32) (int, uint32) {
	mask := charMask[:] // one nil check, not one per step
	cum := total
	o := len(st) - 2*stateSize
	for ; o >= 0; o -= 2 * stateSize {
		e := st[o : o+2*stateSize : o+2*stateSize]
		cum -= uint32(e[stateSize+1]) & uint32(mask[e[stateSize]])
		if count >= cum {
			return o + stateSize, cum
		}
		cum -= uint32(e[1]) & uint32(mask[e[0]])
		if count >= cum {
			return o, cum
		}
	}
	if o == -stateSize {
		cum -= uint32(st[1]) & uint32(mask[st[0]])
		if count >= cum {
			return 0, cum
		}
	}
	return len(st), cum
}

// maskedSum returns the sum of the frequencies of the states in st whose
// symbols charMask lets through.
//
//go:noinline
func maskedSum(st []byte, charMask *[256]byte) uint32 {
	mask := charMask[:] // one nil check, not one per step
	var sum0, sum1 uint32
	o := 0
	for end := len(st) - 2*stateSize; o <= end; o += 2 * stateSize {
		e := st[o : o+2*stateSize : o+2*stateSize]
		sum0 += uint32(e[1]) & uint32(mask[e[0]])
		sum1 += uint32(e[stateSize+1]) & uint32(mask[e[stateSize]])
	}
	if o+stateSize <= len(st) {
		sum0 += uint32(st[o+1]) & uint32(mask[st[o]])
	}
	return sum0 + sum1
}

// maskSymbols masks the symbols of the states in st.
//
//go:noinline
func maskSymbols(st []byte, charMask *[256]byte) {
	mask := charMask[:] // one nil check, not one per step
	o := 0
	for end := len(st) - 2*stateSize; o <= end; o += 2 * stateSize {
		e := st[o : o+2*stateSize : o+2*stateSize]
		mask[e[0]] = 0
		mask[e[stateSize]] = 0
	}
	if o+stateSize <= len(st) {
		mask[st[o]] = 0
	}
}
