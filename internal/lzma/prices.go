package lzma

func (e *encoder) fillLenPrices(which int) {
	off := offLenMatch
	if which == 1 {
		off = offLenRep
	}
	p := e.probs[off : off+lenCoderLen]
	a0, a1 := price0(p[lenChoice]), price1(p[lenChoice])
	b0, b1 := a1+price0(p[lenChoice2]), a1+price1(p[lenChoice2])
	var high [lenHighSyms]uint32
	for s := uint32(0); s < lenHighSyms; s++ {
		high[s] = b1 + treePrice(p[lenHigh:lenHigh+lenHighSyms], 8, s)
	}
	for ps := 0; ps < 1<<e.pb; ps++ {
		t := &e.lenPrices[which][ps]
		lo := p[lenLow+ps*lenLowSyms : lenLow+(ps+1)*lenLowSyms]
		mid := p[lenMid+ps*lenMidSyms : lenMid+(ps+1)*lenMidSyms]
		for s := uint32(0); s < lenLowSyms; s++ {
			t[s] = a0 + treePrice(lo, 3, s)
			t[s+lenLowSyms] = b0 + treePrice(mid, 3, s)
		}
		copy(t[lenLowSyms+lenMidSyms:], high[:])
	}
}

func (e *encoder) fillDistPrices() {
	for ls := 0; ls < numLenToPosState; ls++ {
		o := offDistSlot + ls<<numDistSlotBits
		sp := e.probs[o : o+64]
		for s := 0; s < e.numSlots; s++ {
			pr := treePrice(sp, numDistSlotBits, uint32(s))
			if s >= endPosModel {
				pr += uint32((s>>1)-1-numAlignBits) << priceShift
			}
			e.slotPrices[ls][s] = pr
		}
		for d := uint32(0); d < numFullDists; d++ {
			slot := getSlot(d)
			pr := e.slotPrices[ls][slot]
			if slot >= startPosModel {
				nDirect := uint(slot>>1) - 1
				base := (2 | slot&1) << nDirect
				o := offDistSpec + int(base) - int(slot)
				pr += treeRevPrice(e.probs[o:o+1<<nDirect], nDirect, d-base)
			}
			e.distPrices[ls][d] = pr
		}
	}
	e.matchCount = 0
}

func (e *encoder) fillAlignPrices() {
	for i := uint32(0); i < alignSize; i++ {
		e.alignPrices[i] = treeRevPrice(e.probs[offAlign:offAlign+alignSize], numAlignBits, i)
	}
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

// literalPrice is the price of coding buf[pos] as a literal (without the
// isMatch bit) in state st at stream position sp.
func (e *encoder) literalPrice(buf []byte, pos int, sp int64, st uint32, reps0 uint32) uint32 {
	prev := uint32(0)
	if sp > 0 {
		prev = uint32(buf[pos-1])
	}
	base := offLiteral + literalCoderSize*int(((uint32(sp)&e.lpMask)<<e.lc)+prev>>(8-e.lc))
	lp := e.probs[base : base+literalCoderSize]
	b := uint32(buf[pos])
	ctx := uint32(1)
	var pr uint32
	i := 8
	if !afterLiteral(st) {
		mb := uint32(buf[pos-int(reps0)-1])
		for i > 0 {
			i--
			bit := (b >> uint(i)) & 1
			mbit := (mb >> uint(i)) & 1
			pr += priceBit(lp[0x100+mbit<<8+ctx], bit)
			ctx = ctx<<1 | bit
			if bit != mbit {
				break
			}
		}
	}
	for i > 0 {
		i--
		bit := (b >> uint(i)) & 1
		pr += priceBit(lp[ctx], bit)
		ctx = ctx<<1 | bit
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
