package sevenzip

import (
	"io"

	"github.com/garc-dev/garc/internal/lzma"
)

// The internal/lzma engine: decoders are reset and reused between folders
// through the Reader's pool.
func init() {
	lzmaEngines["garc"] = [2]newDecoderFunc{newLZMADecoderGarc, newLZMA2DecoderGarc}
	lzmaEngine = "garc"
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
	var p byte
	if len(props) == 1 {
		p = props[0]
	} else {
		return newLZMA2DecoderXZ(in, props, size, d) // reports the error
	}
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
