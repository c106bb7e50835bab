package lzma

import "math"

// rangeEncoder is the binary arithmetic coder of LZMA. Bytes are appended
// to out; a run of 0xFF bytes is held back (cache/cacheSize) until a carry
// out of low is resolved.
type rangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64
	out       []byte
}

func (e *rangeEncoder) reset() {
	e.low = 0
	e.rng = 0xFFFFFFFF
	e.cache = 0
	e.cacheSize = 1
	e.out = e.out[:0]
}

// size is the number of bytes the stream would have if flushed now.
func (e *rangeEncoder) size() int64 { return int64(len(e.out)) + e.cacheSize + 4 }

func (e *rangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		tmp := e.cache
		for {
			e.out = append(e.out, tmp+carry)
			tmp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

func (e *rangeEncoder) flush() {
	for i := 0; i < 5; i++ {
		e.shiftLow()
	}
}

// bit codes b (0 or 1) with the probability at p. It selects with masks
// instead of branching: most bits an encoder codes (literals, distances)
// are close to random, and one normalisation step always suffices, since
// a coded bit leaves at least (2^24>>11)*31 > 2^16 of the range.
func (e *rangeEncoder) bit(p *uint16, b uint32) {
	v := uint32(*p)
	bound := (e.rng >> probBits) * v
	m := -b // all ones for a 1 bit
	e.low += uint64(bound & m)
	e.rng = bound + (e.rng-2*bound)&m
	*p = uint16(v + ((probOne-v)>>moveBits)&^m - (v>>moveBits)&m)
	if e.rng < rangeTop {
		e.normalize()
	}
}

// normalize shifts out a byte; out of line, so that bit stays small
// enough to be inlined into the coders' loops.
//
//go:noinline
func (e *rangeEncoder) normalize() {
	e.rng <<= 8
	e.shiftLow()
}

// direct codes the low n bits of v, most significant first, with fixed
// probability 1/2.
func (e *rangeEncoder) direct(v uint32, n uint) {
	for n > 0 {
		n--
		e.rng >>= 1
		e.low += uint64(e.rng & -((v >> n) & 1))
		if e.rng < rangeTop {
			e.rng <<= 8
			e.shiftLow()
		}
	}
}

// The coders below are bit with the range and low registers in locals;
// bit itself is too large for the compiler to inline, and a call per bit
// costs as much as the coding.

// tree codes the n-bit symbol sym MSB first with probs[1:1<<n].
func (e *rangeEncoder) tree(probs []uint16, n uint, sym uint32) {
	rng, low := e.rng, e.low
	m := uint32(1)
	for n > 0 {
		n--
		b := (sym >> n) & 1
		p := &probs[m]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		mask := -b
		low += uint64(bound & mask)
		rng = bound + (rng-2*bound)&mask
		*p = uint16(v + ((probOne-v)>>moveBits)&^mask - (v>>moveBits)&mask)
		if rng < rangeTop {
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
		m = m<<1 | b
	}
	e.rng, e.low = rng, low
}

// treeRev codes the n-bit symbol sym LSB first with probs[1:1<<n].
func (e *rangeEncoder) treeRev(probs []uint16, n uint, sym uint32) {
	rng, low := e.rng, e.low
	m := uint32(1)
	for ; n > 0; n-- {
		b := sym & 1
		sym >>= 1
		p := &probs[m]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		mask := -b
		low += uint64(bound & mask)
		rng = bound + (rng-2*bound)&mask
		*p = uint16(v + ((probOne-v)>>moveBits)&^mask - (v>>moveBits)&mask)
		if rng < rangeTop {
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
		m = m<<1 | b
	}
	e.rng, e.low = rng, low
}

// matchedLiteral codes the byte sym with the literal coder lp against the
// match byte mb: while the bits so far equal mb's, each bit's probability
// is chosen by mb's bit too (lp[0x100+mbit<<8+ctx]), afterwards by the
// bits so far alone (lp[ctx]).
func (e *rangeEncoder) matchedLiteral(lp []uint16, sym, mb uint32) {
	rng, low := e.rng, e.low
	ctx := uint32(1)
	offs := uint32(0x100) // 0x100 while the bits match mb's, then 0
	for i := 7; i >= 0; i-- {
		b := (sym >> uint(i)) & 1
		mbit := (mb >> uint(i)) & 1
		p := &lp[offs+(mbit<<8)&offs+ctx]
		v := uint32(*p)
		bound := (rng >> probBits) * v
		mask := -b
		low += uint64(bound & mask)
		rng = bound + (rng-2*bound)&mask
		*p = uint16(v + ((probOne-v)>>moveBits)&^mask - (v>>moveBits)&mask)
		if rng < rangeTop {
			rng <<= 8
			e.low = low
			e.shiftLow()
			low = e.low
		}
		ctx = ctx<<1 | b
		offs &^= -(b ^ mbit)
	}
	e.rng, e.low = rng, low
}

// Prices are in 1/16 bit units.
const (
	priceShift   = 4
	infinity     = 1 << 30
	priceTableSz = probOne >> priceReduce
	priceReduce  = 4
)

// probPrices[p>>priceReduce] is the price of coding a 0 bit with
// probability p (of a 0), i.e. -log2(p/2048) in 1/16 bits.
var probPrices [priceTableSz]uint32

func init() {
	for i := range probPrices {
		p := (float64(i<<priceReduce) + float64(1<<priceReduce)/2) / probOne
		probPrices[i] = uint32(math.Round(-math.Log2(p) * (1 << priceShift)))
	}
}

func price0(p uint16) uint32 { return probPrices[p>>priceReduce] }
func price1(p uint16) uint32 { return probPrices[(probOne-p)>>priceReduce] }
func priceBit(p uint16, b uint32) uint32 {
	if b == 0 {
		return price0(p)
	}
	return price1(p)
}

func treePrice(probs []uint16, n uint, sym uint32) uint32 {
	var pr uint32
	m := uint32(1)
	for n > 0 {
		n--
		b := (sym >> n) & 1
		pr += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return pr
}

func treeRevPrice(probs []uint16, n uint, sym uint32) uint32 {
	var pr uint32
	m := uint32(1)
	for ; n > 0; n-- {
		b := sym & 1
		sym >>= 1
		pr += priceBit(probs[m], b)
		m = m<<1 | b
	}
	return pr
}
