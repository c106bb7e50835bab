package sevenzip

import (
	"io"
	"strconv"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
)

// addAESMethod adds the file's methods to the registry (see methods).
func addAESMethod(register func(uint64, *method)) {
	register(methodAES, &method{name: "7zAES", numIn: 1, newDecoder: newAESDecoder, describe: describeAES})
}

func describeAES(props []byte) string {
	p, err := aes.ParseProps7z(props)
	if err != nil {
		return "7zAES"
	}
	return "7zAES:" + strconv.Itoa(p.CyclesPower)
}

func newAESDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	p, err := aes.ParseProps7z(props)
	if err != nil {
		return nil, err
	}
	if d.password == nil {
		return nil, archive.ErrPasswordRequired
	}
	pw, err := d.password()
	if err != nil {
		return nil, err
	}
	key, err := d.key7z(pw, p.Salt, p.CyclesPower)
	if err != nil {
		return nil, err
	}
	r, err := aes.NewDecryptReader(in[0], key[:], p.IV[:])
	if err != nil {
		return nil, err
	}
	d.onClose(r)
	return r, nil
}
