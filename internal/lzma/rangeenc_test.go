package lzma

import "testing"

// TestEncBitUpdate checks the range coder's branch-free bit against the
// specification's rule for every probability and both bits: the bound is
// (range>>11)*p, a 0 keeps [low, low+bound) and moves p up by
// (2048-p)>>5, a 1 keeps the rest and moves p down by p>>5.
func TestEncBitUpdate(t *testing.T) {
	for _, rng := range []uint32{1 << 24, 0x12345678, 0xFFFFFFFF} {
		for v := uint32(31); v <= probOne-31; v++ {
			for b := uint32(0); b < 2; b++ {
				p := uint16(v)
				r, low := encBit(rng, 1000, &p, b)
				bound := (rng >> probBits) * v
				wantR, wantLow, wantP := bound, uint64(1000), v+(probOne-v)>>moveBits
				if b == 1 {
					wantR, wantLow, wantP = rng-bound, 1000+uint64(bound), v-v>>moveBits
				}
				if r != wantR || low != wantLow || uint32(p) != wantP {
					t.Fatalf("range %#x p %d bit %d: range %#x low %d p %d, want %#x %d %d", rng, v, b, r, low, p, wantR, wantLow, wantP)
				}
			}
		}
	}
}

// TestBitTreeCoders checks the register-passing tree, reverse-tree, direct
// and literal coders against bit-by-bit coding with encBit: same range,
// low, output and probabilities.
func TestBitTreeCoders(t *testing.T) {
	type coded struct {
		rng   uint32
		low   uint64
		out   string
		probs [literalCoderSize]uint16
	}
	run := func(f func(e *rangeEncoder, probs *[literalCoderSize]uint16, rng uint32, low uint64) (uint32, uint64)) coded {
		var e rangeEncoder
		e.reset()
		var c coded
		for i := range c.probs {
			c.probs[i] = uint16(100 + i*7%1800)
		}
		rng, low := e.rng, e.low
		for i := 0; i < 50; i++ {
			rng, low = f(&e, &c.probs, rng, low)
		}
		e.rng, e.low = rng, low
		e.flush()
		c.rng, c.low, c.out = rng, low, string(e.out)
		return c
	}
	bit := func(e *rangeEncoder, rng uint32, low uint64, p *uint16, b uint32) (uint32, uint64) {
		return e.norm(encBit(rng, low, p, b))
	}
	for n := uint(1); n <= 8; n++ {
		for sym := uint32(0); sym < 1<<n; sym += 1 + sym/3 {
			got := run(func(e *rangeEncoder, p *[literalCoderSize]uint16, rng uint32, low uint64) (uint32, uint64) {
				rng, low = e.treeR(rng, low, p[:1<<n], n, sym)
				rng, low = e.treeRevR(rng, low, p[0x100:0x100+1<<n], n, sym)
				return e.directR(rng, low, sym*0x01010101, n+18)
			})
			want := run(func(e *rangeEncoder, p *[literalCoderSize]uint16, rng uint32, low uint64) (uint32, uint64) {
				m := uint32(1)
				for i := int(n) - 1; i >= 0; i-- {
					b := sym >> uint(i) & 1
					rng, low = bit(e, rng, low, &p[m], b)
					m = m<<1 | b
				}
				m = 1
				for i := uint(0); i < n; i++ {
					b := sym >> i & 1
					rng, low = bit(e, rng, low, &p[0x100+m], b)
					m = m<<1 | b
				}
				v := sym * 0x01010101
				for i := int(n + 18 - 1); i >= 0; i-- {
					rng >>= 1
					if v>>uint(i)&1 == 1 {
						low += uint64(rng)
					}
					rng, low = e.norm(rng, low)
				}
				return rng, low
			})
			if got != want {
				t.Fatalf("trees of %d bits, symbol %d: coders disagree with bit-by-bit coding", n, sym)
			}
		}
	}
	for _, matched := range []bool{false, true} {
		for sym := uint32(0); sym < 256; sym += 7 {
			mb := sym ^ 0x35
			got := run(func(e *rangeEncoder, p *[literalCoderSize]uint16, rng uint32, low uint64) (uint32, uint64) {
				return e.literalR(rng, low, p, sym, mb, matched)
			})
			want := run(func(e *rangeEncoder, p *[literalCoderSize]uint16, rng uint32, low uint64) (uint32, uint64) {
				ctx, same := uint32(1), matched
				for i := 7; i >= 0; i-- {
					b, mbit := sym>>uint(i)&1, mb>>uint(i)&1
					idx := ctx
					if same {
						idx = 0x100 + mbit<<8 + ctx
					}
					rng, low = bit(e, rng, low, &p[idx], b)
					ctx = ctx<<1 | b
					same = same && b == mbit
				}
				return rng, low
			})
			if got != want {
				t.Fatalf("literal %#x (matched %v, match byte %#x): coder disagrees with bit-by-bit coding", sym, matched, mb)
			}
		}
	}
}
