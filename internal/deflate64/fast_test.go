package deflate64

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
)

// bitWriter packs Deflate bits least significant first.
type bitWriter struct {
	out   []byte
	acc   uint64
	n     uint
	total int // bits written
}

func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.n
	w.n += n
	w.total += int(n)
	for w.n >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.n -= 8
	}
}

// code writes a Huffman code of n bits, most significant bit first.
func (w *bitWriter) code(c uint32, n uint) { w.bits(uint64(reverseBits(c, n)), n) }

// fixedLiteral writes literal b (< 144) with the fixed code.
func (w *bitWriter) fixedLiteral(b byte) { w.code(0x30+uint32(b), 8) }

// TestFastLoopCorruptOffset checks the offset and the reason of corruption
// found deep in a block, by the fast decoding loop and, reading one byte at
// a time, by the careful path: the byte holding the first bit after the
// bad code, not where the loop started.
func TestFastLoopCorruptOffset(t *testing.T) {
	type corruptCase struct {
		name   string
		reason string
		bad    func(w *bitWriter)
	}
	var cases []corruptCase
	for _, tc := range []corruptCase{
		// Length code 257 (length 3), then distance code 30, which
		// plain Deflate reserves.
		{"distance code 30", "invalid distance code", func(w *bitWriter) { w.code(1, 7); w.code(30, 5) }},
		// Length 3 at distance 32769 (code 30 is Deflate64's), beyond
		// the 2000 bytes written: tested in Deflate64 mode below.
		{"distance beyond the start", "distance beyond the start of the stream", func(w *bitWriter) { w.code(1, 7); w.code(30, 5); w.bits(0, 14) }},
		// Length code 286 (fixed code 11000110), which both reserve.
		{"length code 286", "invalid length code", func(w *bitWriter) { w.code(0xC6, 8) }},
	} {
		cases = append(cases, tc)
		tc.name += ", one byte at a time"
		cases = append(cases, tc)
	}
	for _, tc := range cases {
		var w bitWriter
		w.bits(1, 1) // final
		w.bits(1, 2) // fixed codes
		for i := 0; i < 2000; i++ {
			w.fixedLiteral(byte('a' + i%26))
		}
		tc.bad(&w)
		want := int64(w.total / 8)
		for i := 0; i < 64; i++ {
			w.fixedLiteral('z')
		}
		w.bits(0, 7) // end of block
		w.bits(0, 7)
		d64 := strings.HasPrefix(tc.name, "distance beyond")
		var r io.Reader = bytes.NewReader(w.out)
		if strings.HasSuffix(tc.name, "at a time") {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(New(r, d64))
		var ce *CorruptInputError
		if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ce) || ce.Offset != want || ce.Reason != tc.reason {
			t.Errorf("%s: err = %v, want a CorruptInputError at offset %d (%s)", tc.name, err, want, tc.reason)
		}
		if len(got) != 2000 {
			t.Errorf("%s: %d bytes before the error, want 2000", tc.name, len(got))
		}
	}
}

// TestDeflate64LongLength decodes Deflate64's length code 285 (3 plus 16
// extra bits) deep in a block, by the fast loop and, reading one byte at a
// time, by the careful path, and the same code as plain Deflate's length
// 258 without extra bits.
func TestDeflate64LongLength(t *testing.T) {
	for _, tc := range []struct {
		name      string
		deflate64 bool
		oneByte   bool
		length    int
	}{
		{"Deflate64", true, false, 3 + 40000},
		{"Deflate64, one byte at a time", true, true, 3 + 40000},
		{"Deflate", false, false, 258},
		{"Deflate, one byte at a time", false, true, 258},
	} {
		var w bitWriter
		var want []byte
		w.bits(1, 1) // final
		w.bits(1, 2) // fixed codes
		for i := 0; i < 2000; i++ {
			w.fixedLiteral(byte('a' + i%26))
			want = append(want, byte('a'+i%26))
		}
		w.code(0xC5, 8) // length code 285
		if tc.deflate64 {
			w.bits(40000, 16)
		}
		w.code(9, 5) // distance code 9: 25 + 3 extra bits, 26
		w.bits(1, 3)
		for range tc.length {
			want = append(want, want[len(want)-26])
		}
		for i := 0; i < 64; i++ {
			w.fixedLiteral('z')
			want = append(want, 'z')
		}
		w.bits(0, 7) // end of block
		w.bits(0, 7)
		var r io.Reader = bytes.NewReader(w.out)
		if tc.oneByte {
			r = iotest.OneByteReader(r)
		}
		got, err := io.ReadAll(New(r, tc.deflate64))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes, err %v; want %d bytes", tc.name, len(got), err, len(want))
		}
	}
}

// TestFastCopyPeriods decodes matches of every short distance (the
// period-widening copy) and long ones (the word copy, overrunning into
// free room) as compress/flate makes them, read through buffers of
// changing sizes so that the window fills at every phase of a match.
func TestFastCopyPeriods(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	var data bytes.Buffer
	for data.Len() < 3<<20 {
		period := 1 + rng.Intn(16)
		pat := make([]byte, period)
		rng.Read(pat)
		for n := rng.Intn(600); n > 0; n-- {
			data.WriteByte(pat[n%period])
		}
		if rng.Intn(4) == 0 && data.Len() > 40000 {
			// A copy from far back: word copies of distant history.
			off := data.Len() - 1 - rng.Intn(32000)
			data.Write(append([]byte(nil), data.Bytes()[off:off+rng.Intn(data.Len()-off)%300]...))
		}
	}
	for _, level := range []int{1, 6, 9} {
		comp := flateCompress(t, data.Bytes(), level)
		d := New(bytes.NewReader(comp), false)
		var got bytes.Buffer
		buf := make([]byte, 70000)
		for size := 1; ; size = size*7%69997 + 1 {
			n, err := d.Read(buf[:size])
			got.Write(buf[:n])
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("level %d: %v", level, err)
			}
		}
		if !bytes.Equal(got.Bytes(), data.Bytes()) {
			t.Fatalf("level %d: %d bytes decoded differ from the %d encoded", level, got.Len(), data.Len())
		}
	}
}
