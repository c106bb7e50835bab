package lzma

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestDecodeLiteralAsm checks that the assembly literal decoders return
// the symbols, range coder states and probabilities of decodeByte and
// decodeMatchedLiteral, for random probabilities, match bytes and input.
func TestDecodeLiteralAsm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	in := make([]byte, 64)
	for iter := range 200000 {
		for i := range in {
			in[i] = byte(r.Uint32())
		}
		var pa, pb [matchedLiteralProbs]uint16
		for i := range pa {
			// Valid probabilities: 31 to probOne-31, skewed to the ends
			// now and then so that runs of likely bits occur.
			v := 31 + r.IntN(probOne-61)
			if iter%3 == 0 {
				v = 31 + r.IntN(64)
				if r.IntN(2) == 0 {
					v = probOne - 31 - r.IntN(64)
				}
			}
			pa[i] = uint16(v)
		}
		pb = pa
		rng := uint32(1<<24) + r.Uint32()%(0xFFFFFFFF-1<<24)
		if iter%4 == 0 {
			rng = 0xFFFFFFFF
		}
		code := r.Uint32() % rng
		ip := r.IntN(8)
		match := uint32(r.IntN(256))
		if iter%2 == 0 {
			s, r2, c2, ip2 := decodeByte((*[0x100]uint16)(pa[:0x100]), rng, code, in, ip)
			s1, r3, c3, ip3 := decodeByteAsm((*[0x100]uint16)(pb[:0x100]), rng, code, in, ip)
			if s != s1 || r2 != r3 || c2 != c3 || ip2 != ip3 || pa != pb {
				t.Fatalf("literal %d: go (%x %x %x %d), asm (%x %x %x %d), probabilities equal %v", iter, s, r2, c2, ip2, s1, r3, c3, ip3, pa == pb)
			}
		} else {
			s, r2, c2, ip2 := decodeMatchedLiteral(&pa, match, rng, code, in, ip)
			s1, r3, c3, ip3 := decodeMatchedLiteralAsm(&pb, match, rng, code, in, ip)
			if s != s1 || r2 != r3 || c2 != c3 || ip2 != ip3 || pa != pb {
				t.Fatalf("matched literal %d (match %x): go (%x %x %x %d), asm (%x %x %x %d), probabilities equal %v", iter, match, s, r2, c2, ip2, s1, r3, c3, ip3, pa == pb)
			}
		}
	}
}

// TestDecodeDistanceAsm checks decodeDistanceAsm against decodeDistance
// for random probabilities, lengths and input: every slot occurs.
func TestDecodeDistanceAsm(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	in := make([]byte, 64)
	var pa, pb [offLiteral]uint16
	slots := make(map[uint32]bool)
	for iter := range 300000 {
		for i := range in {
			in[i] = byte(r.Uint32())
		}
		for i := range pa {
			pa[i] = uint16(31 + r.IntN(probOne-61))
		}
		if iter%2 == 0 {
			// Skew the slot trees toward 1 bits, so that long
			// distances occur often.
			for i := offDistSlot; i < offDistSpec; i++ {
				pa[i] = uint16(31 + r.IntN(400))
			}
		}
		pb = pa
		rng := uint32(1<<24) + r.Uint32()%(0xFFFFFFFF-1<<24)
		code := r.Uint32() % rng
		ip := r.IntN(8)
		length := uint32(r.IntN(8))
		d, r2, c2, ip2 := decodeDistance(pa[:], length, rng, code, in, ip)
		d1, r3, c3, ip3 := decodeDistanceAsm(&pb, length, rng, code, in, ip)
		if d != d1 || r2 != r3 || c2 != c3 || ip2 != ip3 || pa != pb {
			t.Fatalf("%d (length %d): go (%x %x %x %d), asm (%x %x %x %d), probabilities equal %v", iter, length, d, r2, c2, ip2, d1, r3, c3, ip3, pa == pb)
		}
		if d < 4 {
			slots[d] = true
		} else {
			slots[uint32(31-bits.LeadingZeros32(d))*2+d>>(31-bits.LeadingZeros32(d)-1)&1] = true
		}
	}
	if len(slots) < 60 {
		t.Errorf("only %d of 64 slots decoded", len(slots))
	}
}
