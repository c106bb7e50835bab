package sevenzip

import (
	"io"

	"github.com/garc-dev/garc/internal/ppmd"
)

func init() {
	register(methodPPMd, &method{name: "PPMD", numIn: 1, newDecoder: newPPMdDecoder, describe: describePPMd})
}

func describePPMd(props []byte) string {
	order, mem, err := ppmd.ParseProps7z(props)
	if err != nil {
		return "PPMD"
	}
	return "PPMD:o" + itoa(order) + ":mem" + sizeString(uint64(mem))
}

func newPPMdDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	order, mem, err := ppmd.ParseProps7z(props)
	if err != nil {
		return nil, err
	}
	if err := d.opts.CheckLimit("PPMd memory", int64(mem)); err != nil {
		return nil, err
	}
	r, err := ppmd.NewReader7z(asByteReader(in[0]), order, mem, size)
	if err != nil {
		return nil, wrapDecodeError(err)
	}
	return r, nil
}
