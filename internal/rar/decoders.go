package rar

import (
	"io"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/rar/unpack15"
	"github.com/garc-dev/garc/internal/rar/unpack20"
	"github.com/garc-dev/garc/internal/rar/unpack3"
	"github.com/garc-dev/garc/internal/rar/unpack5"
)

// lzDecoder is what the container needs from a decoder sub-package
// (unpack5, unpack3, unpack20, unpack15): reset for the next entry's packed
// stream, read exactly the unpacked size, release the window. maxMem bounds
// memory a decoder sizes from the stream itself rather than from the file
// header (the RAR 2.9–4.x PPMd model); 0 means no limit.
type lzDecoder interface {
	reset(src io.Reader, dictSize, unpackedSize int64, solid bool, version int, maxMem int64) error
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
		return unpack5Decoder{unpack5.NewDecoder()}, nil
	case algoRAR3:
		return unpack3Decoder{unpack3.NewDecoder()}, nil
	case algoRAR20:
		return unpack20Decoder{unpack20.NewDecoder()}, nil
	case algoRAR15:
		return unpack15Decoder{unpack15.NewDecoder()}, nil
	}
	return nil, &archive.UnsupportedError{What: algoName(a)}
}

// The adapters give each decoder package's Reset the container's
// parameters.

// unpack5Decoder adapts unpack5.Decoder (RAR5 and RAR7 LZ).
type unpack5Decoder struct{ *unpack5.Decoder }

func (d unpack5Decoder) reset(src io.Reader, dict, size int64, solid bool, version int, _ int64) error {
	return d.Reset(src, unpack5.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version})
}

// unpack3Decoder adapts unpack3.Decoder (RAR 2.9–4.x LZ, PPMd, filters).
type unpack3Decoder struct{ *unpack3.Decoder }

func (d unpack3Decoder) reset(src io.Reader, dict, size int64, solid bool, version int, maxMem int64) error {
	return d.Reset(src, unpack3.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version, MaxMem: maxMem})
}

// unpack20Decoder adapts unpack20.Decoder (RAR 2.0 LZ and audio).
type unpack20Decoder struct{ *unpack20.Decoder }

func (d unpack20Decoder) reset(src io.Reader, dict, size int64, solid bool, version int, _ int64) error {
	return d.Reset(src, unpack20.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version})
}

// unpack15Decoder adapts unpack15.Decoder (RAR 1.5, also RAR 1.3/1.4).
type unpack15Decoder struct{ *unpack15.Decoder }

func (d unpack15Decoder) reset(src io.Reader, dict, size int64, solid bool, version int, _ int64) error {
	return d.Reset(src, unpack15.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version})
}
