package deflate64

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"testing"

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

// TestFastLoopCorruptOffset checks the offset of corruption found by the
// fast decoding loop, deep in a block: the byte holding the first bit
// after the bad code, not where the loop started.
func TestFastLoopCorruptOffset(t *testing.T) {
	for _, tc := range []struct {
		name string
		bad  func(w *bitWriter)
	}{
		// Length code 257 (length 3), then distance code 30, which
		// plain Deflate reserves.
		{"distance code 30", func(w *bitWriter) { w.code(1, 7); w.code(30, 5) }},
		// Length 3 at distance 32769 (code 30 is Deflate64's), beyond
		// the 2000 bytes written: tested in Deflate64 mode below.
		{"distance beyond the start", func(w *bitWriter) { w.code(1, 7); w.code(30, 5); w.bits(0, 14) }},
	} {
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
		d64 := tc.name != "distance code 30"
		got, err := io.ReadAll(New(bytes.NewReader(w.out), d64))
		var ce *CorruptInputError
		if !errors.Is(err, archive.ErrFormat) || !errors.As(err, &ce) || ce.Offset != want {
			t.Errorf("%s: err = %v, want a CorruptInputError at offset %d", tc.name, err, want)
		}
		if len(got) != 2000 {
			t.Errorf("%s: %d bytes before the error, want 2000", tc.name, len(got))
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
