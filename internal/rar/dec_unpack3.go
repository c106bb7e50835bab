package rar

import (
	"io"

	"github.com/garc-dev/garc/internal/rar/unpack3"
)

// unpack3Decoder adapts unpack3.Decoder (RAR 2.9–4.x LZ, PPMd, filters).
type unpack3Decoder struct{ *unpack3.Decoder }

func (d unpack3Decoder) reset(src io.Reader, dict, size int64, solid bool, version int) error {
	return d.Reset(src, unpack3.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version})
}

func init() {
	decoderFactories[algoRAR3] = func() lzDecoder { return unpack3Decoder{unpack3.NewDecoder()} }
}
