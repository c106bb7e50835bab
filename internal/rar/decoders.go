package rar

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/lzcore"
	"github.com/garc-dev/garc/internal/rar/unpack15"
	"github.com/garc-dev/garc/internal/rar/unpack20"
	"github.com/garc-dev/garc/internal/rar/unpack3"
	"github.com/garc-dev/garc/internal/rar/unpack5"
)

// lzDecoder is what the container needs from a decoder sub-package
// (unpack5, unpack3, unpack20, unpack15), all of which take the same
// lzcore.Params: reset for the next entry's packed stream, read exactly
// the unpacked size, release the window.
type lzDecoder interface {
	Reset(src io.Reader, p lzcore.Params) error
	Read(p []byte) (int, error)
	Close() error
}

// decoderSet holds one decoder per algorithm family for a Reader, so solid
// state carries over and windows are reused.
type decoderSet struct {
	d [numAlgos]lzDecoder
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

// newLZDecoder creates a decoder for family a.
func newLZDecoder(a algo) (lzDecoder, error) {
	switch a {
	case algoRAR5:
		return unpack5.NewDecoder(), nil
	case algoRAR3:
		return unpack3.NewDecoder(), nil
	case algoRAR20:
		return unpack20.NewDecoder(), nil
	case algoRAR15:
		return unpack15.NewDecoder(), nil
	}
	return nil, &archive.UnsupportedError{What: algoName(a)}
}
