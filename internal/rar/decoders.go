package rar

import (
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// lzDecoder is what the container needs from a decoder sub-package
// (unpack5, unpack3, unpack20, unpack15): reset for the next entry's packed
// stream, read exactly the unpacked size, release the window.
type lzDecoder interface {
	reset(src io.Reader, dictSize, unpackedSize int64, solid bool, version int) error
	Read(p []byte) (int, error)
	Close() error
}

// decoderSet holds one decoder per algorithm family for a Reader, so solid
// state carries over and windows are reused.
type decoderSet struct {
	d [5]lzDecoder
}

// get returns the Reader's decoder for family a, creating it on first use.
func (s *decoderSet) get(a algo) (lzDecoder, error) {
	if s.d[a] == nil {
		d, err := newLZDecoder(a)
		if err != nil {
			return nil, err
		}
		s.d[a] = d
	}
	return s.d[a], nil
}

func (s *decoderSet) close() {
	for i, d := range s.d {
		if d != nil {
			d.Close()
			s.d[i] = nil
		}
	}
}

// algoName names a decoder family for error messages.
func algoName(a algo) string {
	switch a {
	case algoRAR5:
		return "RAR5 compression"
	case algoRAR3:
		return "RAR 2.9-4.x compression"
	case algoRAR20:
		return "RAR 2.0 compression"
	case algoRAR15:
		return "RAR 1.5 compression"
	}
	return "stored"
}

// newLZDecoder creates a decoder for family a. Families whose decoder
// package has not landed yet report UnsupportedError.
func newLZDecoder(a algo) (lzDecoder, error) {
	if mk := decoderFactories[a]; mk != nil {
		return mk(), nil
	}
	return nil, &archive.UnsupportedError{What: fmt.Sprintf("%s (decoder not available)", algoName(a))}
}

// decoderFactories is filled by the adapter files of the decoder packages
// that exist.
var decoderFactories [5]func() lzDecoder
