package archive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestLimitErrorAdvice(t *testing.T) {
	adj := &LimitError{What: "dictionary size", Need: 8 << 30, Limit: 4 << 30}
	if !strings.Contains(adj.Error(), "--max-dict") || !errors.Is(adj, ErrLimit) {
		t.Fatalf("adjustable limit: %q", adj.Error())
	}
	fixed := &LimitError{What: "7zAES key derivation cycles power", Need: 30, Limit: 24, Fixed: true}
	if strings.Contains(fixed.Error(), "--max-dict") || !errors.Is(fixed, ErrLimit) {
		t.Fatalf("fixed limit: %q", fixed.Error())
	}
}

func TestErrorLocation(t *testing.T) {
	e := &Error{Archive: "a.7z", Entry: "dir/f", Offset: 12, Err: ErrChecksum}
	if got, want := e.Error(), "a.7z: dir/f: at offset 12: checksum mismatch"; got != want {
		t.Fatalf("%q, want %q", got, want)
	}
	if !errors.Is(e, ErrChecksum) {
		t.Fatal("Error does not unwrap")
	}
	e = &Error{Archive: "a.7z", Offset: -1, Err: &UnsupportedError{What: "7z method Brotli"}}
	if got, want := e.Error(), "a.7z: unsupported 7z method Brotli"; got != want || !errors.Is(e, ErrUnsupported) {
		t.Fatalf("%q, want %q", got, want)
	}
}

func TestAsFormatError(t *testing.T) {
	plain := errors.New("bad symbol")
	limit := &LimitError{What: "window", Need: 2, Limit: 1}
	cases := []struct {
		in       error
		same     bool
		isFormat bool
	}{
		{nil, true, false},
		{limit, true, false},
		{fmt.Errorf("x: %w", ErrChecksum), true, false},
		{context.Canceled, true, false},
		{io.ErrUnexpectedEOF, false, true},
		{fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), false, true},
		{plain, false, true},
	}
	for _, c := range cases {
		got := AsFormatError(c.in)
		if c.same && got != c.in {
			t.Errorf("%v: changed to %v", c.in, got)
		}
		if errors.Is(got, ErrFormat) != c.isFormat {
			t.Errorf("%v: %v wraps ErrFormat = %v", c.in, got, !c.isFormat)
		}
		if c.in != nil && !HasSentinel(got) && !errors.Is(got, context.Canceled) {
			t.Errorf("%v: %v wraps no sentinel", c.in, got)
		}
	}
	if got := AsFormatError(plain); !strings.Contains(got.Error(), "bad symbol") {
		t.Errorf("the cause's text is lost: %v", got)
	}
}
