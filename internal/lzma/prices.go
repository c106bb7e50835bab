package lzma

// fillLenPrices fills the length price table of the match (which 0) or
// rep (1) length coder. The parser prices lengths up to the nice length
// only (a longer match or rep is taken without pricing), so, as 7-Zip's
// table size, the entries past it are not filled.
func (e *encoder) fillLenPrices(which int) {
	off := offLenMatch
	if which == 1 {
		off = offLenRep
	}
	p := e.probs[off : off+lenCoderLen]
	n := min(max(e.nice-minMatchLen+1, lenLowSyms+lenMidSyms), numLenSyms)
	a0, a1 := bitPrice0(p[lenChoice]), bitPrice1(p[lenChoice])
	b0, b1 := a1+bitPrice0(p[lenChoice2]), a1+bitPrice1(p[lenChoice2])
	var high [lenHighSyms]uint32
	nHigh := n - lenLowSyms - lenMidSyms
	treePrices(p[lenHigh:lenHigh+lenHighSyms], 8, high[:nHigh])
	for s := range high[:nHigh] {
		high[s] += b1
	}
	for ps := 0; ps < 1<<e.pb; ps++ {
		t := &e.lenPrices[which][ps]
		lo := p[lenLow+ps*lenLowSyms : lenLow+(ps+1)*lenLowSyms]
		mid := p[lenMid+ps*lenMidSyms : lenMid+(ps+1)*lenMidSyms]
		treePrices(lo, 3, t[:lenLowSyms])
		treePrices(mid, 3, t[lenLowSyms:lenLowSyms+lenMidSyms])
		for s := 0; s < lenLowSyms; s++ {
			t[s] += a0
			t[s+lenLowSyms] += b0
		}
		copy(t[lenLowSyms+lenMidSyms:], high[:nHigh])
	}
}

func (e *encoder) fillDistPrices() {
	// The reverse-coded low bits of the small distances do not depend
	// on the length class: priced once, as 7-Zip does.
	var low [numFullDists]uint32
	for slot := uint32(startPosModel); slot < endPosModel; slot++ {
		nDirect := uint(slot>>1) - 1
		base := (2 | slot&1) << nDirect
		o := offDistSpec + int(base) - int(slot)
		treeRevPrices(e.probs[o:o+1<<nDirect], nDirect, low[base:base+1<<nDirect])
	}
	for ls := 0; ls < numLenToPosState; ls++ {
		o := offDistSlot + ls<<numDistSlotBits
		sp := e.probs[o : o+64]
		treePrices(sp, numDistSlotBits, e.slotPrices[ls][:e.numSlots])
		for s := endPosModel; s < e.numSlots; s++ {
			e.slotPrices[ls][s] += uint32((s>>1)-1-numAlignBits) << priceShift
		}
		for d := uint32(0); d < numFullDists; d++ {
			e.distPrices[ls][d] = e.slotPrices[ls][getSlot(d)] + low[d]
		}
	}
	e.matchCount = 0
}

func (e *encoder) fillAlignPrices() {
	treeRevPrices(e.probs[offAlign:offAlign+alignSize], numAlignBits, e.alignPrices[:])
	e.alignCount = 0
}

func (e *encoder) updatePrices() {
	if e.pricesInvalid || e.lenCount >= 64 {
		e.fillLenPrices(0)
		e.fillLenPrices(1)
		e.lenCount = 0
	}
	if e.pricesInvalid || e.matchCount >= 64 {
		e.fillDistPrices()
	}
	if e.pricesInvalid || e.alignCount >= alignSize {
		e.fillAlignPrices()
	}
	e.pricesInvalid = false
}

func (e *encoder) distPrice(dist, l uint32) uint32 {
	ls := l
	if ls > numLenToPosState-1 {
		ls = numLenToPosState - 1
	}
	if dist < numFullDists {
		return e.distPrices[ls][dist]
	}
	return e.slotPrices[ls][getSlot(dist)] + e.alignPrices[dist&(alignSize-1)]
}

// bitPrice0 and bitPrice1 are price0 and price1 for the parser's hot
// loops: probabilities are below probOne, so the mask changes nothing but
// lets the compiler drop the bounds check.
func bitPrice0(p uint16) uint32 { return probPrices[uint32(p>>priceReduce)&(priceTableSz-1)] }
func bitPrice1(p uint16) uint32 {
	return probPrices[uint32((probOne-p)>>priceReduce)&(priceTableSz-1)]
}

// bitPrice is the price of coding bit (0 or 1) with probability p,
// without a branch: a literal's bits are too irregular to predict.
func bitPrice(p uint16, bit uint32) uint32 {
	m := -bit // 0, or all ones for bit 1: v = probOne - p
	v := (uint32(p) ^ m) - m + probOne&m
	return probPrices[(v>>priceReduce)&(priceTableSz-1)]
}

// literalPrice is the price of coding buf[pos] as a literal (without the
// isMatch bit) in state st at stream position sp.
func (e *encoder) literalPrice(buf []byte, pos int, sp int64, st uint32, reps0 uint32) uint32 {
	prev := uint32(0)
	if sp > 0 {
		prev = uint32(buf[pos-1])
	}
	base := offLiteral + literalCoderSize*int(((uint32(sp)&e.lpMask)<<e.lc)+prev>>(8-e.lc))
	lp := (*[literalCoderSize]uint16)(e.probs[base : base+literalCoderSize])
	// sym carries the bits coded so far above a marker bit: sym>>8 is
	// the tree node, bit 7 the next bit to code.
	sym := uint32(buf[pos]) | 0x100
	var pr uint32
	if !afterLiteral(st) {
		// Matched: while the bits agree with the match byte's, the node
		// is taken from the table of that bit (offs 0x100); from the
		// first difference on, offs is 0 and the plain tree is used.
		mb := uint32(buf[pos-int(reps0)-1])
		offs := uint32(0x100)
		for sym < 0x10000 {
			mb <<= 1
			pr += bitPrice(lp[offs+mb&offs+sym>>8], (sym>>7)&1)
			sym <<= 1
			offs &^= mb ^ sym
		}
		return pr
	}
	for sym < 0x10000 {
		pr += bitPrice(lp[(sym>>8)&0xFF], (sym>>7)&1)
		sym <<= 1
	}
	return pr
}

// repIndexPrice is the price of choosing rep i (i > 0, or i == 0 with a
// long match) after isMatch=1, isRep=1.
func (e *encoder) repIndexPrice(i int, st, posState uint32) uint32 {
	p := e.probs
	if i == 0 {
		return price0(p[offIsRepG0+int(st)]) + price1(p[offIsRep0Long+int(st)<<4+int(posState)])
	}
	pr := price1(p[offIsRepG0+int(st)])
	if i == 1 {
		return pr + price0(p[offIsRepG1+int(st)])
	}
	return pr + price1(p[offIsRepG1+int(st)]) + priceBit(p[offIsRepG2+int(st)], uint32(i-2))
}
