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

// encodeLen codes the length l (0-based) with the length coder at off.
func (e *encoder) encodeLen(rng uint32, low uint64, off int, l uint32, posState uint32) (uint32, uint64) {
	rc := &e.rc
	p := e.probs[off : off+lenCoderLen]
	e.lenCount++
	if l < lenLowSyms {
		rng, low = rc.norm(encBit(rng, low, &p[lenChoice], 0))
		o := lenLow + int(posState)*lenLowSyms
		return rc.treeR(rng, low, p[o:o+lenLowSyms], 3, l)
	}
	rng, low = rc.norm(encBit(rng, low, &p[lenChoice], 1))
	if l < lenLowSyms+lenMidSyms {
		rng, low = rc.norm(encBit(rng, low, &p[lenChoice2], 0))
		o := lenMid + int(posState)*lenMidSyms
		return rc.treeR(rng, low, p[o:o+lenMidSyms], 3, l-lenLowSyms)
	}
	rng, low = rc.norm(encBit(rng, low, &p[lenChoice2], 1))
	return rc.treeR(rng, low, p[lenHigh:lenHigh+lenHighSyms], 8, l-lenLowSyms-lenMidSyms)
}

// encodeDist codes the distance dist (0-based) of a match of length l
// (0-based).
func (e *encoder) encodeDist(rng uint32, low uint64, dist, l uint32) (uint32, uint64) {
	rc := &e.rc
	ls := min(l, numLenToPosState-1)
	slot := getSlot(dist)
	o := offDistSlot + int(ls)<<numDistSlotBits
	rng, low = rc.treeR(rng, low, e.probs[o:o+64], numDistSlotBits, slot)
	e.matchCount++
	if slot < startPosModel {
		return rng, low
	}
	nDirect := uint(slot>>1) - 1
	base := (2 | slot&1) << nDirect
	rem := dist - base
	if slot < endPosModel {
		o := offDistSpec + int(base) - int(slot)
		return rc.treeRevR(rng, low, e.probs[o:o+1<<nDirect], nDirect, rem)
	}
	e.alignCount++
	rng, low = rc.directR(rng, low, rem>>numAlignBits, nDirect-numAlignBits)
	return rc.treeRevR(rng, low, e.probs[offAlign:offAlign+alignSize], numAlignBits, rem&(alignSize-1))
}

// encodeSymbol codes s at e.ep and advances. The range coder's registers
// stay in locals throughout (rangeenc.go).
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
	rc := &e.rc
	rng, low := rc.rng, rc.low
	posState := uint32(e.spos) & e.pbMask
	probs := e.probs
	st := e.state
	isMatch := &probs[offIsMatch+int(st)<<4+int(posState)]
	if s.len == 1 && (s.dist == litMarker || s.dist != e.reps[0] || int64(s.dist) >= e.spos) {
		rng, low = rc.norm(encBit(rng, low, isMatch, 0))
		prev := uint32(0)
		if e.spos > 0 {
			prev = uint32(buf[pos-1])
		}
		base := offLiteral + literalCoderSize*int(((uint32(e.spos)&e.lpMask)<<e.lc)+prev>>(8-e.lc))
		lp := (*[literalCoderSize]uint16)(probs[base : base+literalCoderSize])
		matched := !afterLiteral(st)
		mb := uint32(0)
		if matched {
			mb = uint32(buf[pos-int(e.reps[0])-1])
		}
		rc.rng, rc.low = rc.literalR(rng, low, lp, uint32(buf[pos]), mb, matched)
		e.state = stateAfterLit(st)
		e.litRun++
		e.ep++
		e.spos++
		return
	}
	rng, low = rc.norm(encBit(rng, low, isMatch, 1))
	e.litRun = 0
	rep := 4
	for i := 0; i < 4; i++ {
		if e.reps[i] == s.dist {
			rep = i
			break
		}
	}
	if rep < 4 && (s.match || int64(s.dist) >= e.spos) {
		rep = 4
	}
	if rep == 4 {
		rng, low = rc.norm(encBit(rng, low, &probs[offIsRep+int(st)], 0))
		rng, low = e.encodeLen(rng, low, offLenMatch, s.len-minMatchLen, posState)
		rc.rng, rc.low = e.encodeDist(rng, low, s.dist, s.len-minMatchLen)
		e.reps = [4]uint32{s.dist, e.reps[0], e.reps[1], e.reps[2]}
		e.state = stateAfterMatch(st)
	} else {
		rng, low = rc.norm(encBit(rng, low, &probs[offIsRep+int(st)], 1))
		if rep == 0 {
			rng, low = rc.norm(encBit(rng, low, &probs[offIsRepG0+int(st)], 0))
			long := &probs[offIsRep0Long+int(st)<<4+int(posState)]
			if s.len == 1 {
				rc.rng, rc.low = rc.norm(encBit(rng, low, long, 0))
				e.state = stateAfterShortRep(st)
				e.ep++
				e.spos++
				return
			}
			rng, low = rc.norm(encBit(rng, low, long, 1))
		} else {
			rng, low = rc.norm(encBit(rng, low, &probs[offIsRepG0+int(st)], 1))
			if rep == 1 {
				rng, low = rc.norm(encBit(rng, low, &probs[offIsRepG1+int(st)], 0))
			} else {
				rng, low = rc.norm(encBit(rng, low, &probs[offIsRepG1+int(st)], 1))
				rng, low = rc.norm(encBit(rng, low, &probs[offIsRepG2+int(st)], uint32(rep-2)))
				if rep == 3 {
					e.reps[3] = e.reps[2]
				}
				e.reps[2] = e.reps[1]
			}
			e.reps[1] = e.reps[0]
			e.reps[0] = s.dist
		}
		rc.rng, rc.low = e.encodeLen(rng, low, offLenRep, s.len-minMatchLen, posState)
		e.state = stateAfterRep(st)
	}
	e.ep += int(s.len)
	e.spos += int64(s.len)
}

// encodeEndMarker codes the end-of-stream marker (distance 0xFFFFFFFF).
func (e *encoder) encodeEndMarker() {
	rc := &e.rc
	rng, low := rc.rng, rc.low
	posState := uint32(e.spos) & e.pbMask
	st := e.state
	rng, low = rc.norm(encBit(rng, low, &e.probs[offIsMatch+int(st)<<4+int(posState)], 1))
	rng, low = rc.norm(encBit(rng, low, &e.probs[offIsRep+int(st)], 0))
	rng, low = e.encodeLen(rng, low, offLenMatch, 0, posState)
	// Slot 63 with all direct and aligned bits set.
	o := offDistSlot
	rng, low = rc.treeR(rng, low, e.probs[o:o+64], numDistSlotBits, 63)
	rng, low = rc.directR(rng, low, 0x3FFFFFF, 26)
	rc.rng, rc.low = rc.treeRevR(rng, low, e.probs[offAlign:offAlign+alignSize], numAlignBits, 15)
	e.state = stateAfterMatch(st)
}
