package stream

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/lzma"
)

// TestLZMAErrorOffset checks that damage in a .lzma file is reported at
// its offset in the file: the codec's offset plus the 13-byte header.
func TestLZMAErrorOffset(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	words := []string{"alpha ", "beta ", "gamma ", "delta\n", "epsilon ", "zeta "}
	var data []byte
	for len(data) < 200000 {
		data = append(data, words[rng.Intn(len(words))]...)
	}
	var comp bytes.Buffer
	w, err := lzma.NewWriter(&comp, lzma.LevelOptions(5))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file := func(size int, body []byte) []byte {
		f := append([]byte(nil), w.Props()...)
		f = binary.LittleEndian.AppendUint64(f, uint64(size))
		return append(f, body...)
	}
	good := file(len(data), comp.Bytes())
	if _, got, err := extractOne(t, "a.lzma", good); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("good file: %d bytes, %v", len(got), err)
	}
	flipped := append([]byte(nil), good...)
	flipped[5000] ^= 0x40
	truncated := good[:len(good)/2]
	for _, tc := range []struct {
		name     string
		file     []byte
		min, max int64 // the offset reported, in the file
	}{
		{"truncated", truncated, int64(len(truncated)), int64(len(truncated))},
		{"flipped byte", flipped, 5000, int64(len(flipped))},
		{"declared size too small", file(len(data)/2, comp.Bytes()), lzmaHeaderSize, int64(len(good))},
	} {
		_, _, err := extractOne(t, "a.lzma", tc.file)
		var ae *archive.Error
		var ce *lzma.CorruptInputError
		if !errors.As(err, &ae) || !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%s: error %v, want an archive.Error around an lzma.CorruptInputError", tc.name, err)
			continue
		}
		if ae.Offset != lzmaHeaderSize+ce.Offset || ae.Offset < tc.min || ae.Offset > tc.max {
			t.Errorf("%s: %v: offset %d (codec %d), want %d..%d = header + codec offset", tc.name, err, ae.Offset, ce.Offset, tc.min, tc.max)
		}
	}
}
