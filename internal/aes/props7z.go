package aes

import (
	"fmt"

	"github.com/garc-dev/garc/internal/archive"
)

// Props7z are the coder properties of 7-Zip's 7zAES method (ID 06F10701).
type Props7z struct {
	CyclesPower int      // log2 of the SHA-256 rounds; 0x3F: no hashing
	Salt        []byte   // 0..16 bytes
	IV          [16]byte // zero-padded to 16 bytes
}

// ParseProps7z decodes 7zAES coder properties: byte 0 holds the cycles
// power in its low 6 bits, bit 7 "salt present" and bit 6 "IV present";
// when either is set, byte 1 holds (salt size - bit 7) in its high nibble
// and (IV size - bit 6) in its low nibble, followed by the salt and the
// IV. Empty properties mean cycles power 0 with no salt and a zero IV.
// The returned Salt aliases props.
func ParseProps7z(props []byte) (Props7z, error) {
	var p Props7z
	if len(props) == 0 {
		return p, nil
	}
	b0 := props[0]
	p.CyclesPower = int(b0 & 0x3f)
	if b0&0xc0 == 0 {
		return p, nil
	}
	if len(props) < 2 {
		return p, fmt.Errorf("%w: 7zAES properties truncated", archive.ErrFormat)
	}
	saltSize := int(b0>>7&1) + int(props[1]>>4)
	ivSize := int(b0>>6&1) + int(props[1]&0x0f)
	if saltSize > 16 || ivSize > 16 {
		return p, fmt.Errorf("%w: 7zAES salt or IV longer than 16 bytes", archive.ErrFormat)
	}
	if len(props) < 2+saltSize+ivSize {
		return p, fmt.Errorf("%w: 7zAES properties truncated", archive.ErrFormat)
	}
	p.Salt = props[2 : 2+saltSize]
	copy(p.IV[:], props[2+saltSize:2+saltSize+ivSize])
	return p, nil
}
