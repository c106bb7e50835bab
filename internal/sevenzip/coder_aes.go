package sevenzip

import (
	"fmt"
	"io"
	"strconv"

	"github.com/garc-dev/garc/internal/aes"
	"github.com/garc-dev/garc/internal/archive"
)

func init() {
	register(methodAES, &method{name: "7zAES", numIn: 1, newDecoder: newAESDecoder, describe: describeAES})
}

// aesProps are the parsed 7zAES coder properties.
type aesProps struct {
	cycles int
	salt   []byte
	iv     [16]byte
}

// parseAESProps decodes the 7zAES properties: the first byte holds the
// cycles power in its low 6 bits and one extra bit each for the salt and
// IV sizes; the second byte holds the rest of both sizes (salt high nibble,
// IV low nibble); salt and IV follow.
func parseAESProps(props []byte) (aesProps, error) {
	var p aesProps
	if len(props) < 1 {
		return p, fmt.Errorf("7zAES without properties: %w", archive.ErrFormat)
	}
	b0 := props[0]
	p.cycles = int(b0 & 0x3F)
	if b0&0xC0 == 0 {
		return p, nil
	}
	if len(props) < 2 {
		return p, fmt.Errorf("7zAES properties too short: %w", archive.ErrFormat)
	}
	b1 := props[1]
	saltSize := int(b0>>7&1) + int(b1>>4)
	ivSize := int(b0>>6&1) + int(b1&0x0F)
	if len(props) < 2+saltSize+ivSize {
		return p, fmt.Errorf("7zAES properties too short: %w", archive.ErrFormat)
	}
	p.salt = props[2 : 2+saltSize]
	copy(p.iv[:], props[2+saltSize:2+saltSize+ivSize])
	return p, nil
}

func describeAES(props []byte) string {
	p, err := parseAESProps(props)
	if err != nil {
		return "7zAES"
	}
	return "7zAES:" + strconv.Itoa(p.cycles)
}

func newAESDecoder(in []io.Reader, props []byte, size int64, d *decodeContext) (io.Reader, error) {
	p, err := parseAESProps(props)
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
	key, err := d.key7z(pw, p.salt, p.cycles)
	if err != nil {
		return nil, err
	}
	r, err := aes.NewDecryptReader(in[0], key[:], p.iv[:])
	if err != nil {
		return nil, err
	}
	d.onClose(r)
	return r, nil
}
