package lzma

import (
	"math"
	"math/bits"
)

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

// The coders below keep the range and low registers in local variables
// (rng, low), passed in and returned: a symbol is coded with them in
// machine registers from its first bit to its last, and e holds them only
// between symbols. encBit codes one bit and is inlined; norm, also
// inlined, shifts out a byte when the range has fallen below 2^24, which
// one coded bit never takes further (it leaves at least (2^24>>11)*31 >
// 2^16 of the range).

// encBit codes b (0 or 1) with the probability at p. It selects with
// masks instead of branching: most bits an encoder codes (literals,
// distances) are close to random. The probability moves by 1/32 of its
// distance to 0 or 1 (7-Zip's form: one arithmetic shift of a signed
// difference towards 2048 or 31).
func encBit(rng uint32, low uint64, p *uint16, b uint32) (uint32, uint64) {
	v := uint32(*p)
	bound := (rng >> probBits) * v
	m := -b // all ones for a 1 bit
	low += uint64(bound & m)
	rng = bound + (rng-2*bound)&m
	t := (b-1)&(probOne-(1<<moveBits-1)) + (1<<moveBits - 1)
	*p = uint16(int32(v) + int32(t-v)>>moveBits)
	return rng, low
}

// norm normalises the registers after a coded bit.
func (e *rangeEncoder) norm(rng uint32, low uint64) (uint32, uint64) {
	if rng < rangeTop {
		return rng << 8, e.shiftOut(low)
	}
	return rng, low
}

// shiftOut is shiftLow for a low kept in a register; out of line, so that
// norm stays small enough to be inlined.
//
//go:noinline
func (e *rangeEncoder) shiftOut(low uint64) uint64 {
	e.low = low
	e.shiftLow()
	return e.low
}

// directR codes the low n bits of v, most significant first, with fixed
// probability 1/2.
func (e *rangeEncoder) directR(rng uint32, low uint64, v uint32, n uint) (uint32, uint64) {
	x := v << ((32 - n) & 31) // the bits go out from the top
	for ; n > 0; n-- {
		rng >>= 1
		low += uint64(rng & -(x >> 31))
		x <<= 1
		rng, low = e.norm(rng, low)
	}
	return rng, low
}

// treeR codes the n-bit symbol sym MSB first with probs[1:1<<n].
func (e *rangeEncoder) treeR(rng uint32, low uint64, probs []uint16, n uint, sym uint32) (uint32, uint64) {
	// The bits go out from the top of x, m (with its leading 1) indexes
	// probs and ends at 1<<n.
	x := sym << ((32 - n) & 31)
	end := uint32(1) << (n & 31)
	for m := uint32(1); m < end; {
		b := x >> 31
		x <<= 1
		rng, low = e.norm(encBit(rng, low, &probs[m], b))
		m = m<<1 | b
	}
	return rng, low
}

// treeRevR codes the n-bit symbol sym LSB first with probs[1:1<<n].
func (e *rangeEncoder) treeRevR(rng uint32, low uint64, probs []uint16, n uint, sym uint32) (uint32, uint64) {
	m := uint32(1)
	for ; n > 0; n-- {
		b := sym & 1
		sym >>= 1
		rng, low = e.norm(encBit(rng, low, &probs[m], b))
		m = m<<1 | b
	}
	return rng, low
}

// literalR codes the byte sym with the literal coder lp (0x300 entries):
// plainly (a bit tree over lp[1:0x100]), or, when matched, against the
// match byte mb: while the bits so far equal mb's, each bit's probability
// is chosen by mb's bit too (lp[0x100+mbit<<8+ctx]), afterwards by the
// bits so far alone (lp[ctx]). The symbol carries a leading 1 that
// reaches bit 16 after the eighth bit; in the matched form the current
// bits of mb and of sym sit at bit 8, so offs (0x100 while they have
// agreed, then 0) selects the half of lp.
func (e *rangeEncoder) literalR(rng uint32, low uint64, lp *[literalCoderSize]uint16, sym, mb uint32, matched bool) (uint32, uint64) {
	sym |= 0x100
	if !matched {
		for sym < 0x10000 {
			p := &lp[sym>>8&0xFF]
			b := sym >> 7 & 1
			sym <<= 1
			rng, low = e.norm(encBit(rng, low, p, b))
		}
		return rng, low
	}
	offs := uint32(0x100)
	for sym < 0x10000 {
		mb <<= 1
		p := &lp[offs+mb&offs+sym>>8&0xFF]
		b := sym >> 7 & 1
		sym <<= 1
		offs &^= mb ^ sym
		rng, low = e.norm(encBit(rng, low, p, b))
	}
	return rng, low
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

// treePrices sets out[s] to the price of coding symbol s with the n-bit
// tree probs (n <= 8), for every s < len(out). A node's price is its
// parent's plus one bit, and only the nodes above those symbols are
// priced: 88 bit prices instead of 264 for 44 distance slots.
func treePrices(probs []uint16, n uint, out []uint32) {
	var node [1 << 8]uint32 // node[m]: the price of reaching node m (1 the root)
	cnt := len(out)
	for k := uint(1); k < n; k++ {
		// The nodes at depth k above the first cnt symbols.
		first, need := 1<<k, (cnt+1<<(n-k)-1)>>(n-k)
		for m := first; m < first+need; m++ {
			node[m&0xFF] = node[(m>>1)&0xFF] + priceBit(probs[m>>1], uint32(m&1))
		}
	}
	half := 1 << (n - 1)
	for s := range out {
		m := half + s>>1
		out[s] = node[m&0xFF] + priceBit(probs[m], uint32(s&1))
	}
}

// treeRevPrices sets out[s] to the price of coding symbol s with the
// n-bit reverse tree probs (n <= 8), for every s < 2^n (len(out)), from
// its nodes' prices as treePrices does.
func treeRevPrices(probs []uint16, n uint, out []uint32) {
	var node [1 << 8]uint32
	for m := 2; m < 1<<n; m++ {
		node[m&0xFF] = node[(m>>1)&0xFF] + priceBit(probs[m>>1], uint32(m&1))
	}
	half := 1 << (n - 1)
	out = out[:1<<n]
	for r := range out {
		// r holds the symbol's bits in coding order (lowest first).
		m := half + r>>1
		out[bits.Reverse32(uint32(r))>>(32-n)] = node[m&0xFF] + priceBit(probs[m], uint32(r&1))
	}
}
