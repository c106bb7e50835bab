package lzma

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"strconv"
	"testing"
)

// TestLiteralDecodersAgree checks that the branchy literal decoders and
// the branch-free ones decode the same symbol, consume the same input and
// leave the same range coder state and probabilities, from random states
// (including ones that normalise on the first bit).
func TestLiteralDecodersAgree(t *testing.T) {
	for seed := int64(1); seed <= 2000; seed++ {
		rng := rand.New(rand.NewSource(seed))
		in := make([]byte, 64)
		rng.Read(in)
		r := uint32(rangeTop + rng.Intn(1<<31))
		if seed%3 == 0 {
			r = uint32(1<<16 + rng.Intn(rangeTop-1<<16)) // normalises first
		}
		c := uint32(rng.Int63n(int64(r)))
		var a, b [matchedLiteralProbs]uint16
		for i := range a {
			a[i] = uint16(31 + rng.Intn(probOne-62))
			if rng.Intn(4) == 0 { // skewed, as after a run of equal bits
				a[i] = uint16(31 + rng.Intn(64))
			}
		}
		b = a
		ip := rng.Intn(8)

		s1, r1, c1, ip1 := decodeByte((*[0x100]uint16)(a[:0x100]), r, c, in, ip)
		s2, r2, c2, ip2 := decodeByteBranchy((*[0x100]uint16)(b[:0x100]), r, c, in, ip)
		if s1 != s2 || r1 != r2 || c1 != c2 || ip1 != ip2 || a != b {
			t.Fatalf("seed %d: decodeByte %#x/%#x/%#x/%d, decodeByteBranchy %#x/%#x/%#x/%d (probabilities equal: %v)",
				seed, s1, r1, c1, ip1, s2, r2, c2, ip2, a == b)
		}
		match := uint32(rng.Intn(256))
		s1, r1, c1, ip1 = decodeMatchedLiteral(&a, match, r, c, in, ip)
		s2, r2, c2, ip2 = decodeMatchedLiteralBranchy(&b, match, r, c, in, ip)
		if s1 != s2 || r1 != r2 || c1 != c2 || ip1 != ip2 || a != b {
			t.Fatalf("seed %d, match %#x: decodeMatchedLiteral %#x/%#x/%#x/%d, decodeMatchedLiteralBranchy %#x/%#x/%#x/%d (probabilities equal: %v)",
				seed, match, s1, r1, c1, ip1, s2, r2, c2, ip2, a == b)
		}
	}
}

// numbersText returns the lines "first\n" .. "first+n-1\n", like seq.
func numbersText(first, n int) []byte {
	var b []byte
	for i := first; i < first+n; i++ {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\n')
	}
	return b
}

// TestLiteralDecoderChoice checks that the decoder takes the branchy
// literal decoders for literals of little information (numbers) and the
// branch-free ones for literals of much (letters drawn at random), switching
// within a stream when its data changes, and decodes both correctly.
func TestLiteralDecoderChoice(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	letters := make([]byte, 1<<20)
	for i := range letters {
		letters[i] = byte('A' + rng.Intn(58))
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		branchy bool
	}{
		{"numbers", numbersText(1, 150000), true},
		{"numbers then random letters", append(numbersText(1, 150000), letters...), false},
		{"random letters then numbers", append(letters[:1<<18:1<<18], numbersText(1, 150000)...), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, LevelOptions(1))
			if err != nil {
				t.Fatal(err)
			}
			w.Write(tc.data)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			z, err := NewReader(bytes.NewReader(buf.Bytes()), w.Props(), int64(len(tc.data)), 0)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := z.WriteTo(&out); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), tc.data) {
				t.Fatal("output differs")
			}
			if z.d.branchy != tc.branchy {
				t.Errorf("branchy literal decoders %v, want %v", z.d.branchy, tc.branchy)
			}
		})
	}
}

// TestDecodeShortCopies decodes, with the smallest window, data whose
// matches are short and near (numbers, runs of periods 1 to 9) so that
// the window wraps hundreds of times: matches whose source lies before
// the wrap, distances below 8 and matches cut by the window's end take
// every copying path of run.
func TestDecodeShortCopies(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	var periodic []byte
	for len(periodic) < 1<<20 {
		p := 1 + rng.Intn(9)
		unit := make([]byte, p)
		rng.Read(unit)
		for range 2 + rng.Intn(30) {
			periodic = append(periodic, unit...)
		}
		periodic = append(periodic, numbersText(rng.Intn(1e6), 1+rng.Intn(4))...)
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"numbers", numbersText(999000, 120000)},
		{"periodic", periodic},
	} {
		for _, level := range []int{1, 5} {
			o := LevelOptions(level)
			o.DictSize = minDictSize
			name := fmt.Sprintf("%s/mx%d", tc.name, level)
			var buf bytes.Buffer
			w, err := NewWriter(&buf, o)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(tc.data)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			checkLZMA(t, name, buf.Bytes(), w.Props(), int64(len(tc.data)), tc.data)
		}
	}
}

// TestRepBeforeFirstByte checks the one place where run checks the
// distance of a rep match: before the first byte of a stream every rep
// (all start as distance 1) reaches outside the window. A short rep and
// a rep match as the first symbol are corrupt; a short rep after a
// literal repeats it.
func TestRepBeforeFirstByte(t *testing.T) {
	const lc, lp, pb = 3, 0, 2
	props := []byte{byte((pb*5+lp)*9 + lc), 0, 0, 1, 0} // 64 KiB dictionary
	stream := func(literal bool, short bool) []byte {
		probs := make([]uint16, numProbs(lc+lp))
		for i := range probs {
			probs[i] = probInit
		}
		var e rangeEncoder
		e.reset()
		rng, low := e.rng, e.low
		bit := func(i int, b uint32) {
			rng, low = encBit(rng, low, &probs[i], b)
			rng, low = e.norm(rng, low)
		}
		pos := 0
		if literal {
			bit(offIsMatch, 0)
			sym := uint32(1)
			for k := 7; k >= 0; k-- {
				b := uint32('x') >> k & 1
				bit(offLiteral+int(sym), b)
				sym = sym<<1 | b
			}
			pos = 1
		}
		bit(offIsMatch+pos, 1)
		bit(offIsRep, 1)
		bit(offIsRepG0, 0)
		if short {
			bit(offIsRep0Long+pos, 0)
		} else {
			bit(offIsRep0Long+pos, 1)
			bit(offLenRep+lenChoice, 0)
			for range 3 { // length 2
				bit(offLenRep+lenLow+pos*lenLowSyms+1, 0)
			}
		}
		e.low, e.rng = low, rng
		e.flush()
		return e.out
	}
	for _, tc := range []struct {
		name           string
		literal, short bool
		size           int64
		want           string // output, or "" for errDistance
	}{
		{"short rep first", false, true, 1, ""},
		{"rep match first", false, false, 2, ""},
		{"short rep after a literal", true, true, 2, "xx"},
		{"rep match after a literal", true, false, 3, "xxx"},
	} {
		comp := stream(tc.literal, tc.short)
		z, err := NewReader(bytes.NewReader(comp), props, tc.size, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		_, err = z.WriteTo(&out)
		if tc.want == "" {
			var ce *CorruptInputError
			if !errors.As(err, &ce) || ce.Reason != string(errDistance) {
				t.Errorf("%s: error %v, want a CorruptInputError (%s)", tc.name, err, errDistance)
			}
			continue
		}
		if err != nil || out.String() != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.name, out.String(), err, tc.want)
		}
	}
}
