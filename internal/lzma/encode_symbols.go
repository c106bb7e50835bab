package lzma

import (
	"fmt"
	"math/bits"
)

func getSlot(dist uint32) uint32 {
	if dist < startPosModel {
		return dist
	}
	n := uint32(bits.Len32(dist)) - 1
	return 2*n + (dist>>(n-1))&1
}

func (e *encoder) encodeLiteral(buf []byte, pos int) {
	probs := e.probs
	prev := uint32(0)
	if e.spos > 0 {
		prev = uint32(buf[pos-1])
	}
	base := offLiteral + literalCoderSize*int(((uint32(e.spos)&e.lpMask)<<e.lc)+prev>>(8-e.lc))
	lp := probs[base : base+literalCoderSize]
	b := uint32(buf[pos])
	if !afterLiteral(e.state) {
		e.rc.matchedLiteral(lp, b, uint32(buf[pos-int(e.reps[0])-1]))
	} else {
		e.rc.tree(lp[:0x100], 8, b)
	}
	e.state = stateAfterLit(e.state)
}

func (e *encoder) encodeLen(off int, l uint32, posState uint32) {
	p := e.probs[off : off+lenCoderLen]
	if l < lenLowSyms {
		e.rc.bit(&p[lenChoice], 0)
		o := lenLow + int(posState)*lenLowSyms
		e.rc.tree(p[o:o+lenLowSyms], 3, l)
	} else if l < lenLowSyms+lenMidSyms {
		e.rc.bit(&p[lenChoice], 1)
		e.rc.bit(&p[lenChoice2], 0)
		o := lenMid + int(posState)*lenMidSyms
		e.rc.tree(p[o:o+lenMidSyms], 3, l-lenLowSyms)
	} else {
		e.rc.bit(&p[lenChoice], 1)
		e.rc.bit(&p[lenChoice2], 1)
		e.rc.tree(p[lenHigh:lenHigh+lenHighSyms], 8, l-lenLowSyms-lenMidSyms)
	}
	e.lenCount++
}

func (e *encoder) encodeDist(dist, l uint32) {
	ls := l
	if ls > numLenToPosState-1 {
		ls = numLenToPosState - 1
	}
	slot := getSlot(dist)
	o := offDistSlot + int(ls)<<numDistSlotBits
	e.rc.tree(e.probs[o:o+64], numDistSlotBits, slot)
	if slot >= startPosModel {
		nDirect := uint(slot>>1) - 1
		base := (2 | slot&1) << nDirect
		rem := dist - base
		if slot < endPosModel {
			o := offDistSpec + int(base) - int(slot)
			e.rc.treeRev(e.probs[o:o+1<<nDirect], nDirect, rem)
		} else {
			e.rc.direct(rem>>numAlignBits, nDirect-numAlignBits)
			e.rc.treeRev(e.probs[offAlign:offAlign+alignSize], numAlignBits, rem&(alignSize-1))
			e.alignCount++
		}
	}
	e.matchCount++
}

// encodeSymbol codes s at e.ep and advances.
func (e *encoder) encodeSymbol(s symbol) {
	buf := e.mf.buf
	pos := e.ep
	if debugChecks && s.dist != litMarker {
		for i := 0; i < int(s.len); i++ {
			if buf[pos+i] != buf[pos+i-int(s.dist)-1] {
				panic(fmt.Sprintf("bad symbol at %d: len %d dist %d (byte %d)", pos, s.len, s.dist, i))
			}
		}
	}
	posState := uint32(e.spos) & e.pbMask
	probs := e.probs
	st := e.state
	if s.len == 1 && (s.dist == litMarker || s.dist != e.reps[0] || int64(s.dist) >= e.spos) {
		e.rc.bit(&probs[offIsMatch+int(st)<<4+int(posState)], 0)
		e.encodeLiteral(buf, pos)
	} else {
		e.rc.bit(&probs[offIsMatch+int(st)<<4+int(posState)], 1)
		rep := 4
		for i := 0; i < 4; i++ {
			if e.reps[i] == s.dist {
				rep = i
				break
			}
		}
		if rep < 4 && int64(s.dist) >= e.spos {
			rep = 4
		}
		if rep == 4 {
			e.rc.bit(&probs[offIsRep+int(st)], 0)
			e.encodeLen(offLenMatch, s.len-minMatchLen, posState)
			e.encodeDist(s.dist, s.len-minMatchLen)
			e.reps = [4]uint32{s.dist, e.reps[0], e.reps[1], e.reps[2]}
			e.state = stateAfterMatch(st)
		} else {
			e.rc.bit(&probs[offIsRep+int(st)], 1)
			if rep == 0 {
				e.rc.bit(&probs[offIsRepG0+int(st)], 0)
				if s.len == 1 {
					e.rc.bit(&probs[offIsRep0Long+int(st)<<4+int(posState)], 0)
					e.state = stateAfterShortRep(st)
					e.ep++
					e.spos++
					return
				}
				e.rc.bit(&probs[offIsRep0Long+int(st)<<4+int(posState)], 1)
			} else {
				e.rc.bit(&probs[offIsRepG0+int(st)], 1)
				if rep == 1 {
					e.rc.bit(&probs[offIsRepG1+int(st)], 0)
				} else {
					e.rc.bit(&probs[offIsRepG1+int(st)], 1)
					e.rc.bit(&probs[offIsRepG2+int(st)], uint32(rep-2))
					if rep == 3 {
						e.reps[3] = e.reps[2]
					}
					e.reps[2] = e.reps[1]
				}
				e.reps[1] = e.reps[0]
				e.reps[0] = s.dist
			}
			e.encodeLen(offLenRep, s.len-minMatchLen, posState)
			e.state = stateAfterRep(st)
		}
	}
	e.ep += int(s.len)
	e.spos += int64(s.len)
}

// encodeEndMarker codes the end-of-stream marker (distance 0xFFFFFFFF).
func (e *encoder) encodeEndMarker() {
	posState := uint32(e.spos) & e.pbMask
	st := e.state
	e.rc.bit(&e.probs[offIsMatch+int(st)<<4+int(posState)], 1)
	e.rc.bit(&e.probs[offIsRep+int(st)], 0)
	e.encodeLen(offLenMatch, 0, posState)
	// Slot 63 with all direct and aligned bits set.
	o := offDistSlot
	e.rc.tree(e.probs[o:o+64], numDistSlotBits, 63)
	e.rc.direct(0x3FFFFFF, 26)
	e.rc.treeRev(e.probs[offAlign:offAlign+alignSize], numAlignBits, 15)
	e.state = stateAfterMatch(st)
}
