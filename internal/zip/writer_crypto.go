package zip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/binary"
	"hash"
	"io"
)

// aesWriter encrypts with WinZip AES-256 (AE-2): the salt and password
// verification value first, then the data in AES-CTR with a
// little-endian counter from 1, then 10 bytes of HMAC-SHA1 of the
// ciphertext (close).
type aesWriter struct {
	w       io.Writer
	block   cipher.Block
	mac     hash.Hash
	counter uint64
	ks      [aesBlock * 16]byte
	ksPos   int
	buf     []byte
}

// aes256Strength is the key strength code of AES-256.
const aes256Strength = 3

func newAESWriter(w io.Writer, password string, random io.Reader) (*aesWriter, error) {
	saltLen := aesSaltLen(aes256Strength)
	const keyLen = 32
	salt := make([]byte, saltLen)
	if _, err := io.ReadFull(random, salt); err != nil {
		return nil, err
	}
	dk, err := pbkdf2.Key(sha1.New, password, salt, aesIterations, 2*keyLen+aesPVLen)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(dk[:keyLen])
	if err != nil {
		return nil, err
	}
	a := &aesWriter{w: w, block: block, mac: hmac.New(sha1.New, dk[keyLen:2*keyLen])}
	a.ksPos = len(a.ks)
	if _, err := w.Write(append(salt, dk[2*keyLen:]...)); err != nil {
		return nil, err
	}
	return a, nil
}

func (a *aesWriter) Write(p []byte) (int, error) {
	if cap(a.buf) < len(p) {
		a.buf = make([]byte, len(p))
	}
	c := a.buf[:len(p)]
	for i := 0; i < len(p); {
		if a.ksPos == len(a.ks) {
			var ctr [aesBlock]byte
			for off := 0; off < len(a.ks); off += aesBlock {
				a.counter++
				binary.LittleEndian.PutUint64(ctr[:], a.counter)
				a.block.Encrypt(a.ks[off:off+aesBlock], ctr[:])
			}
			a.ksPos = 0
		}
		k := subtle.XORBytes(c[i:], p[i:], a.ks[a.ksPos:])
		a.ksPos += k
		i += k
	}
	a.mac.Write(c)
	return a.w.Write(c)
}

// close writes the authentication code.
func (a *aesWriter) close() error {
	_, err := a.w.Write(a.mac.Sum(nil)[:aesMACLen])
	return err
}

// zipCryptoWriter encrypts with the traditional PKWARE cipher.
type zipCryptoWriter struct {
	w   io.Writer
	z   zipCrypto
	buf []byte
}

// newZipCryptoWriter writes the 12-byte encryption header: 11 random
// bytes and the check byte (the high byte of the DOS time, as the data
// descriptor's CRC is not known yet), encrypted.
func newZipCryptoWriter(w io.Writer, password string, check byte, random io.Reader) (*zipCryptoWriter, error) {
	z := &zipCryptoWriter{w: w}
	z.z.init([]byte(password))
	hdr := make([]byte, zipCryptoHeaderLen)
	if _, err := io.ReadFull(random, hdr[:11]); err != nil {
		return nil, err
	}
	hdr[11] = check
	if _, err := z.Write(hdr); err != nil {
		return nil, err
	}
	return z, nil
}

func (z *zipCryptoWriter) Write(p []byte) (int, error) {
	if cap(z.buf) < len(p) {
		z.buf = make([]byte, len(p))
	}
	c := z.buf[:len(p)]
	for i, b := range p {
		t := z.z.k2 | 2
		c[i] = b ^ byte(t*(t^1)>>8)
		z.z.update(b)
	}
	return z.w.Write(c)
}
