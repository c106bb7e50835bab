package sevenzip

// Private stand-in for internal/aes until that package lands: 7-Zip's key
// derivation (SHA-256 over salt, UTF-16LE password and a 64-bit counter,
// 2^cycles rounds) and AES-256-CBC decryption.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"unicode/utf16"

	"github.com/garc-dev/garc/internal/archive"
)

const maxKDFCycles = 24

func standinKey7z(password string, salt []byte, cycles int, maxCycles int) ([32]byte, error) {
	var key [32]byte
	pw := utf16.Encode([]rune(password))
	pb := make([]byte, 2*len(pw))
	for i, c := range pw {
		binary.LittleEndian.PutUint16(pb[2*i:], c)
	}
	if cycles == 0x3F {
		n := copy(key[:], salt)
		copy(key[n:], pb)
		return key, nil
	}
	if cycles > maxCycles {
		return key, &archive.LimitError{What: "7zAES key derivation cycles power", Need: int64(cycles), Limit: int64(maxCycles)}
	}
	h := sha256.New()
	buf := make([]byte, 0, len(salt)+len(pb)+8)
	buf = append(buf, salt...)
	buf = append(buf, pb...)
	buf = append(buf, make([]byte, 8)...)
	ctr := buf[len(buf)-8:]
	for i := uint64(0); i < 1<<uint(cycles); i++ {
		binary.LittleEndian.PutUint64(ctr, i)
		h.Write(buf)
	}
	h.Sum(key[:0])
	return key, nil
}

type standinDecryptReader struct {
	r    io.Reader
	mode cipher.BlockMode
	buf  []byte
	pos  int // decrypted bytes available: buf[pos:end]
	end  int
	raw  int // undecrypted bytes after end: buf[end:raw]
	err  error
}

func newAESDecryptReader(r io.Reader, key, iv []byte) (*standinDecryptReader, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("7zAES: %w", archive.ErrFormat)
	}
	return &standinDecryptReader{r: r, mode: cipher.NewCBCDecrypter(b, iv), buf: make([]byte, 32<<10)}, nil
}

func (d *standinDecryptReader) Read(p []byte) (int, error) {
	for d.pos == d.end {
		// move leftover raw bytes to the front
		k := copy(d.buf, d.buf[d.end:d.raw])
		d.pos, d.end, d.raw = 0, 0, k
		if d.err != nil {
			return 0, d.err
		}
		for d.raw < 16 && d.err == nil {
			n, err := d.r.Read(d.buf[d.raw:])
			d.raw += n
			if err != nil {
				d.err = err
			}
		}
		if d.raw < 16 && d.err == nil {
			continue
		}
		n := d.raw - d.raw%16
		d.mode.CryptBlocks(d.buf[:n], d.buf[:n])
		d.end = n
		if n == 0 && d.err != nil {
			return 0, d.err
		}
	}
	n := copy(p, d.buf[d.pos:d.end])
	d.pos += n
	return n, nil
}

func (d *standinDecryptReader) Close() error { return nil }
