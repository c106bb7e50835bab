package ppmd

import "encoding/binary"

// PPMd variant I revision 1 (Dmitry Shkarin's PPMdI of 2002), the model
// ZIP method 98 uses, coupled to Dmitry Subbotin's carry-less range
// coder. It is a relative of variant H (Model): the same order-N
// context tree with symbol lists in a sub-allocated arena of 12-byte
// units, binary contexts with adaptive probabilities, and secondary
// escape estimation, with these differences: contexts carry flags (the
// context was rescaled; it or its predecessor saw a byte ≥ 0x40) that
// select probabilities; the SEE and binary tables are indexed
// differently; successors are created for more suffix contexts; and
// when the arena is full the model is either restarted or, with
// restoration method 1 ("cut off"), pruned of its deepest contexts and
// kept. Decoding must evolve the model exactly as the encoder did; this
// follows the algorithm as 7-Zip's Ppmd8.c implements it (its
// "rev. 1" behaviour, without the freeze mode that 7-Zip leaves out too).
//
// The arena is a byte slice addressed by uint32 offsets; offset 0 is the
// null reference. A context is 12 bytes: NumStats (symbols − 1), Flags,
// SummFreq (or, with one symbol, that symbol and its frequency), Stats
// (or the single symbol's successor), Suffix. A state is 6 bytes: Symbol,
// Freq, Successor. Free blocks are 12-byte nodes: Stamp, Next, NU.

const (
	p8MaxOrder    = 16
	p8MaxFreq     = 124
	p8UnitSize    = 12
	p8NumIndexes  = 38
	p8IntBits     = 7
	p8PeriodBits  = 7
	p8BinScale    = 1 << (p8IntBits + p8PeriodBits)
	p8EmptyNode   = 0xFFFFFFFF
	p8FlagRescale = 1 << 2
	p8FlagPrevHi  = 1 << 4
)

var (
	p8ExpEscape  = [16]byte{25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2}
	p8InitBinEsc = [8]uint16{0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051}
)

// The fixed tables, built once.
var (
	p8Indx2Units [p8NumIndexes]byte
	p8Units2Indx [128]byte
	p8NS2BSIndx  [256]byte
	p8NS2Indx    [260]byte
)

func init() {
	k := 0
	for i := 0; i < p8NumIndexes; i++ {
		step := 4
		if i < 12 {
			step = i>>2 + 1
		}
		for ; step > 0; step-- {
			p8Units2Indx[k] = byte(i)
			k++
		}
		p8Indx2Units[i] = byte(k)
	}
	p8NS2BSIndx[0] = 0
	p8NS2BSIndx[1] = 2
	for i := 2; i < 11; i++ {
		p8NS2BSIndx[i] = 4
	}
	for i := 11; i < 256; i++ {
		p8NS2BSIndx[i] = 6
	}
	i := 0
	for ; i < 5; i++ {
		p8NS2Indx[i] = byte(i)
	}
	m, step := i, 1
	for ; i < 260; i++ {
		p8NS2Indx[i] = byte(m)
		step--
		if step == 0 {
			m++
			step = m - 4
		}
	}
}

type p8See struct {
	summ  uint16
	shift byte
	count byte
}

func (s *p8See) update() {
	if s.shift < p8PeriodBits {
		s.count--
		if s.count == 0 {
			s.summ <<= 1
			s.count = byte(3 << s.shift)
			s.shift++
		}
	}
}

// model8 is the model and range decoder state.
type model8 struct {
	mem                         []byte
	size, align                 uint32
	minContext, maxContext      uint32
	foundState                  uint32
	orderFall, initEsc          uint32
	prevSuccess, maxOrder       uint32
	restoreMethod               uint32
	runLength, initRL           int32
	glueCount                   uint32
	loUnit, hiUnit, text, units uint32 // units: UnitsStart
	freeList                    [p8NumIndexes]uint32
	stamps                      [p8NumIndexes]uint32
	see                         [24][32]p8See
	dummySee                    p8See
	binSumm                     [25][64]uint16
	rc                          rangeDecoder // the RAR (Subbotin) flavour
	charMask                    [256]byte
}

// Arena accessors.
func (p *model8) u16(o uint32) uint32      { return uint32(binary.LittleEndian.Uint16(p.mem[o:])) }
func (p *model8) u32(o uint32) uint32      { return binary.LittleEndian.Uint32(p.mem[o:]) }
func (p *model8) put16(o uint32, v uint32) { binary.LittleEndian.PutUint16(p.mem[o:], uint16(v)) }
func (p *model8) put32(o uint32, v uint32) { binary.LittleEndian.PutUint32(p.mem[o:], v) }

// Context fields.
func (p *model8) numStats(c uint32) uint32       { return uint32(p.mem[c]) }
func (p *model8) setNumStats(c uint32, v uint32) { p.mem[c] = byte(v) }
func (p *model8) flags(c uint32) uint32          { return uint32(p.mem[c+1]) }
func (p *model8) setFlags(c uint32, v uint32)    { p.mem[c+1] = byte(v) }
func (p *model8) summFreq(c uint32) uint32       { return p.u16(c + 2) }
func (p *model8) setSummFreq(c uint32, v uint32) { p.put16(c+2, v) }
func (p *model8) stats(c uint32) uint32          { return p.u32(c + 4) }
func (p *model8) setStats(c uint32, v uint32)    { p.put32(c+4, v) }
func (p *model8) suffix(c uint32) uint32         { return p.u32(c + 8) }
func (p *model8) setSuffix(c uint32, v uint32)   { p.put32(c+8, v) }
func p8OneState(c uint32) uint32                 { return c + 2 }
func (p *model8) sym(s uint32) uint32            { return uint32(p.mem[s]) }
func (p *model8) freq(s uint32) uint32           { return uint32(p.mem[s+1]) }
func (p *model8) setFreq(s uint32, v uint32)     { p.mem[s+1] = byte(v) }
func (p *model8) succ(s uint32) uint32           { return p.u32(s + 2) }
func (p *model8) setSucc(s uint32, v uint32)     { p.put32(s+2, v) }
func (p *model8) copyState(dst, src uint32)      { copy(p.mem[dst:dst+6], p.mem[src:src+6]) }
func (p *model8) copyUnits(dst, src, nu uint32) {
	copy(p.mem[dst:dst+nu*p8UnitSize], p.mem[src:src+nu*p8UnitSize])
}
func (p *model8) swapStates(a, b uint32) {
	var t [6]byte
	copy(t[:], p.mem[a:a+6])
	copy(p.mem[a:a+6], p.mem[b:b+6])
	copy(p.mem[b:b+6], t[:])
}

func p8I2U(i uint32) uint32  { return uint32(p8Indx2Units[i]) }
func p8U2I(nu uint32) uint32 { return uint32(p8Units2Indx[nu-1]) }

func p8HiBits3(sym uint32) uint32 { return ((sym + 0xC0) >> (8 - 3)) & (1 << 3) }
func p8HiBits4(sym uint32) uint32 { return ((sym + 0xC0) >> (8 - 4)) & (1 << 4) }

// ---- sub-allocator

func (p *model8) insertNode(n, indx uint32) {
	p.put32(n, p8EmptyNode)
	p.put32(n+4, p.freeList[indx])
	p.put32(n+8, p8I2U(indx))
	p.freeList[indx] = n
	p.stamps[indx]++
}

func (p *model8) removeNode(indx uint32) uint32 {
	n := p.freeList[indx]
	p.freeList[indx] = p.u32(n + 4)
	p.stamps[indx]--
	return n
}

func (p *model8) splitBlock(ptr, oldIndx, newIndx uint32) {
	nu := p8I2U(oldIndx) - p8I2U(newIndx)
	ptr += p8I2U(newIndx) * p8UnitSize
	i := p8U2I(nu)
	if p8I2U(i) != nu {
		i--
		k := p8I2U(i)
		p.insertNode(ptr+k*p8UnitSize, nu-k-1)
	}
	p.insertNode(ptr, i)
}

func (p *model8) glueFreeBlocks() {
	p.glueCount = 1 << 13
	p.stamps = [p8NumIndexes]uint32{}
	if p.loUnit != p.hiUnit {
		p.put32(p.loUnit, 0)
	}
	// Chain every free block into one list, merging each with the free
	// blocks that follow it in memory. prev is where the next link goes:
	// the list head (0) or a node's Next field.
	var head uint32
	prevNode := uint32(0)
	hasPrev := false
	setPrev := func(v uint32) {
		if hasPrev {
			p.put32(prevNode+4, v)
		} else {
			head = v
		}
	}
	for i := 0; i < p8NumIndexes; i++ {
		next := p.freeList[i]
		p.freeList[i] = 0
		for next != 0 {
			node := next
			nu := p.u32(node + 8)
			setPrev(next)
			next = p.u32(node + 4)
			if nu != 0 {
				prevNode, hasPrev = node, true
				for {
					node2 := node + nu*p8UnitSize
					if p.u32(node2) != p8EmptyNode {
						break
					}
					nu += p.u32(node2 + 8)
					p.put32(node2+8, 0)
					p.put32(node+8, nu)
				}
			}
		}
	}
	setPrev(0)
	for n := head; n != 0; {
		node := n
		nu := p.u32(node + 8)
		n = p.u32(node + 4)
		if nu == 0 {
			continue
		}
		for ; nu > 128; nu, node = nu-128, node+128*p8UnitSize {
			p.insertNode(node, p8NumIndexes-1)
		}
		i := p8U2I(nu)
		if p8I2U(i) != nu {
			i--
			k := p8I2U(i)
			p.insertNode(node+k*p8UnitSize, nu-k-1)
		}
		p.insertNode(node, i)
	}
}

func (p *model8) allocUnitsRare(indx uint32) uint32 {
	if p.glueCount == 0 {
		p.glueFreeBlocks()
		if p.freeList[indx] != 0 {
			return p.removeNode(indx)
		}
	}
	i := indx
	for {
		i++
		if i == p8NumIndexes {
			numBytes := p8I2U(indx) * p8UnitSize
			us := p.units
			p.glueCount--
			if us-p.text > numBytes {
				p.units = us - numBytes
				return p.units
			}
			return 0
		}
		if p.freeList[i] != 0 {
			break
		}
	}
	block := p.removeNode(i)
	p.splitBlock(block, i, indx)
	return block
}

func (p *model8) allocUnits(indx uint32) uint32 {
	if p.freeList[indx] != 0 {
		return p.removeNode(indx)
	}
	numBytes := p8I2U(indx) * p8UnitSize
	if lo := p.loUnit; p.hiUnit-lo >= numBytes {
		p.loUnit = lo + numBytes
		return lo
	}
	return p.allocUnitsRare(indx)
}

func (p *model8) shrinkUnits(old, oldNU, newNU uint32) uint32 {
	i0, i1 := p8U2I(oldNU), p8U2I(newNU)
	if i0 == i1 {
		return old
	}
	if p.freeList[i1] != 0 {
		ptr := p.removeNode(i1)
		p.copyUnits(ptr, old, newNU)
		p.insertNode(old, i0)
		return ptr
	}
	p.splitBlock(old, i0, i1)
	return old
}

func (p *model8) freeUnits(ptr, nu uint32) { p.insertNode(ptr, p8U2I(nu)) }

func (p *model8) specialFreeUnit(ptr uint32) {
	if ptr != p.units {
		p.insertNode(ptr, 0)
	} else {
		p.units += p8UnitSize
	}
}

func (p *model8) expandTextArea() {
	var count [p8NumIndexes]uint32
	if p.loUnit != p.hiUnit {
		p.put32(p.loUnit, 0)
	}
	node := p.units
	for p.u32(node) == p8EmptyNode {
		nu := p.u32(node + 8)
		p.put32(node, 0)
		count[p8U2I(nu)]++
		node += nu * p8UnitSize
	}
	p.units = node
	for i := range count {
		cnt := count[i]
		if cnt == 0 {
			continue
		}
		p.stamps[i] -= cnt
		prevNode, hasPrev := uint32(0), false
		n := p.freeList[i]
		for {
			node := n
			n = p.u32(node + 4)
			if p.u32(node) != 0 {
				prevNode, hasPrev = node, true
				continue
			}
			if hasPrev {
				p.put32(prevNode+4, n)
			} else {
				p.freeList[i] = n
			}
			cnt--
			if cnt == 0 {
				break
			}
		}
	}
}

func (p *model8) usedMemory() uint32 {
	var v uint32
	for i := range p.stamps {
		v += p.stamps[i] * p8I2U(uint32(i))
	}
	return p.size - (p.hiUnit - p.loUnit) - (p.units - p.text) - v*p8UnitSize
}

// ---- model

func (p *model8) restartModel() {
	p.freeList = [p8NumIndexes]uint32{}
	p.stamps = [p8NumIndexes]uint32{}
	p.text = p.align
	p.hiUnit = p.text + p.size
	p.loUnit = p.hiUnit - p.size/8/p8UnitSize*7*p8UnitSize
	p.units = p.loUnit
	p.glueCount = 0
	p.orderFall = p.maxOrder
	p.initRL = -int32(min(p.maxOrder, 12)) - 1
	p.runLength = p.initRL
	p.prevSuccess = 0

	p.hiUnit -= p8UnitSize
	mc := p.hiUnit
	s := p.loUnit
	p.loUnit += 256 / 2 * p8UnitSize
	p.maxContext, p.minContext = mc, mc
	p.foundState = s
	p.setFlags(mc, 0)
	p.setNumStats(mc, 255)
	p.setSummFreq(mc, 257)
	p.setStats(mc, s)
	p.setSuffix(mc, 0)
	for i := uint32(0); i < 256; i++ {
		st := s + i*6
		p.mem[st] = byte(i)
		p.mem[st+1] = 1
		p.setSucc(st, 0)
	}
	i := 0
	for m := 0; m < 25; m++ {
		for int(p8NS2Indx[i]) == m {
			i++
		}
		for k := 0; k < 8; k++ {
			val := uint16(p8BinScale - uint32(p8InitBinEsc[k])/uint32(i+1))
			for r := 0; r < 64; r += 8 {
				p.binSumm[m][k+r] = val
			}
		}
	}
	i = 0
	for m := 0; m < 24; m++ {
		for int(p8NS2Indx[i+3]) == m+3 {
			i++
		}
		summ := uint16((2*i + 5) << (p8PeriodBits - 4))
		for k := range p.see[m] {
			p.see[m][k] = p8See{summ: summ, shift: p8PeriodBits - 4, count: 7}
		}
	}
	p.dummySee = p8See{summ: 0, shift: p8PeriodBits, count: 64}
}

// refresh shrinks a context's symbol list after symbols were removed and
// scales its frequencies.
func (p *model8) refresh(ctx, oldNU, scale uint32) {
	i := p.numStats(ctx)
	s := p.shrinkUnits(p.stats(ctx), oldNU, (i+2)>>1)
	p.setStats(ctx, s)
	if p.summFreq(ctx) >= 1<<15 {
		scale |= 1
	}
	flags := p.sym(s) + 0xC0
	freq := p.freq(s)
	escFreq := p.summFreq(ctx) - freq
	freq = (freq + scale) >> scale
	sumFreq := freq
	p.setFreq(s, freq)
	for ; i > 0; i-- {
		s += 6
		freq = p.freq(s)
		escFreq -= freq
		freq = (freq + scale) >> scale
		sumFreq += freq
		p.setFreq(s, freq)
		flags |= p.sym(s) + 0xC0
	}
	p.setSummFreq(ctx, sumFreq+((escFreq+scale)>>scale))
	p.setFlags(ctx, (p.flags(ctx)&(p8FlagPrevHi+p8FlagRescale*scale))+((flags>>(8-3))&(1<<3)))
}

// cutOff prunes the context tree below ctx (restoration method 1).
func (p *model8) cutOff(ctx, order uint32) uint32 {
	ns := int(p.numStats(ctx))
	if ns == 0 {
		s := p8OneState(ctx)
		successor := p.succ(s)
		if successor >= p.units {
			if order < p.maxOrder {
				successor = p.cutOff(successor, order+1)
			} else {
				successor = 0
			}
			p.setSucc(s, successor)
			if successor != 0 || order <= 9 {
				return ctx
			}
		}
		p.specialFreeUnit(ctx)
		return 0
	}
	nu := (uint32(ns) + 2) >> 1
	indx := p8U2I(nu)
	stats := p.stats(ctx)
	if stats-p.units <= 1<<14 && stats <= p.freeList[indx] {
		ptr := p.removeNode(indx)
		p.setStats(ctx, ptr)
		p.copyUnits(ptr, stats, nu)
		if stats != p.units {
			p.insertNode(stats, indx)
		} else {
			p.units += p8I2U(indx) * p8UnitSize
		}
		stats = ptr
	}
	for k := ns; k >= 0; k-- {
		s := stats + uint32(k)*6
		successor := p.succ(s)
		if successor < p.units {
			s2 := stats + uint32(ns)*6
			ns--
			if order != 0 {
				if s != s2 {
					p.copyState(s, s2)
				}
			} else {
				p.swapStates(s, s2)
				p.setSucc(s2, 0)
			}
		} else if order < p.maxOrder {
			p.setSucc(s, p.cutOff(successor, order+1))
		} else {
			p.setSucc(s, 0)
		}
	}
	if ns != int(p.numStats(ctx)) && order != 0 {
		if ns < 0 {
			p.freeUnits(stats, nu)
			p.specialFreeUnit(ctx)
			return 0
		}
		p.setNumStats(ctx, uint32(ns))
		if ns == 0 {
			sym := p.sym(stats)
			p.setFlags(ctx, (p.flags(ctx)&p8FlagPrevHi)+p8HiBits3(sym))
			one := p8OneState(ctx)
			freq := (p.freq(stats) + 11) >> 3
			succ := p.succ(stats)
			p.mem[one] = byte(sym)
			p.setFreq(one, freq)
			p.setSucc(one, succ)
			p.freeUnits(stats, nu)
		} else {
			scale := uint32(0)
			if p.summFreq(ctx) > 16*uint32(ns) {
				scale = 1
			}
			p.refresh(ctx, nu, scale)
		}
	}
	return ctx
}

// restoreModel recovers from a failed allocation: the symbols added
// since ctxError are rolled back, then the model is restarted or cut off.
func (p *model8) restoreModel(ctxError uint32) {
	p.text = p.align
	c := p.maxContext
	for ; c != ctxError; c = p.suffix(c) {
		ns := p.numStats(c) - 1
		p.setNumStats(c, ns)
		if ns&0xFF == 0 {
			s := p.stats(c)
			p.setFlags(c, (p.flags(c)&p8FlagPrevHi)+p8HiBits3(p.sym(s)))
			one := p8OneState(c)
			sym, freq, succ := p.sym(s), (p.freq(s)+11)>>3, p.succ(s)
			p.mem[one] = byte(sym)
			p.setFreq(one, freq)
			p.setSucc(one, succ)
			p.specialFreeUnit(s)
		} else {
			p.refresh(c, (p.numStats(c)+3)>>1, 0)
		}
	}
	for ; c != p.minContext; c = p.suffix(c) {
		if p.numStats(c) == 0 {
			one := p8OneState(c)
			p.setFreq(one, (p.freq(one)+1)>>1)
		} else {
			sf := (p.summFreq(c) + 4) & 0xFFFF
			p.setSummFreq(c, sf)
			if sf > 128+4*p.numStats(c) {
				p.refresh(c, (p.numStats(c)+2)>>1, 1)
			}
		}
	}
	if p.restoreMethod == 0 || p.usedMemory() < p.size>>1 {
		p.restartModel()
	} else {
		for p.suffix(p.maxContext) != 0 {
			p.maxContext = p.suffix(p.maxContext)
		}
		for {
			p.cutOff(p.maxContext, 0)
			p.expandTextArea()
			if p.usedMemory() <= 3*(p.size>>2) {
				break
			}
		}
		p.glueCount = 0
		p.orderFall = p.maxOrder
	}
	p.minContext = p.maxContext
}

func (p *model8) createSuccessors(skip bool, s1, c uint32) uint32 {
	upBranch := p.succ(p.foundState)
	var ps [p8MaxOrder + 1]uint32
	numPs := 0
	if !skip {
		ps[numPs] = p.foundState
		numPs++
	}
	for p.suffix(c) != 0 {
		c = p.suffix(c)
		var s uint32
		switch {
		case s1 != 0:
			s, s1 = s1, 0
		case p.numStats(c) != 0:
			sym := p.sym(p.foundState)
			for s = p.stats(c); p.sym(s) != sym; s += 6 {
			}
			if p.freq(s) < p8MaxFreq-9 {
				p.setFreq(s, p.freq(s)+1)
				p.setSummFreq(c, p.summFreq(c)+1)
			}
		default:
			s = p8OneState(c)
			if p.numStats(p.suffix(c)) == 0 && p.freq(s) < 24 {
				p.setFreq(s, p.freq(s)+1)
			}
		}
		successor := p.succ(s)
		if successor != upBranch {
			c = successor
			if numPs == 0 {
				return c
			}
			break
		}
		ps[numPs] = s
		numPs++
	}
	newSym := uint32(p.mem[upBranch])
	upBranch++
	flags := p8HiBits4(p.sym(p.foundState)) + p8HiBits3(newSym)
	var newFreq uint32
	if p.numStats(c) == 0 {
		newFreq = p.freq(p8OneState(c))
	} else {
		s := p.stats(c)
		for p.sym(s) != newSym {
			s += 6
		}
		cf := p.freq(s) - 1
		s0 := p.summFreq(c) - p.numStats(c) - cf
		if 2*cf <= s0 {
			newFreq = 1
			if 5*cf > s0 {
				newFreq = 2
			}
		} else {
			newFreq = 1 + (cf+2*s0-3)/s0
		}
	}
	for {
		var c1 uint32
		switch {
		case p.hiUnit != p.loUnit:
			p.hiUnit -= p8UnitSize
			c1 = p.hiUnit
		case p.freeList[0] != 0:
			c1 = p.removeNode(0)
		default:
			c1 = p.allocUnitsRare(0)
			if c1 == 0 {
				return 0
			}
		}
		p.setFlags(c1, flags)
		p.setNumStats(c1, 0)
		one := p8OneState(c1)
		p.mem[one] = byte(newSym)
		p.setFreq(one, newFreq)
		p.setSucc(one, upBranch)
		p.setSuffix(c1, c)
		numPs--
		p.setSucc(ps[numPs], c1)
		c = c1
		if numPs == 0 {
			return c
		}
	}
}

func (p *model8) reduceOrder(s1, c uint32) uint32 {
	var s uint32
	c1 := c
	upBranch := p.text
	p.setSucc(p.foundState, upBranch)
	p.orderFall++
	for {
		if s1 != 0 {
			c = p.suffix(c)
			s, s1 = s1, 0
		} else {
			if p.suffix(c) == 0 {
				return c
			}
			c = p.suffix(c)
			if p.numStats(c) != 0 {
				sym := p.sym(p.foundState)
				for s = p.stats(c); p.sym(s) != sym; s += 6 {
				}
				if p.freq(s) < p8MaxFreq-9 {
					p.setFreq(s, p.freq(s)+2)
					p.setSummFreq(c, p.summFreq(c)+2)
				}
			} else {
				s = p8OneState(c)
				if p.freq(s) < 32 {
					p.setFreq(s, p.freq(s)+1)
				}
			}
		}
		if p.succ(s) != 0 {
			break
		}
		p.setSucc(s, upBranch)
		p.orderFall++
	}
	if p.succ(s) <= upBranch {
		s2 := p.foundState
		p.foundState = s
		p.setSucc(s, p.createSuccessors(false, 0, c))
		p.foundState = s2
	}
	successor := p.succ(s)
	if p.orderFall == 1 && c1 == p.maxContext {
		p.setSucc(p.foundState, successor)
		p.text--
	}
	return successor
}

func (p *model8) updateModel() {
	minSuccessor := p.succ(p.foundState)
	fFreq := p.freq(p.foundState)
	fSymbol := p.sym(p.foundState)
	var s uint32
	if fFreq < p8MaxFreq/4 && p.suffix(p.minContext) != 0 {
		c := p.suffix(p.minContext)
		if p.numStats(c) == 0 {
			s = p8OneState(c)
			if p.freq(s) < 32 {
				p.setFreq(s, p.freq(s)+1)
			}
		} else {
			s = p.stats(c)
			if p.sym(s) != fSymbol {
				for {
					s += 6
					if p.sym(s) == fSymbol {
						break
					}
				}
				if p.freq(s) >= p.freq(s-6) {
					p.swapStates(s, s-6)
					s -= 6
				}
			}
			if p.freq(s) < p8MaxFreq-9 {
				p.setFreq(s, p.freq(s)+2)
				p.setSummFreq(c, p.summFreq(c)+2)
			}
		}
	}
	c := p.maxContext
	if p.orderFall == 0 && minSuccessor != 0 {
		cs := p.createSuccessors(true, s, p.minContext)
		if cs == 0 {
			p.setSucc(p.foundState, 0)
			p.restoreModel(c)
			return
		}
		p.setSucc(p.foundState, cs)
		p.minContext, p.maxContext = cs, cs
		return
	}
	p.mem[p.text] = byte(fSymbol)
	p.text++
	if p.text >= p.units {
		p.restoreModel(c)
		return
	}
	maxSuccessor := p.text
	if minSuccessor == 0 {
		cs := p.reduceOrder(s, p.minContext)
		if cs == 0 {
			p.restoreModel(c)
			return
		}
		minSuccessor = cs
	} else if minSuccessor < p.units {
		cs := p.createSuccessors(false, s, p.minContext)
		if cs == 0 {
			p.restoreModel(c)
			return
		}
		minSuccessor = cs
	}
	p.orderFall--
	if p.orderFall == 0 {
		maxSuccessor = minSuccessor
		if p.maxContext != p.minContext {
			p.text--
		}
	}
	flag := p8HiBits3(fSymbol)
	ns := p.numStats(p.minContext)
	s0 := p.summFreq(p.minContext) - ns - fFreq
	for ; c != p.minContext; c = p.suffix(c) {
		ns1 := p.numStats(c)
		var sum uint32
		if ns1 != 0 {
			if ns1&1 != 0 {
				oldNU := (ns1 + 1) >> 1
				i := p8U2I(oldNU)
				if i != p8U2I(oldNU+1) {
					ptr := p.allocUnits(i + 1)
					if ptr == 0 {
						p.restoreModel(c)
						return
					}
					old := p.stats(c)
					p.copyUnits(ptr, old, oldNU)
					p.insertNode(old, i)
					p.setStats(c, ptr)
				}
			}
			sum = p.summFreq(c)
			if 3*ns1+1 < ns {
				sum++
			}
		} else {
			st := p.allocUnits(0)
			if st == 0 {
				p.restoreModel(c)
				return
			}
			one := p8OneState(c)
			freq := p.freq(one)
			p.mem[st] = p.mem[one]
			p.setSucc(st, p.succ(one))
			p.setStats(c, st)
			if freq < p8MaxFreq/4-1 {
				freq <<= 1
			} else {
				freq = p8MaxFreq - 4
			}
			p.setFreq(st, freq)
			sum = freq + p.initEsc
			if ns > 2 {
				sum++
			}
		}
		st := p.stats(c) + (ns1+1)*6
		cf := 2 * (sum + 6) * fFreq
		sf := s0 + sum
		p.mem[st] = byte(fSymbol)
		p.setNumStats(c, ns1+1)
		p.setSucc(st, maxSuccessor)
		p.setFlags(c, p.flags(c)|flag)
		if cf < 6*sf {
			n := uint32(1)
			if cf > sf {
				n++
			}
			if cf >= 4*sf {
				n++
			}
			cf = n
			sum += 4
		} else {
			n := uint32(4)
			if cf > 9*sf {
				n++
			}
			if cf > 12*sf {
				n++
			}
			if cf > 15*sf {
				n++
			}
			cf = n
			sum += cf
		}
		p.setSummFreq(c, sum)
		p.setFreq(st, cf)
	}
	p.maxContext, p.minContext = minSuccessor, minSuccessor
}

func (p *model8) rescale() {
	mc := p.minContext
	stats := p.stats(mc)
	s := p.foundState
	if s != stats {
		var tmp [6]byte
		copy(tmp[:], p.mem[s:s+6])
		for ; s != stats; s -= 6 {
			p.copyState(s, s-6)
		}
		copy(p.mem[s:s+6], tmp[:])
	}
	sumFreq := p.freq(s)
	escFreq := p.summFreq(mc) - sumFreq
	adder := uint32(0)
	if p.orderFall != 0 {
		adder = 1
	}
	sumFreq = (sumFreq + 4 + adder) >> 1
	i := p.numStats(mc)
	p.setFreq(s, sumFreq)
	for ; i > 0; i-- {
		s += 6
		freq := p.freq(s)
		escFreq -= freq
		freq = (freq + adder) >> 1
		sumFreq += freq
		p.setFreq(s, freq)
		if freq > p.freq(s-6) {
			var tmp [6]byte
			copy(tmp[:], p.mem[s:s+6])
			s1 := s
			for {
				p.copyState(s1, s1-6)
				s1 -= 6
				if s1 == stats || freq <= p.freq(s1-6) {
					break
				}
			}
			copy(p.mem[s1:s1+6], tmp[:])
		}
	}
	if p.freq(s) == 0 {
		i = 0
		for {
			i++
			s -= 6
			if p.freq(s) != 0 {
				break
			}
		}
		escFreq += i
		numStats := p.numStats(mc)
		numStatsNew := numStats - i
		p.setNumStats(mc, numStatsNew)
		n0 := (numStats + 2) >> 1
		if numStatsNew == 0 {
			freq := (2*p.freq(stats) + escFreq - 1) / escFreq
			if freq > p8MaxFreq/3 {
				freq = p8MaxFreq / 3
			}
			p.setFlags(mc, (p.flags(mc)&p8FlagPrevHi)+p8HiBits3(p.sym(stats)))
			one := p8OneState(mc)
			p.copyState(one, stats)
			p.setFreq(one, freq)
			p.foundState = one
			p.insertNode(stats, p8U2I(n0))
			return
		}
		n1 := (numStatsNew + 2) >> 1
		if n0 != n1 {
			p.setStats(mc, p.shrinkUnits(stats, n0, n1))
		}
	}
	p.setSummFreq(mc, sumFreq+escFreq-(escFreq>>1))
	p.setFlags(mc, p.flags(mc)|p8FlagRescale)
	p.foundState = p.stats(mc)
}

func (p *model8) makeEscFreq(numMasked uint32) (*p8See, uint32) {
	mc := p.minContext
	numStats := p.numStats(mc)
	if numStats == 0xFF {
		return &p.dummySee, 1
	}
	col := p.flags(mc)
	if p.summFreq(mc) > 11*(numStats+1) {
		col++
	}
	if 2*numStats < p.numStats(p.suffix(mc))+numMasked {
		col += 2
	}
	see := &p.see[p8NS2Indx[numStats+2]-3][col]
	summ := uint32(see.summ)
	r := summ >> see.shift
	see.summ = uint16(summ - r)
	if r == 0 {
		r = 1
	}
	return see, r
}

func (p *model8) nextContext() {
	c := p.succ(p.foundState)
	if p.orderFall == 0 && c >= p.units {
		p.maxContext, p.minContext = c, c
	} else {
		p.updateModel()
	}
}

func (p *model8) update1() {
	s := p.foundState
	freq := p.freq(s) + 4
	p.setSummFreq(p.minContext, p.summFreq(p.minContext)+4)
	p.setFreq(s, freq)
	if freq > p.freq(s-6) {
		p.swapStates(s, s-6)
		s -= 6
		p.foundState = s
		if freq > p8MaxFreq {
			p.rescale()
		}
	}
	p.nextContext()
}

func (p *model8) update1First() {
	s := p.foundState
	mc := p.minContext
	freq := p.freq(s)
	summFreq := p.summFreq(mc)
	p.prevSuccess = 0
	if 2*freq >= summFreq {
		p.prevSuccess = 1
	}
	p.runLength += int32(p.prevSuccess)
	p.setSummFreq(mc, summFreq+4)
	freq += 4
	p.setFreq(s, freq)
	if freq > p8MaxFreq {
		p.rescale()
	}
	p.nextContext()
}

func (p *model8) update2() {
	s := p.foundState
	freq := p.freq(s) + 4
	p.runLength = p.initRL
	p.setSummFreq(p.minContext, p.summFreq(p.minContext)+4)
	p.setFreq(s, freq)
	if freq > p8MaxFreq {
		p.rescale()
	}
	p.updateModel()
}

// decodeSymbol returns the next byte, -1 at the end marker or -2 for
// corrupt data.
func (p *model8) decodeSymbol() int {
	mask := &p.charMask
	mc := p.minContext
	if p.numStats(mc) != 0 {
		s := p.stats(mc)
		summFreq := min(p.summFreq(mc), p.rc.rng)
		count := p.rc.threshold(summFreq)
		hiCnt := count
		count -= p.freq(s)
		if int32(count) < 0 {
			p.rc.decode(0, p.freq(s))
			p.rc.normalizeRAR()
			p.foundState = s
			sym := p.sym(s)
			p.update1First()
			return int(sym)
		}
		p.prevSuccess = 0
		for i := p.numStats(mc); i > 0; i-- {
			s += 6
			count -= p.freq(s)
			if int32(count) < 0 {
				p.rc.decode((hiCnt-count)-p.freq(s), p.freq(s))
				p.rc.normalizeRAR()
				p.foundState = s
				sym := p.sym(s)
				p.update1()
				return int(sym)
			}
		}
		if hiCnt >= summFreq {
			return -2
		}
		hiCnt -= count
		p.rc.decode(hiCnt, summFreq-hiCnt)
		for i := range mask {
			mask[i] = 0xFF
		}
		for st, end := p.stats(mc), s; st <= end; st += 6 {
			mask[p.mem[st]] = 0
		}
	} else {
		s := p8OneState(mc)
		col := p.prevSuccess + uint32(p.runLength>>26)&0x20 + uint32(p8NS2BSIndx[p.numStats(p.suffix(mc))]) + p.flags(mc)
		prob := &p.binSumm[p8NS2Indx[p.freq(s)-1]][col]
		pr := uint32(*prob)
		size0 := (p.rc.rng >> 14) * pr
		pr -= (pr + 1<<(p8PeriodBits-2)) >> p8PeriodBits
		if p.rc.code < size0 {
			*prob = uint16(pr + 1<<p8IntBits)
			p.rc.rng = size0
			p.rc.normalizeRAR()
			freq := p.freq(s)
			c := p.succ(s)
			sym := p.sym(s)
			p.foundState = s
			p.prevSuccess = 1
			p.runLength++
			if freq < 196 {
				p.setFreq(s, freq+1)
			}
			if p.orderFall == 0 && c >= p.units {
				p.maxContext, p.minContext = c, c
			} else {
				p.updateModel()
			}
			return int(sym)
		}
		*prob = uint16(pr)
		p.initEsc = uint32(p8ExpEscape[pr>>10])
		p.rc.decodeBinEscape(size0)
		for i := range mask {
			mask[i] = 0xFF
		}
		mask[p.sym(s)] = 0
		p.prevSuccess = 0
	}
	for {
		p.rc.normalizeRAR()
		mc := p.minContext
		numMasked := p.numStats(mc)
		for {
			p.orderFall++
			if p.suffix(mc) == 0 {
				return -1
			}
			mc = p.suffix(mc)
			if p.numStats(mc) != numMasked {
				break
			}
		}
		p.minContext = mc
		stats := p.stats(mc)
		n := p.numStats(mc) + 1
		st := p.mem[stats : stats+n*stateSize]
		hiCnt := maskedSum(st, mask)
		see, freqSum := p.makeEscFreq(numMasked)
		freqSum += hiCnt
		freqSum2 := min(freqSum, p.rc.rng)
		count := p.rc.threshold(freqSum2)
		if count < hiCnt {
			o, cum := findMaskedCount(st, mask, count)
			if o >= len(st) {
				return -2
			}
			s := stats + uint32(o)
			p.rc.decode(cum, p.freq(s))
			p.rc.normalizeRAR()
			see.update()
			p.foundState = s
			sym := p.sym(s)
			p.update2()
			return int(sym)
		}
		if count >= freqSum2 {
			return -2
		}
		p.rc.decode(hiCnt, freqSum2-hiCnt)
		see.summ = uint16(uint32(see.summ) + freqSum)
		maskSymbols(st, mask)
	}
}
