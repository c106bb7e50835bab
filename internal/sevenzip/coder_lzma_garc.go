package sevenzip

import (
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"

	"github.com/garc-dev/garc/internal/lzma"
)

// The internal/lzma engine: decoders are reset and reused between folders
// through the Reader's pool.
func init() {
	lzmaEngines["garc"] = [2]newDecoderFunc{newLZMADecoderGarc, newLZMA2DecoderGarc}
}

func newLZMADecoderGarc(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	if z, ok := d.pool.get("lzma").(*lzma.Reader); ok {
		if err := z.Reset(in[0], props, size); err != nil {
			return nil, err
		}
		d.onClose(closerFunc(func() error { d.pool.put("lzma", z); return nil }))
		return z, nil
	}
	z, err := lzma.NewReader(in[0], props, size, d.opts.Limit())
	if err != nil {
		return nil, err
	}
	d.onClose(closerFunc(func() error { d.pool.put("lzma", z); return nil }))
	return z, nil
}

func newLZMA2DecoderGarc(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	if len(props) != 1 {
		return nil, fmt.Errorf("LZMA2 properties of %d bytes: %w", len(props), archive.ErrFormat)
	}
	p := props[0]
	if z, ok := d.pool.get("lzma2").(*lzma.Reader2); ok {
		if err := z.Reset(in[0], p, size); err != nil {
			return nil, err
		}
		d.onClose(closerFunc(func() error { d.pool.put("lzma2", z); return nil }))
		return z, nil
	}
	z, err := lzma.NewReader2(in[0], p, size, d.opts.Limit())
	if err != nil {
		return nil, err
	}
	d.onClose(closerFunc(func() error { d.pool.put("lzma2", z); return nil }))
	return z, nil
}
