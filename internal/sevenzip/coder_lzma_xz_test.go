package sevenzip

// Decoders built on github.com/ulikunitz/xz/lzma, for tests and benchmarks
// only: BenchmarkLZMAEngines swaps them into the method registry to compare
// them with internal/lzma.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
	xzlzma "github.com/ulikunitz/xz/lzma"
)

func newLZMADecoderXZ(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	if len(props) != 5 {
		return nil, fmt.Errorf("LZMA properties of %d bytes: %w", len(props), archive.ErrFormat)
	}
	if props[0] >= 9*5*5 {
		return nil, fmt.Errorf("LZMA properties byte %d: %w", props[0], archive.ErrFormat)
	}
	dict := effectiveDict(uint64(binary.LittleEndian.Uint32(props[1:])), size)
	if err := d.opts.CheckLimit("LZMA dictionary size", dict); err != nil {
		return nil, err
	}
	if dict > 1<<31-1 {
		dict = 1<<31 - 1
	}
	// ulikunitz/xz reads the classic .lzma header: build one from the
	// coder properties and the known size.
	var hdr [13]byte
	hdr[0] = props[0]
	binary.LittleEndian.PutUint32(hdr[1:], uint32(dict))
	if size < 0 {
		binary.LittleEndian.PutUint64(hdr[5:], ^uint64(0))
	} else {
		binary.LittleEndian.PutUint64(hdr[5:], uint64(size))
	}
	r, err := xzlzma.ReaderConfig{DictCap: int(dict)}.NewReader(io.MultiReader(bytes.NewReader(hdr[:]), in[0]))
	if err != nil {
		return nil, wrapDecodeError(err)
	}
	return r, nil
}

func newLZMA2DecoderXZ(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	if len(props) != 1 {
		return nil, fmt.Errorf("LZMA2 properties of %d bytes: %w", len(props), archive.ErrFormat)
	}
	ds, err := lzma2DictSize(props[0])
	if err != nil {
		return nil, err
	}
	dict := effectiveDict(ds, size)
	if err := d.opts.CheckLimit("LZMA2 dictionary size", dict); err != nil {
		return nil, err
	}
	if dict > 1<<31-1 {
		dict = 1<<31 - 1
	}
	r, err := xzlzma.Reader2Config{DictCap: int(dict)}.NewReader2(in[0])
	if err != nil {
		return nil, wrapDecodeError(err)
	}
	return r, nil
}
