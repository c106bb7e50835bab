package rar

import (
	"io"

	"github.com/garc-dev/garc/internal/rar/unpack5"
)

// unpack5Decoder adapts unpack5.Decoder (RAR5 and RAR7 LZ).
type unpack5Decoder struct{ *unpack5.Decoder }

func (d unpack5Decoder) reset(src io.Reader, dict, size int64, solid bool, version int) error {
	return d.Reset(src, unpack5.Params{DictSize: dict, UnpackedSize: size, Solid: solid, Version: version})
}

func init() {
	decoderFactories[algoRAR5] = func() lzDecoder { return unpack5Decoder{unpack5.NewDecoder()} }
}
