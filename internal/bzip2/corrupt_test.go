package bzip2

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"strconv"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// TestCorruptInputOffset checks that damage is reported as a
// CorruptInputError at its input offset, wrapping archive.ErrFormat (and
// io.ErrUnexpectedEOF for a truncation).
func TestCorruptInputOffset(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 300000)
	for i := range data {
		data[i] = "abcdefgh"[rng.Intn(8)]
	}
	comp := compressOurs(t, data, 9, 1, len(data))
	badMagic := append([]byte(nil), comp...)
	badMagic[4] ^= 0xFF // the first block's magic
	badLevel := append([]byte(nil), comp...)
	badLevel[3] = 'x'
	for _, tc := range []struct {
		name     string
		in       []byte
		min, max int64
		eof      bool
	}{
		{"bad block magic", badMagic, 4, 14, false},
		{"bad level", badLevel, 0, 4, false},
		{"truncated", comp[:len(comp)/2], int64(len(comp) / 2), int64(len(comp) / 2), true},
		{"truncated header", comp[:2], 2, 2, true},
	} {
		for _, threads := range []int{1, 2} {
			_, err := io.Copy(io.Discard, NewReaderThreads(bytes.NewReader(tc.in), threads))
			var ce *CorruptInputError
			if !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) {
				t.Errorf("%s: %v (%T), want a CorruptInputError wrapping ErrFormat", tc.name, err, err)
				continue
			}
			if ce.Offset < tc.min || ce.Offset > tc.max || errors.Is(err, io.ErrUnexpectedEOF) != tc.eof {
				t.Errorf("%s, %d threads: %v: offset %d, want %d..%d; unexpected EOF %v", tc.name, threads, err, ce.Offset, tc.min, tc.max, tc.eof)
			}
		}
	}
}

// TestDamageOffsetInBlock damages a later block of a multi-block stream
// at several places and checks that a CorruptInputError names the same
// offset for every thread count, one within the damaged block at or after
// the damage (where decoding stopped), not where the block's symbols or
// the last refill of the bit buffer began: the symbol loop keeps the bit
// buffer in local variables, and used to return without storing them
// back, so the offset depended on how the input had been buffered.
func TestDamageOffsetInBlock(t *testing.T) {
	// Numbers, as in the report of the bug: their runs of equal
	// move-to-front indexes give RUNA and RUNB short codes, so random
	// damage often decodes to a run longer than the block.
	rng := rand.New(rand.NewSource(7))
	var data []byte
	for i := 1000000; len(data) < 480000; i += 1 + rng.Intn(5) {
		data = strconv.AppendInt(data, int64(i), 10)
		data = append(data, '\n')
	}
	data = data[:480000]
	comp := compressOurs(t, data, 1, 1, len(data))
	starts := magicOffsets(comp)
	if len(starts) != 5 {
		t.Fatalf("%d blocks, want 5", len(starts))
	}
	located := 0
	for k := range 16 {
		// Damage 64 bytes in the fourth block (of five), at places spread over it.
		from, to := starts[3]+60, starts[4]-64
		at := from + (to-from)*int64(k)/16
		bad := append([]byte(nil), comp...)
		for i := range 64 {
			bad[at+int64(i)] = byte(rng.Intn(256))
		}
		var first error
		for _, threads := range []int{1, 2} {
			_, err := io.Copy(io.Discard, NewReaderThreads(bytes.NewReader(bad), threads))
			if threads == 1 {
				first = err
			} else if (err == nil) != (first == nil) || err != nil && err.Error() != first.Error() {
				t.Fatalf("damage at %d: threads %d: %v; threads 1: %v", at, threads, err, first)
			}
		}
		var ce *CorruptInputError
		if !errors.As(first, &ce) {
			continue // a checksum mismatch: the damage decoded to other symbols
		}
		located++
		if ce.Offset < at || ce.Offset >= starts[4] {
			t.Errorf("damage at %d..%d (block %d..%d): %v", at, at+64, starts[3], starts[4], first)
		}
	}
	if located < 4 {
		t.Errorf("%d of 16 damaged streams gave a located error, want at least 4", located)
	}
}

// magicOffsets returns the input offsets of the bytes holding the first
// bit of each block magic in comp.
func magicOffsets(comp []byte) []int64 {
	var offs []int64
	var w uint64
	for i, b := range comp {
		for bit := 7; bit >= 0; bit-- {
			w = w<<1 | uint64(b>>bit&1)
			if w&(1<<48-1) == blockMagic {
				pos := int64(i)*8 + int64(7-bit) - 47
				offs = append(offs, pos/8)
			}
		}
	}
	return offs
}
