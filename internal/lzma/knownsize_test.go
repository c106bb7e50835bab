package lzma

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/garc-dev/garc/internal/archive"
)

// TestKnownSizeEnd checks how a stream of declared size must end, as
// 7-Zip and XZ Utils require: with the range decoder finished or with an
// end marker; data going on past the size is corrupt.
func TestKnownSizeEnd(t *testing.T) {
	type stream struct {
		comp, props []byte
		data        []byte
	}
	enc := func(data []byte, eos bool) stream {
		o := LevelOptions(5)
		o.EOSMarker = eos
		comp, props := encodeLZMA(t, data, o)
		return stream{comp, props, data}
	}
	text := testData("text", 200000, 7)
	repeat := testData("repeat", 4096, 3) // long matches, a multiple of 16 (window = size)
	for _, tc := range []struct {
		name   string
		s      stream
		size   int64 // declared size; the output must be s.data[:size]
		reason string
	}{
		{"finished", enc(text, false), int64(len(text)), ""},
		{"finished window-sized", enc(repeat, false), int64(len(repeat)), ""},
		{"end marker after known size", enc(text, true), int64(len(text)), ""},
		{"end marker after window-sized", enc(repeat, true), int64(len(repeat)), ""},
		{"end marker, unknown size", enc(text, true), -1, ""},
		{"empty, finished", enc(nil, false), 0, ""},
		{"empty, end marker", enc(nil, true), 0, ""},
		{"data continues (one byte short)", enc(text, false), int64(len(text) - 1), "past the declared size"},
		{"data continues (half)", enc(text, true), int64(len(text) / 2), "past the declared size"},
		{"data continues (inside a match)", enc(repeat, false), 1001, "past the declared size"},
		{"data continues (size 0)", enc(text, false), 0, "past the declared size"},
	} {
		for _, oneByte := range []bool{false, true} {
			var r io.Reader = bytes.NewReader(tc.s.comp)
			if oneByte {
				r = iotest.OneByteReader(r)
			}
			z, err := NewReader(r, tc.s.props, tc.size, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(z)
			want := tc.s.data
			if tc.size >= 0 {
				want = want[:tc.size]
			}
			if tc.reason == "" {
				if err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s (one-byte reads %v): %d bytes, %v; want %d bytes, no error", tc.name, oneByte, len(got), err, len(want))
				}
				continue
			}
			var ce *CorruptInputError
			if !errors.As(err, &ce) || !errors.Is(err, archive.ErrFormat) || !strings.Contains(ce.Reason, tc.reason) {
				t.Errorf("%s (one-byte reads %v): error %v, want a CorruptInputError %q", tc.name, oneByte, err, tc.reason)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (one-byte reads %v): %d bytes before the error, want the %d declared", tc.name, oneByte, len(got), len(want))
			}
		}
	}
}
