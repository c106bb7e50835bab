package lzma

import (
	"math/rand"
	"testing"
)

// refLiteralPrice prices a literal bit by bit, as the LZMA specification
// codes it: matched (against the rep0 byte) until the first differing
// bit after a match or rep, plain otherwise.
func refLiteralPrice(probs []uint16, b, mb uint32, matched bool) uint32 {
	var pr uint32
	ctx := uint32(1)
	i := 8
	if matched {
		for i > 0 {
			i--
			bit, mbit := (b>>uint(i))&1, (mb>>uint(i))&1
			pr += priceBit(probs[0x100+mbit<<8+ctx], bit)
			ctx = ctx<<1 | bit
			if bit != mbit {
				break
			}
		}
	}
	for i > 0 {
		i--
		bit := (b >> uint(i)) & 1
		pr += priceBit(probs[ctx], bit)
		ctx = ctx<<1 | bit
	}
	return pr
}

// TestLiteralPrice checks the parser's branch-free literal pricing
// against the bit-by-bit reference for every byte, random match bytes and
// random probabilities, in literal and match states.
func TestLiteralPrice(t *testing.T) {
	o := LevelOptions(5)
	o.DictSize = 1 << 16
	if err := o.normalize(); err != nil {
		t.Fatal(err)
	}
	e := newEncoder(&o)
	rng := rand.New(rand.NewSource(1))
	for i := range e.probs {
		e.probs[i] = uint16(31 + rng.Intn(probOne-62))
	}
	buf := make([]byte, 3)
	for b := 0; b < 256; b++ {
		for k := 0; k < 8; k++ {
			mb := byte(rng.Intn(256))
			if k == 0 {
				mb = byte(b) // all bits matched
			}
			buf[0], buf[1], buf[2] = mb, byte(rng.Intn(256)), byte(b)
			base := offLiteral + literalCoderSize*int(uint32(buf[1])>>(8-e.lc))
			lp := e.probs[base : base+literalCoderSize]
			for _, st := range []uint32{0, stateMatchAfterLit} {
				matched := !afterLiteral(st)
				got := e.literalPrice(buf, 2, 2, st, 1)
				want := refLiteralPrice(lp, uint32(b), uint32(mb), matched)
				if got != want {
					t.Fatalf("byte %#x, match byte %#x, matched %v: price %d, want %d", b, mb, matched, got, want)
				}
			}
		}
	}
}

// treePrice prices symbol sym of the n-bit tree probs bit by bit, the
// reference for treePrices.
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

// treeRevPrice prices symbol sym of the n-bit reverse tree probs bit by
// bit (lowest bit first), the reference for treeRevPrices.
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

// TestTreePrices checks the node-by-node price tables of bit trees and
// reverse bit trees against the bit-by-bit prices, for every tree size the
// coder uses and every count of symbols.
func TestTreePrices(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	probs := make([]uint16, 1<<8)
	for _, n := range []uint{1, 2, 3, 4, 5, 6, 8} {
		for round := 0; round < 4; round++ {
			for i := range probs {
				probs[i] = uint16(31 + rng.Intn(probOne-62))
			}
			for cnt := 1; cnt <= 1<<n; cnt++ {
				out := make([]uint32, cnt)
				treePrices(probs, n, out)
				for s, got := range out {
					if want := treePrice(probs, n, uint32(s)); got != want {
						t.Fatalf("%d bits, %d symbols: symbol %d price %d, want %d", n, cnt, s, got, want)
					}
				}
			}
			rev := make([]uint32, 1<<n)
			treeRevPrices(probs, n, rev)
			for s, got := range rev {
				if want := treeRevPrice(probs, n, uint32(s)); got != want {
					t.Fatalf("%d bits reverse: symbol %d price %d, want %d", n, s, got, want)
				}
			}
		}
	}
}

// TestLenPricesToNice checks that the length price tables, filled only up
// to the nice length, hold the full tree prices there, for nice lengths
// within the low, mid and high coders.
func TestLenPricesToNice(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	for _, nice := range []int{5, 17, 18, 32, 64, 273} {
		o := LevelOptions(9)
		o.FastBytes, o.DictSize = nice, 1<<16
		if err := o.normalize(); err != nil {
			t.Fatal(err)
		}
		e := newEncoder(&o)
		for i := range e.probs {
			e.probs[i] = uint16(31 + rng.Intn(probOne-62))
		}
		for which, off := range []int{offLenMatch, offLenRep} {
			e.fillLenPrices(which)
			p := e.probs[off : off+lenCoderLen]
			for ps := 0; ps < 1<<e.pb; ps++ {
				for l := minMatchLen; l <= nice; l++ {
					s := uint32(l - minMatchLen)
					var want uint32
					switch {
					case s < lenLowSyms:
						want = price0(p[lenChoice]) + treePrice(p[lenLow+ps*lenLowSyms:], 3, s)
					case s < lenLowSyms+lenMidSyms:
						want = price1(p[lenChoice]) + price0(p[lenChoice2]) +
							treePrice(p[lenMid+ps*lenMidSyms:], 3, s-lenLowSyms)
					default:
						want = price1(p[lenChoice]) + price1(p[lenChoice2]) +
							treePrice(p[lenHigh:], 8, s-lenLowSyms-lenMidSyms)
					}
					if got := e.lenPrices[which][ps][s]; got != want {
						t.Fatalf("nice %d, table %d, posState %d, length %d: price %d, want %d", nice, which, ps, l, got, want)
					}
				}
			}
		}
	}
}

// TestMatchLen checks the unchecked comparison against a byte loop at
// every limit up to 40 and every first difference.
func TestMatchLen(t *testing.T) {
	a := make([]byte, 120)
	for first := 0; first <= 41; first++ {
		for i := range a {
			a[i] = 'x'
		}
		if first < 41 {
			a[60+first] = 'y' // a[60:] differs from a[10:] at first
		}
		for limit := 0; limit <= 40; limit++ {
			want := 0
			for want < limit && a[60+want] == a[10+want] {
				want++
			}
			if got := matchLen(a, 60, 10, limit); got != want {
				t.Fatalf("difference at %d, limit %d: %d, want %d", first, limit, got, want)
			}
		}
	}
	for _, bad := range [][3]int{{60, 60, 4}, {60, 70, 4}, {60, -1, 4}, {100, 10, 21}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("matchLen(a, %d, %d, %d) did not refuse its arguments", bad[0], bad[1], bad[2])
				}
			}()
			matchLen(a, bad[0], bad[1], bad[2])
		}()
	}
}
