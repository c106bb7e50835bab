package sevenzip

import (
	"io"

	"github.com/garc-dev/garc/internal/ppmd"
)

// addPPMdMethod adds the file's methods to the registry (see methods).
func addPPMdMethod(register func(uint64, *method)) {
	register(methodPPMd, &method{name: "PPMD", numIn: 1, newDecoder: newPPMdDecoder, describe: describePPMd, memory: ppmdMemory})
}

func describePPMd(props []byte) string {
	order, mem, err := ppmd.ParseProps7z(props)
	if err != nil {
		return "PPMD"
	}
	return "PPMD:o" + itoa(order) + ":mem" + sizeString(uint64(mem))
}

// ppmdMemory is the model arena a PPMd decoder allocates.
func ppmdMemory(props []byte, size int64) memoryNeed {
	_, mem, err := ppmd.ParseProps7z(props)
	if err != nil {
		return memoryNeed{}
	}
	return memoryNeed{kind: poolPPMd, n: int64(mem)}
}

// newPPMdDecoder returns a PPMd decoder, reusing a pooled one (and its
// model arena, which is never cleared again) when the folder reserved it.
func newPPMdDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	order, mem, err := ppmd.ParseProps7z(props)
	if err != nil {
		return nil, err
	}
	if err := d.opts.CheckLimit("PPMd memory", int64(mem)); err != nil {
		return nil, err
	}
	if v, charge := d.reuse(poolPPMd, int64(mem)); v != nil {
		r := v.(*ppmd.Reader7z)
		d.keep(poolPPMd, r, charge, false)
		if err := r.Reset(asByteReader(in[0]), order, mem, size); err != nil {
			return nil, wrapDecodeError(err)
		}
		return r, nil
	}
	r, err := ppmd.NewReader7z(asByteReader(in[0]), order, mem, size)
	if err != nil {
		return nil, wrapDecodeError(err)
	}
	d.keep(poolPPMd, r, int64(mem), true)
	return r, nil
}
