package lzma

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/archive"
)

// decodeErr2 decodes an LZMA2 stream to the end and returns the error.
func decodeErr2(comp []byte, prop byte, size int64) error {
	z, err := NewReader2(bytes.NewReader(comp), prop, size, 0)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, z)
	return err
}

// TestCorruptInputOffset checks that damage is reported as a
// CorruptInputError wrapping archive.ErrFormat, at the offset of the
// damage in the compressed input.
func TestCorruptInputOffset(t *testing.T) {
	data := testData("text", 300000, 5)
	comp, prop := encodeLZMA2(t, data, LevelOptions(5))
	last := len(comp) - 1 // the end byte
	badHeader := append([]byte(nil), comp...)
	badHeader[last] = 0x03 // no such chunk kind
	for _, tc := range []struct {
		name   string
		comp   []byte
		size   int64
		min    int64
		max    int64
		reason string
	}{
		{"bad chunk header", badHeader, -1, int64(last), int64(last), "invalid data"},
		{"truncated header", comp[:last], -1, int64(last), int64(last), "unexpected end"},
		{"truncated chunk", comp[:last/2], -1, int64(last / 2), int64(last / 2), "unexpected end"},
	} {
		err := decodeErr2(tc.comp, prop, tc.size)
		var ce *CorruptInputError
		if !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) {
			t.Errorf("%s: error %v (%T), want a CorruptInputError wrapping ErrFormat", tc.name, err, err)
			continue
		}
		if ce.Offset < tc.min || ce.Offset > tc.max || !strings.Contains(ce.Reason, tc.reason) {
			t.Errorf("%s: %v: offset %d, want %d..%d, reason %q", tc.name, err, ce.Offset, tc.min, tc.max, tc.reason)
		}
		if !strings.Contains(err.Error(), "packed offset") {
			t.Errorf("%s: message %q does not give the offset", tc.name, err)
		}
	}
	// Flipping bits inside the LZMA data of the first chunk fails
	// within that chunk.
	firstChunkEnd := 6 + (int(comp[3])<<8 | int(comp[4])) + 1
	for _, at := range []int{20, 1000, 30000} {
		if at >= firstChunkEnd {
			t.Fatalf("first chunk ends at %d", firstChunkEnd)
		}
		bad := append([]byte(nil), comp...)
		bad[at] ^= 0x55
		err := decodeErr2(bad, prop, int64(len(data)))
		var ce *CorruptInputError
		if err == nil {
			continue // damage can decode to other valid data; the CRC is the container's
		}
		if !errors.As(err, &ce) {
			t.Errorf("flip at %d: %v, want a CorruptInputError", at, err)
			continue
		}
		if ce.Offset < int64(at) || ce.Offset > int64(firstChunkEnd) {
			t.Errorf("flip at %d: offset %d, want within [%d, %d]", at, ce.Offset, at, firstChunkEnd)
		}
	}
	// LZMA: a stream cut short is reported at its end.
	lz, props := encodeLZMA(t, data, LevelOptions(5))
	z, err := NewReader(bytes.NewReader(lz[:len(lz)/2]), props, int64(len(data)), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.Copy(io.Discard, z)
	var ce *CorruptInputError
	if !errors.As(err, &ce) || ce.Offset != int64(len(lz)/2) {
		t.Errorf("truncated LZMA: %v, want a CorruptInputError at %d", err, len(lz)/2)
	}
}
