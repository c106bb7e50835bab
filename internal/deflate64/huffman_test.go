package deflate64

import "testing"

func TestHuffmanBuild(t *testing.T) {
	cases := []struct {
		name string
		lens []uint8
		ok   bool
	}{
		{"complete", []uint8{1, 2, 3, 3}, true},
		{"over-subscribed", []uint8{1, 1, 1}, false},
		{"incomplete", []uint8{1, 2, 3}, false},
		{"single code of length 1", []uint8{0, 1, 0}, true},
		{"single code of length 2", []uint8{0, 2}, false},
		{"empty", []uint8{0, 0, 0}, true},
		{"15-bit codes", append([]uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, 15, 15), true},
	}
	for _, c := range cases {
		h := newHuffman(litPrimaryBits, numLitLen, maxCodeLen)
		if got := h.build(c.lens, nil); got != c.ok {
			t.Errorf("%s: build = %v, want %v", c.name, got, c.ok)
		}
	}
	// Decode every symbol of a code with long codes through the tables.
	lens := []uint8{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15}
	h := newHuffman(litPrimaryBits, numLitLen, maxCodeLen)
	if !h.build(lens, nil) {
		t.Fatal("build failed")
	}
	code := uint32(0)
	prevLen := uint8(0)
	for sym, l := range lens {
		code <<= l - prevLen
		prevLen = l
		rev := reverseBits(code, uint(l))
		code++
		e := h.primary[rev&(1<<h.bits-1)]
		n := uint(e & entryLenMask)
		if e&entryLink != 0 {
			w := (e >> 21) & 0xF
			e = h.links[(e>>4)&0xFFFF+(rev>>h.bits)&(1<<w-1)]
			n = h.bits + uint(e&entryLenMask)
		}
		if got := int(e>>4) & 0xFFFF; got != sym || n != uint(l) {
			t.Errorf("symbol %d (length %d): decoded %d with length %d", sym, l, got, n)
		}
	}
	small := newHuffman(7, numCodeLen, 7)
	if small.build([]uint8{8, 8}, nil) {
		t.Error("code longer than the table allows was accepted")
	}
}
