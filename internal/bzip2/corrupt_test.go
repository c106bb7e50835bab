package bzip2

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
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
