package sevenzip

import (
	"io"

	"github.com/garc-dev/garc/internal/deflate64"
)

// addDeflate64Method adds the file's methods to the registry (see methods).
func addDeflate64Method(register func(uint64, *method)) {
	register(methodDeflate64, &method{name: "Deflate64", numIn: 1, newDecoder: newDeflate64Decoder})
}

func newDeflate64Decoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	rc := deflate64.NewReader(asByteReader(in[0]))
	d.onClose(rc)
	return rc, nil
}
