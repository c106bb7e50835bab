package archive

import (
	"errors"
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
