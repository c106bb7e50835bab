package rar

// Private stand-in for internal/aes until that package lands; it follows the
// agreed API (KeyRAR5, KeyRAR3, NewDecryptReader) so switching is a rename.

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"io"
	"unicode/utf16"
)

func shimKeyRAR5(password string, salt []byte, lg2Count int) (key, hashKey [32]byte, pswCheck [8]byte, err error) {
	if lg2Count > 24 {
		err = errors.New("kdf count too large")
		return
	}
	mac := hmac.New(sha256.New, []byte(password))
	mac.Write(salt)
	mac.Write([]byte{0, 0, 0, 1})
	u := mac.Sum(nil)
	var acc [32]byte
	copy(acc[:], u)
	n := 1 << lg2Count
	var outs [3][32]byte
	stops := [3]int{n, n + 16, n + 32}
	si := 0
	for i := 1; si < 3; i++ {
		if i == stops[si] {
			outs[si] = acc
			si++
			if si == 3 {
				break
			}
		}
		mac.Reset()
		mac.Write(u)
		u = mac.Sum(u[:0])
		for j := range acc {
			acc[j] ^= u[j]
		}
	}
	key, hashKey = outs[0], outs[1]
	for i, b := range outs[2] {
		pswCheck[i%8] ^= b
	}
	return
}

func shimKeyRAR3(password string, salt []byte) (key [16]byte, iv [16]byte) {
	u := utf16.Encode([]rune(password))
	seed := make([]byte, 0, 2*len(u)+len(salt))
	for _, c := range u {
		seed = append(seed, byte(c), byte(c>>8))
	}
	seed = append(seed, salt...)
	h := sha1.New()
	const rounds = 0x40000
	var cnt [3]byte
	var sum [20]byte
	for i := 0; i < rounds; i++ {
		h.Write(seed)
		cnt[0], cnt[1], cnt[2] = byte(i), byte(i>>8), byte(i>>16)
		h.Write(cnt[:])
		if i%(rounds/16) == 0 {
			s := h.Sum(sum[:0])
			iv[i/(rounds/16)] = s[19]
		}
	}
	s := h.Sum(sum[:0])
	for i := 0; i < 4; i++ {
		binary.LittleEndian.PutUint32(key[i*4:], binary.BigEndian.Uint32(s[i*4:]))
	}
	return
}

type shimDecryptReader struct {
	r     io.Reader
	mode  cipher.BlockMode
	buf   []byte
	start int
	end   int // decrypted bytes buf[start:end]
	raw   int // undecrypted bytes buf[end:raw]
	err   error
}

func shimNewDecryptReader(r io.Reader, key, iv []byte) (*shimDecryptReader, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return &shimDecryptReader{r: r, mode: cipher.NewCBCDecrypter(b, iv), buf: make([]byte, 32<<10)}, nil
}

func (d *shimDecryptReader) Read(p []byte) (int, error) {
	for d.start == d.end {
		if d.err != nil {
			return 0, d.err
		}
		// move undecrypted tail to the front
		n := copy(d.buf, d.buf[d.end:d.raw])
		d.start, d.end, d.raw = 0, 0, n
		m, err := d.r.Read(d.buf[d.raw:])
		d.raw += m
		if err != nil {
			if err == io.EOF {
				d.err = io.EOF
			} else {
				d.err = err
			}
		}
		blocks := d.raw &^ 15
		if blocks > 0 {
			d.mode.CryptBlocks(d.buf[:blocks], d.buf[:blocks])
			d.end = blocks
		}
		if d.err == io.EOF && d.raw != d.end && d.start == d.end {
			d.err = io.ErrUnexpectedEOF
		}
	}
	n := copy(p, d.buf[d.start:d.end])
	d.start += n
	return n, nil
}

func (d *shimDecryptReader) Close() error { d.buf = nil; return nil }
