package lzma

import (
	"context"
	"fmt"
	"math/bits"
)

const debugChecks = false

// Encoder design
//
// The encoder turns the match finder's candidates into a sequence of
// symbols (a parse) and codes them with the range encoder. A symbol is
// kept as (len, dist) with the actual distance, not the rep index, so that
// it can be coded correctly whatever the model state is when it is
// emitted: a distance equal to one of rep0..rep3 is coded as that rep, a
// one-byte symbol with distance rep0 as a short rep, anything else as a
// match or literal. That lets an LZMA2 chunk boundary (and the state reset
// after an uncompressed chunk) fall anywhere in a parse.
//
// Fast levels use a greedy parse with one position of lookahead (lazy
// matching). Normal and higher levels use price-based optimal parsing:
// from the current position, the cheapest way to reach each of the next
// positions (up to numOpts) is computed by dynamic programming over
// literals, short reps, rep matches and matches of every usable length,
// with prices taken from the current probabilities (bit prices in 1/16
// bit) and from length and distance price tables refreshed as the model
// adapts. The cheapest path is then emitted.

const (
	numOpts     = 1 << 12
	litMarker   = ^uint32(0)
	lookahead   = numOpts + maxMatchLen + 8
	chunkPacked = 1 << 16
	chunkUnpack = 1 << 21
)

// symbol is one parsed LZMA symbol: a literal (dist == litMarker, len 1),
// a short rep (len 1, dist = rep0) or a match of len >= 2 at distance
// dist (0-based).
type symbol struct {
	len, dist uint32
}

// stepKind is the kind of step by which the optimal parser reaches a
// position.
type stepKind uint8

const (
	stepNone      stepKind = iota // no step (the composite step without a first symbol)
	stepLiteral                   // a literal
	stepShortRep                  // a one-byte rep0 match
	stepRep                       // a rep match of length >= 2
	stepMatch                     // a match of length >= 2
	stepComposite                 // first symbol (optional), literal, rep0 match
)

// optNode is a position of the optimal parse: the cheapest known way to
// reach it, as a step of kind from node prev. A composite step is an
// optional first symbol (first: stepRep, stepMatch or stepNone) of length
// len1 and distance dist, then a literal, then a rep0 match; len is the
// total length.
type optNode struct {
	price uint32
	prev  int32
	kind  stepKind
	first stepKind
	len1  uint32
	len   uint32
	dist  uint32
	state uint32
	reps  [4]uint32
}

// repsAfterRep moves distance d (one of r) to the front.
func repsAfterRep(r [4]uint32, d uint32) [4]uint32 {
	switch d {
	case r[0]:
	case r[1]:
		r[0], r[1] = r[1], r[0]
	case r[2]:
		r[0], r[1], r[2] = r[2], r[0], r[1]
	default:
		r[0], r[1], r[2], r[3] = r[3], r[0], r[1], r[2]
	}
	return r
}

// encoder holds the LZMA model, the range encoder, a match finder and the
// parser state. It is reused for successive streams and blocks.
type encoder struct {
	lc, lp, pb     uint
	lpMask, pbMask uint32
	fast           bool
	composites     bool // optimal parser also tries literal+rep0 and match+literal+rep0
	nice           int
	dictSize       uint32
	probs          []uint16
	state          uint32
	reps           [4]uint32
	rc             rangeEncoder
	mf             *matchFinder
	mt             *mtFinder // pipelined match finder (Writer2 with threads), or nil

	ep   int   // buffer index of the next symbol to code
	spos int64 // stream position of ep since the last dictionary reset

	pend     []symbol
	pendIdx  int
	ms       []match
	next     []match // matches already found at mf.pos-1
	haveNext bool

	// Price tables.
	lenPrices     [2][posStatesMax][numLenSyms]uint32
	slotPrices    [numLenToPosState][64]uint32
	distPrices    [numLenToPosState][numFullDists]uint32
	alignPrices   [alignSize]uint32
	numSlots      int
	lenCount      int
	matchCount    int
	alignCount    int
	pricesInvalid bool
	opt           []optNode

	// Cancellation: ctx (nil: never) is polled when ep reaches checkAt,
	// every cancelCheckInterval positions.
	ctx     context.Context
	checkAt int
}

// cancelCheckInterval is how many input positions the encoder codes
// between two polls of its context: small enough that a cancellation is
// noticed within milliseconds even at the slowest settings, large enough
// that the poll costs nothing measurable.
const cancelCheckInterval = 1 << 16

// cancelled returns the context's error, wrapped, once it is done.
func (e *encoder) cancelled() error { return contextErr(e.ctx) }

func newEncoder(o *WriterOptions) *encoder {
	e := &encoder{
		lc: uint(o.LC), lp: uint(o.LP), pb: uint(o.PB),
		fast:     o.Algorithm == AlgorithmFast || o.Algorithm == AlgorithmByLevel && o.Level < 5,
		nice:     o.FastBytes,
		dictSize: o.DictSize,
		ctx:      o.Context,
	}
	// As in 7-Zip, every optimal parse takes the composite steps (their
	// cost and gain: docs/PERFORMANCE.md).
	e.composites = !e.fast
	e.lpMask = 1<<e.lp - 1
	e.pbMask = 1<<e.pb - 1
	e.probs = make([]uint16, numProbs(e.lc+e.lp))
	bt := o.finder.binaryTree()
	var slack uint32
	if bt && o.Threads >= 2 {
		slack = mtLag
	}
	e.mf = newMatchFinder(bt, o.finder.hashBytes(), o.DictSize, o.FastBytes, o.Cycles, slack)
	e.ms = make([]match, 0, maxMatchLen+8)
	e.next = make([]match, 0, maxMatchLen+8)
	e.pend = make([]symbol, 0, numOpts+1)
	if !e.fast {
		e.opt = make([]optNode, numOpts+2*maxMatchLen+4)
	}
	e.numSlots = 2 * bits.Len32(o.DictSize)
	if e.numSlots < 8 {
		e.numSlots = 8
	}
	if e.numSlots > 64 {
		e.numSlots = 64
	}
	return e
}

// resetState resets the model (probabilities, state, reps).
func (e *encoder) resetState() {
	for i := range e.probs {
		e.probs[i] = probInit
	}
	e.state = 0
	e.reps = [4]uint32{}
	e.pricesInvalid = true
}

// resetStream starts a new stream over data (borrowed) with an empty
// dictionary.
func (e *encoder) resetStream(data []byte) { _ = e.resetBlock(data, 0, 0) }

// resetBlock starts a block over data (borrowed) whose first hist bytes
// are the history before it (the end of the previous block, already in
// the decoder's dictionary), at stream position spos since the last
// dictionary reset. The model starts afresh; the match finder is
// preloaded with the history.
func (e *encoder) resetBlock(data []byte, hist int, spos int64) error {
	e.resetState()
	e.mf.reset(data)
	e.ep = hist
	e.checkAt = hist + cancelCheckInterval
	e.spos = spos
	e.pend = e.pend[:0]
	e.pendIdx = 0
	e.haveNext = false
	e.rc.reset()
	return e.mf.preload(hist, min(hist, preloadFull), e.cancelled)
}

func getSlot(dist uint32) uint32 {
	if dist < startPosModel {
		return dist
	}
	n := uint32(bits.Len32(dist)) - 1
	return 2*n + (dist>>(n-1))&1
}

// ---- coding ----

func (e *encoder) encodeLiteral(buf []byte, pos int) {
	probs := e.probs
	prev := uint32(0)
	if e.spos > 0 {
		prev = uint32(buf[pos-1])
	}
	base := offLiteral + literalCoderSize*int(((uint32(e.spos)&e.lpMask)<<e.lc)+prev>>(8-e.lc))
	lp := probs[base : base+literalCoderSize]
	b := uint32(buf[pos])
	ctx := uint32(1)
	if !afterLiteral(e.state) {
		mb := uint32(buf[pos-int(e.reps[0])-1])
		i := 8
		for i > 0 {
			i--
			bit := (b >> uint(i)) & 1
			mbit := (mb >> uint(i)) & 1
			e.rc.bit(&lp[0x100+mbit<<8+ctx], bit)
			ctx = ctx<<1 | bit
			if bit != mbit {
				break
			}
		}
		for i > 0 {
			i--
			bit := (b >> uint(i)) & 1
			e.rc.bit(&lp[ctx], bit)
			ctx = ctx<<1 | bit
		}
	} else {
		for i := 7; i >= 0; i-- {
			bit := (b >> uint(i)) & 1
			e.rc.bit(&lp[ctx], bit)
			ctx = ctx<<1 | bit
		}
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

// ---- prices ----

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

// ---- parsing ----

// findMatches returns the matches at mf.pos, advancing the finder, or the
// ones found ahead of time by the previous parse step.
func (e *encoder) findMatches() []match {
	if e.haveNext {
		e.haveNext = false
		e.ms, e.next = e.next, e.ms
		return e.ms
	}
	e.ms = e.find(e.ms)
	return e.ms
}

// repLen returns the length of the match with 0-based distance r at pos,
// limited to limit, or 0 when the distance reaches before the stream.
func repLen(buf []byte, pos int, sp int64, r uint32, limit int) int {
	if int64(r) >= sp || int(r) >= pos {
		return 0
	}
	j := pos - int(r) - 1
	if buf[pos] != buf[j] || limit < 2 || buf[pos+1] != buf[j+1] {
		return 0
	}
	return 2 + matchLen(buf, pos+2, j+2, limit-2)
}

func (e *encoder) push(len, dist uint32) {
	e.pend = append(e.pend, symbol{len, dist})
}

func changePair(small, big uint32) bool { return big>>7 > small }

// parseFast appends the next symbol (greedy with one step of lookahead).
func (e *encoder) parseFast() {
	mf := e.mf
	buf := mf.buf
	pos := e.ep // mf.pos is one further when matches were found ahead
	avail := mf.end - pos
	ms := e.findMatches()
	if avail < 2 {
		e.push(1, litMarker)
		return
	}
	limit := avail
	if limit > maxMatchLen {
		limit = maxMatchLen
	}
	repBest, repIdx := 0, 0
	for i := 0; i < 4; i++ {
		l := repLen(buf, pos, e.spos, e.reps[i], limit)
		if l > repBest {
			repBest, repIdx = l, i
		}
	}
	if repBest >= e.nice {
		e.push(uint32(repBest), e.reps[repIdx])
		e.skip(repBest - 1)
		return
	}
	mainLen, mainDist := 0, uint32(0)
	if len(ms) > 0 {
		m := ms[len(ms)-1]
		mainLen, mainDist = int(m.len), m.dist
		if mainLen >= e.nice {
			mainLen = e.extend(buf, pos, mainDist, mainLen, limit)
			e.push(uint32(mainLen), mainDist)
			e.skip(mainLen - 1)
			return
		}
		for n := len(ms) - 1; n > 0; n-- {
			p := ms[n-1]
			if mainLen != int(p.len)+1 || !changePair(p.dist, mainDist) {
				break
			}
			mainLen, mainDist = int(p.len), p.dist
		}
		if mainLen == 2 && mainDist >= 0x80 {
			mainLen = 1
		}
	}
	if repBest >= 2 && (repBest+1 >= mainLen || repBest+2 >= mainLen && mainDist >= 1<<9 ||
		repBest+3 >= mainLen && mainDist >= 1<<15) {
		e.push(uint32(repBest), e.reps[repIdx])
		e.skip(repBest - 1)
		return
	}
	if mainLen < 2 {
		e.push(1, litMarker)
		return
	}
	// Lazy step: look at the next position.
	e.next = e.find(e.next)
	e.haveNext = true
	if len(e.next) > 0 {
		n := e.next[len(e.next)-1]
		nl, nd := int(n.len), n.dist
		if nl >= mainLen && nd < mainDist || nl == mainLen+1 && !changePair(mainDist, nd) ||
			nl > mainLen+1 || nl+1 >= mainLen && mainLen >= 3 && changePair(nd, mainDist) {
			e.push(1, litMarker)
			return
		}
	}
	lim := mainLen - 1
	if lim < 2 {
		lim = 2
	}
	if avail > lim {
		for i := 0; i < 4; i++ {
			if repLen(buf, pos+1, e.spos+1, e.reps[i], lim) >= lim {
				e.push(1, litMarker)
				return
			}
		}
	}
	e.haveNext = false
	e.push(uint32(mainLen), mainDist)
	e.skip(mainLen - 2)
}

// extend lengthens a match found at the nice length up to limit.
func (e *encoder) extend(buf []byte, pos int, dist uint32, l, limit int) int {
	j := pos - int(dist) - 1
	return l + matchLen(buf, pos+l, j+l, limit-l)
}

// parseOptimal appends the cheapest parse of the next positions.
func (e *encoder) parseOptimal() {
	mf := e.mf
	buf := mf.buf
	pos := e.ep // mf.pos is one further when matches were found ahead
	avail := mf.end - pos
	ms := e.findMatches()
	if avail < 2 {
		e.push(1, litMarker)
		return
	}
	limit := avail
	if limit > maxMatchLen {
		limit = maxMatchLen
	}
	sp := e.spos
	var repLens [4]int
	repMax := 0
	for i := 0; i < 4; i++ {
		repLens[i] = repLen(buf, pos, sp, e.reps[i], limit)
		if repLens[i] > repLens[repMax] {
			repMax = i
		}
	}
	if repLens[repMax] >= e.nice {
		e.push(uint32(repLens[repMax]), e.reps[repMax])
		e.skip(repLens[repMax] - 1)
		return
	}
	mainLen := 0
	if len(ms) > 0 {
		mainLen = int(ms[len(ms)-1].len)
		if mainLen >= e.nice {
			d := ms[len(ms)-1].dist
			l := e.extend(buf, pos, d, mainLen, limit)
			e.push(uint32(l), d)
			e.skip(l - 1)
			return
		}
	}
	curByte := buf[pos]
	hasRep0 := int64(e.reps[0]) < sp && int(e.reps[0]) < pos
	matchByte := ^curByte
	if hasRep0 {
		matchByte = buf[pos-int(e.reps[0])-1]
	}
	if mainLen < 2 && curByte != matchByte && repLens[repMax] < 2 {
		e.push(1, litMarker)
		return
	}

	opt := e.opt
	st := e.state
	posState := uint32(sp) & e.pbMask
	isM := e.probs[offIsMatch+int(st)<<4+int(posState)]
	opt[0] = optNode{state: st, reps: e.reps}
	opt[1] = optNode{price: price0(isM) + e.literalPrice(buf, pos, sp, st, e.reps[0]), prev: 0, kind: stepLiteral, len: 1, dist: litMarker}
	matchBase := price1(isM)
	repBase := matchBase + price1(e.probs[offIsRep+int(st)])
	if curByte == matchByte && hasRep0 {
		pr := repBase + price0(e.probs[offIsRepG0+int(st)]) + price0(e.probs[offIsRep0Long+int(st)<<4+int(posState)])
		if pr < opt[1].price {
			opt[1] = optNode{price: pr, kind: stepShortRep, len: 1, dist: e.reps[0]}
		}
	}
	end := mainLen
	if repLens[repMax] > end {
		end = repLens[repMax]
	}
	if end < 2 {
		s := opt[1]
		e.push(1, s.dist)
		return
	}
	for i := 2; i <= end; i++ {
		opt[i].price = infinity
	}
	for i := 0; i < 4; i++ {
		rl := repLens[i]
		if rl < 2 {
			continue
		}
		pr0 := repBase + e.repIndexPrice(i, st, posState)
		lp := &e.lenPrices[1][posState]
		for l := 2; l <= rl; l++ {
			pr := pr0 + lp[l-2]
			if pr < opt[l].price {
				opt[l] = optNode{price: pr, prev: 0, kind: stepRep, len: uint32(l), dist: e.reps[i]}
			}
		}
	}
	if mainLen >= 2 {
		normBase := matchBase + price0(e.probs[offIsRep+int(st)])
		l := 2
		if repLens[0] >= 2 {
			l = repLens[0] + 1
		}
		lp := &e.lenPrices[0][posState]
		mi := 0
		for ; l <= mainLen; l++ {
			for int(ms[mi].len) < l {
				mi++
			}
			d := ms[mi].dist
			pr := normBase + lp[l-2] + e.distPrice(d, uint32(l-2))
			if pr < opt[l].price {
				opt[l] = optNode{price: pr, prev: 0, kind: stepMatch, len: uint32(l), dist: d}
			}
		}
	}

	cur := 0
	for {
		cur++
		if cur >= end {
			e.backtrack(end)
			return
		}
		if cur >= numOpts {
			e.backtrack(cur)
			return
		}
		// Derive the state at cur from its best predecessor.
		n := &opt[cur]
		pn := &opt[n.prev]
		nst := pn.state
		n.reps = pn.reps
		switch n.kind {
		case stepLiteral:
			nst = stateAfterLit(nst)
		case stepShortRep:
			nst = stateAfterShortRep(nst)
		case stepRep:
			nst = stateAfterRep(nst)
			n.reps = repsAfterRep(n.reps, n.dist)
		case stepMatch:
			nst = stateAfterMatch(nst)
			n.reps = [4]uint32{n.dist, pn.reps[0], pn.reps[1], pn.reps[2]}
		case stepComposite:
			switch n.first {
			case stepRep:
				nst = stateAfterRep(nst)
				n.reps = repsAfterRep(n.reps, n.dist)
			case stepMatch:
				nst = stateAfterMatch(nst)
				n.reps = [4]uint32{n.dist, pn.reps[0], pn.reps[1], pn.reps[2]}
			}
			nst = stateAfterRep(stateAfterLit(nst))
		}
		n.state = nst

		ms = e.findMatches()
		newLen := 0
		if len(ms) > 0 {
			newLen = int(ms[len(ms)-1].len)
		}
		if newLen >= e.nice {
			// Take the long match in the next step.
			e.next, e.ms = e.ms, e.next
			e.haveNext = true
			e.backtrack(cur)
			return
		}
		p := pos + cur
		csp := sp + int64(cur)
		cavail := mf.end - p
		climit := cavail
		if climit > maxMatchLen {
			climit = maxMatchLen
		}
		price := n.price
		cps := uint32(csp) & e.pbMask
		reps := n.reps
		cb := buf[p]
		crep0 := int64(reps[0]) < csp && int(reps[0]) < p
		mb := ^cb
		if crep0 {
			mb = buf[p-int(reps[0])-1]
		}
		isM := e.probs[offIsMatch+int(nst)<<4+int(cps)]
		// Literal.
		lit := price + price0(isM) + e.literalPrice(buf, p, csp, nst, reps[0])
		nx := &opt[cur+1]
		if cur+1 > end {
			end = cur + 1
			nx.price = infinity
		}
		if lit < nx.price {
			*nx = optNode{price: lit, prev: int32(cur), kind: stepLiteral, len: 1, dist: litMarker}
		}
		mBase := price + price1(isM)
		rBase := mBase + price1(e.probs[offIsRep+int(nst)])
		// Literal, then rep0.
		if e.composites && crep0 && mb != cb && cavail > 2 {
			if l2 := e.tailRep0(buf, p+1, reps[0], cavail-1); l2 >= 2 {
				pr := lit + e.rep0Price(stateAfterLit(nst), csp+1, l2)
				e.relaxComposite(cur, &end, pr, stepNone, 0, reps[0], 1+l2)
			}
		}
		// Short rep.
		if crep0 && mb == cb {
			pr := rBase + price0(e.probs[offIsRepG0+int(nst)]) + price0(e.probs[offIsRep0Long+int(nst)<<4+int(cps)])
			if pr < nx.price {
				*nx = optNode{price: pr, prev: int32(cur), kind: stepShortRep, len: 1, dist: reps[0]}
			}
		}
		if climit < 2 {
			continue
		}
		start := 2
		lpr := &e.lenPrices[1][cps]
		for i := 0; i < 4; i++ {
			rl := repLen(buf, p, csp, reps[i], climit)
			if rl < 2 {
				continue
			}
			for end < cur+rl {
				end++
				opt[end].price = infinity
			}
			pr0 := rBase + e.repIndexPrice(i, nst, cps)
			for l := rl; l >= 2; l-- {
				pr := pr0 + lpr[l-2]
				o := &opt[cur+l]
				if pr < o.price {
					*o = optNode{price: pr, prev: int32(cur), kind: stepRep, len: uint32(l), dist: reps[i]}
				}
			}
			// Rep, literal, rep0.
			if e.composites && rl+2 < cavail {
				if l2 := e.tailRep0(buf, p+rl+1, reps[i], cavail-rl-1); l2 >= 2 {
					s1 := stateAfterRep(nst)
					pr := pr0 + lpr[rl-2] + e.litAfter(buf, p+rl, csp+int64(rl), s1, reps[i]) +
						e.rep0Price(stateAfterLit(s1), csp+int64(rl)+1, l2)
					e.relaxComposite(cur, &end, pr, stepRep, rl, reps[i], rl+1+l2)
				}
			}
			if i == 0 {
				start = rl + 1
			}
		}
		if newLen >= start {
			for end < cur+newLen {
				end++
				opt[end].price = infinity
			}
			normBase := mBase + price0(e.probs[offIsRep+int(nst)])
			lpm := &e.lenPrices[0][cps]
			mi := 0
			for l := start; l <= newLen; l++ {
				for int(ms[mi].len) < l {
					mi++
				}
				d := ms[mi].dist
				pr := normBase + lpm[l-2] + e.distPrice(d, uint32(l-2))
				o := &opt[cur+l]
				if pr < o.price {
					*o = optNode{price: pr, prev: int32(cur), kind: stepMatch, len: uint32(l), dist: d}
				}
				// Match, literal, rep0 (at the full length of each distance).
				if e.composites && l == int(ms[mi].len) && l+2 < cavail {
					if l2 := e.tailRep0(buf, p+l+1, d, cavail-l-1); l2 >= 2 {
						s1 := stateAfterMatch(nst)
						pr += e.litAfter(buf, p+l, csp+int64(l), s1, d) +
							e.rep0Price(stateAfterLit(s1), csp+int64(l)+1, l2)
						e.relaxComposite(cur, &end, pr, stepMatch, l, d, l+1+l2)
					}
				}
			}
		}
	}
}

// tailRep0 returns the length of the match at q with 0-based distance
// dist, limited to avail and the nice length.
func (e *encoder) tailRep0(buf []byte, q int, dist uint32, avail int) int {
	limit := min(avail, e.nice)
	j := q - int(dist) - 1
	if limit < 2 || buf[q] != buf[j] || buf[q+1] != buf[j+1] {
		return 0
	}
	return 2 + matchLen(buf, q+2, j+2, limit-2)
}

// litAfter is the price of a literal (with its isMatch bit) at q in state st.
func (e *encoder) litAfter(buf []byte, q int, sp int64, st, rep0 uint32) uint32 {
	ps := uint32(sp) & e.pbMask
	return price0(e.probs[offIsMatch+int(st)<<4+int(ps)]) + e.literalPrice(buf, q, sp, st, rep0)
}

// rep0Price is the price of a rep0 match of length l in state st.
func (e *encoder) rep0Price(st uint32, sp int64, l int) uint32 {
	ps := uint32(sp) & e.pbMask
	return price1(e.probs[offIsMatch+int(st)<<4+int(ps)]) + price1(e.probs[offIsRep+int(st)]) +
		e.repIndexPrice(0, st, ps) + e.lenPrices[1][ps][l-2]
}

// relaxComposite offers a composite step from cur.
func (e *encoder) relaxComposite(cur int, end *int, price uint32, first stepKind, len1 int, dist uint32, total int) {
	opt := e.opt
	for *end < cur+total {
		*end++
		opt[*end].price = infinity
	}
	o := &opt[cur+total]
	if price < o.price {
		*o = optNode{price: price, prev: int32(cur), kind: stepComposite, first: first, len1: uint32(len1), len: uint32(total), dist: dist}
	}
}

// backtrack appends the cheapest path from opt[0] to opt[cur].
func (e *encoder) backtrack(cur int) {
	opt := e.opt
	start := len(e.pend)
	for i := cur; i > 0; i = int(opt[i].prev) {
		n := &opt[i]
		if n.kind == stepComposite {
			// Appended in reverse: rep0, literal, first symbol.
			e.pend = append(e.pend, symbol{n.len - n.len1 - 1, n.dist}, symbol{1, litMarker})
			if n.first != stepNone {
				e.pend = append(e.pend, symbol{n.len1, n.dist})
			}
			continue
		}
		e.pend = append(e.pend, symbol{n.len, n.dist})
	}
	s := e.pend[start:]
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// encodeSome codes symbols until the input parsed so far is exhausted or
// the current chunk is full: packed size above maxPacked or maxUnpacked
// reached. With final false it also stops while less than lookahead bytes
// remain after the match finder's position. It returns an error only when
// the context is cancelled; the encoder must then be reset before reuse.
func (e *encoder) encodeSome(maxPacked int64, maxUnpacked int, final bool) error {
	start := e.ep
	for {
		if e.pendIdx == len(e.pend) {
			e.pend = e.pend[:0]
			e.pendIdx = 0
			if e.ep >= e.mf.end {
				return nil
			}
			if !final && e.mf.end-e.mf.pos < lookahead {
				return nil
			}
			if e.ep >= e.checkAt {
				e.checkAt = e.ep + cancelCheckInterval
				if err := e.cancelled(); err != nil {
					return err
				}
			}
			if e.fast {
				e.parseFast()
			} else {
				e.updatePrices()
				e.parseOptimal()
			}
		}
		s := e.pend[e.pendIdx]
		if e.ep-start+int(s.len) > maxUnpacked {
			return nil
		}
		e.encodeSymbol(s)
		e.pendIdx++
		if e.rc.size() > maxPacked {
			return nil
		}
	}
}

// preloadFull is how much of a block's history is inserted into a binary
// tree as searching would (the rest enters the hash tables only): inserting
// all of it gains almost nothing in size for seconds of CPU time per block
// (docs/PERFORMANCE.md).
const preloadFull = 1 << 20
