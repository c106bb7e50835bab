package lzcore

import (
	"bytes"
	"testing"
)

// TestResetSizeBuffer checks that a BitReader over a small source takes
// a small input buffer, grows it for larger sources, and reads a source
// correctly whatever the hint (one larger than its buffer included).
func TestResetSizeBuffer(t *testing.T) {
	data := make([]byte, 3000)
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	tests := []struct {
		hint    int64
		bufLen  int // len(r.buf) after ResetSize, starting without a buffer
		srcSize int
	}{
		{0, inBufSize, 3000},      // unknown
		{10, minInBufSize, 10},    // tiny
		{1000, 1000, 1000},        // small
		{100, minInBufSize, 3000}, // hint too small: refills
		{1 << 20, inBufSize, 3000},
	}
	for _, tt := range tests {
		var r BitReader
		r.ResetSize(bytes.NewReader(data[:tt.srcSize]), tt.hint)
		if len(r.buf) != tt.bufLen {
			t.Errorf("hint %d: buffer of %d bytes, want %d", tt.hint, len(r.buf), tt.bufLen)
		}
		for i := range tt.srcSize {
			if b, err := r.ReadByte(); err != nil || b != data[i] {
				t.Fatalf("hint %d: byte %d = %#x, %v; want %#x", tt.hint, i, b, err, data[i])
			}
		}
		if _, err := r.ReadByte(); err == nil {
			t.Errorf("hint %d: no error past the end", tt.hint)
		}
	}
	// A reader keeps its buffer for smaller sources and doubles it for
	// larger ones.
	var r BitReader
	r.ResetSize(bytes.NewReader(nil), 600)
	r.ResetSize(bytes.NewReader(nil), 100)
	if len(r.buf) != 600 {
		t.Errorf("buffer %d after a smaller source, want 600 kept", len(r.buf))
	}
	r.ResetSize(bytes.NewReader(nil), 700)
	if len(r.buf) != 1200 {
		t.Errorf("buffer %d after a larger source, want 1200 (doubled)", len(r.buf))
	}
	r.Reset(bytes.NewReader(nil))
	if len(r.buf) != inBufSize {
		t.Errorf("buffer %d for an unknown size, want %d", len(r.buf), inBufSize)
	}
}
