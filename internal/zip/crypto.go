package zip

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha1"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// zipCryptoHeaderLen is the length of the traditional encryption header.
const zipCryptoHeaderLen = 12

// zipCrypto is the traditional PKWARE stream cipher (APPNOTE 6.1): three
// 32-bit keys updated with every plaintext byte.
type zipCrypto struct {
	k0, k1, k2 uint32
}

func (z *zipCrypto) init(password []byte) {
	z.k0, z.k1, z.k2 = 0x12345678, 0x23456789, 0x34567890
	for _, c := range password {
		z.update(c)
	}
}

func (z *zipCrypto) update(c byte) {
	z.k0 = crc32.IEEETable[byte(z.k0)^c] ^ z.k0>>8
	z.k1 = (z.k1+z.k0&0xFF)*134775813 + 1
	z.k2 = crc32.IEEETable[byte(z.k2)^byte(z.k1>>24)] ^ z.k2>>8
}

func (z *zipCrypto) decrypt(b []byte) {
	k0, k1, k2 := z.k0, z.k1, z.k2
	for i, c := range b {
		t := k2 | 2
		p := c ^ byte(t*(t^1)>>8)
		b[i] = p
		k0 = crc32.IEEETable[byte(k0)^p] ^ k0>>8
		k1 = (k1+k0&0xFF)*134775813 + 1
		k2 = crc32.IEEETable[byte(k2)^byte(k1>>24)] ^ k2>>8
	}
	z.k0, z.k1, z.k2 = k0, k1, k2
}

// zipCryptoReader decrypts a traditionally encrypted stream.
type zipCryptoReader struct {
	r io.Reader
	z zipCrypto
}

func (r *zipCryptoReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.z.decrypt(p[:n])
	return n, err
}

// newZipCryptoReader reads and checks the 12-byte encryption header. The
// last header byte must equal the high byte of the CRC or, when the sizes
// and CRC follow in a data descriptor, of the DOS modification time
// (APPNOTE 6.1.6); either is accepted in that case, as Info-ZIP does.
func newZipCryptoReader(r io.Reader, password string, f *file) (*zipCryptoReader, error) {
	zr := &zipCryptoReader{r: r}
	zr.z.init([]byte(password))
	var hdr [zipCryptoHeaderLen]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, fmt.Errorf("encryption header: %w", archive.ErrFormat)
	}
	zr.z.decrypt(hdr[:])
	check := hdr[11]
	ok := check == byte(f.crc>>24)
	if f.flags&flagDescriptor != 0 && check == byte(f.dosTime>>8) {
		ok = true
	}
	if !ok {
		return nil, archive.ErrWrongPassword
	}
	return zr, nil
}

// WinZip AES (APPNOTE 7.2 pointer to WinZip's "AES Encryption
// Information: Encryption Specification AE-1 and AE-2").
const (
	aesPVLen      = 2  // password verification value
	aesMACLen     = 10 // truncated HMAC-SHA1
	aesIterations = 1000
	methodAES     = 99
	aesBlock      = aes.BlockSize
)

// aesSaltLen returns the salt length for a key strength (1, 2, 3).
func aesSaltLen(strength byte) int { return 4 * (int(strength) + 1) }

// aesReader decrypts WinZip AES data: AES in CTR mode with a 128-bit
// little-endian counter starting at 1, authenticated by HMAC-SHA1 over
// the ciphertext.
type aesReader struct {
	r       io.Reader // ciphertext, bounded to its length
	block   cipher.Block
	mac     hash.Hash
	counter uint64
	ks      [aesBlock * 16]byte // key stream
	ksPos   int
	ksLen   int
	wantMAC [aesMACLen]byte
	tail    *tailReader // holds wantMAC at the end of a stream (newAESStream)
}

// newAESReader derives the keys from the password and the salt at the
// start of src, checks the password verification value and returns a
// reader over the plaintext of the dataLen bytes that follow; src must
// hold salt, verifier, data and MAC (dataLen + overhead bytes).
func newAESReader(src io.ReaderAt, dataLen int64, password string, strength byte) (*aesReader, error) {
	if strength < 1 || strength > 3 {
		return nil, &archive.UnsupportedError{What: fmt.Sprintf("WinZip AES key strength %d", strength)}
	}
	saltLen := aesSaltLen(strength)
	head := make([]byte, saltLen+aesPVLen)
	if _, err := src.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("AES header: %w", archive.ErrFormat)
	}
	ar, err := newAESKeys(head, password, strength)
	if err != nil {
		return nil, err
	}
	ar.r = io.NewSectionReader(src, int64(saltLen+aesPVLen), dataLen)
	if _, err := src.ReadAt(ar.wantMAC[:], int64(saltLen+aesPVLen)+dataLen); err != nil {
		return nil, fmt.Errorf("AES authentication code: %w", archive.ErrFormat)
	}
	return ar, nil
}

// newAESKeys derives the keys from the password and head (the salt and
// the password verification value) and checks the verification value;
// the ciphertext reader is left to the caller.
func newAESKeys(head []byte, password string, strength byte) (*aesReader, error) {
	saltLen := aesSaltLen(strength)
	keyLen := 8 * (int(strength) + 1)
	dk, err := pbkdf2.Key(sha1.New, password, head[:saltLen], aesIterations, 2*keyLen+aesPVLen)
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare(dk[2*keyLen:], head[saltLen:]) != 1 {
		return nil, archive.ErrWrongPassword
	}
	block, err := aes.NewCipher(dk[:keyLen])
	if err != nil {
		return nil, err
	}
	return &aesReader{block: block, mac: hmac.New(sha1.New, dk[keyLen:2*keyLen])}, nil
}

// newAESStream reads the salt and password verification value at the
// start of src, an entry's stored data as it arrives, and returns a
// reader over the plaintext that follows; the authentication code is the
// last 10 bytes of src, held back until its end.
func newAESStream(src io.Reader, password string, strength byte) (*aesReader, error) {
	if strength < 1 || strength > 3 {
		return nil, &archive.UnsupportedError{What: fmt.Sprintf("WinZip AES key strength %d", strength)}
	}
	head := make([]byte, aesSaltLen(strength)+aesPVLen)
	if _, err := io.ReadFull(src, head); err != nil {
		return nil, fmt.Errorf("AES header: %w", archive.ErrFormat)
	}
	ar, err := newAESKeys(head, password, strength)
	if err != nil {
		return nil, err
	}
	ar.tail = &tailReader{r: src, keep: aesMACLen}
	ar.r = ar.tail
	return ar, nil
}

// tailReader reads r except its last keep bytes, which it holds.
type tailReader struct {
	r    io.Reader
	keep int
	buf  []byte // bytes read from r not yet given out
	end  bool   // r has ended: buf is the tail
	err  error
}

func (t *tailReader) Read(p []byte) (int, error) {
	if t.buf == nil {
		t.buf = make([]byte, 0, 32<<10)
	}
	for !t.end && len(t.buf) <= t.keep {
		n, err := t.r.Read(t.buf[len(t.buf):cap(t.buf)])
		t.buf = t.buf[:len(t.buf)+n]
		if err == io.EOF {
			t.end = true
		} else if err != nil {
			t.err = err
			return 0, err
		}
	}
	if len(t.buf) <= t.keep {
		return 0, io.EOF
	}
	n := copy(p, t.buf[:len(t.buf)-t.keep])
	t.buf = t.buf[:copy(t.buf, t.buf[n:])]
	return n, nil
}

// held returns the last keep bytes once r has ended.
func (t *tailReader) held() ([]byte, bool) {
	return t.buf, t.end && len(t.buf) == t.keep
}

// aesOverhead is the bytes WinZip AES adds to the compressed data.
func aesOverhead(strength byte) int64 {
	return int64(aesSaltLen(strength) + aesPVLen + aesMACLen)
}

func (a *aesReader) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	a.mac.Write(p[:n])
	for i := 0; i < n; {
		if a.ksPos == a.ksLen {
			a.refill()
		}
		k := subtle.XORBytes(p[i:n], p[i:n], a.ks[a.ksPos:a.ksLen])
		a.ksPos += k
		i += k
	}
	return n, err
}

func (a *aesReader) refill() {
	var ctr [aesBlock]byte
	for off := 0; off < len(a.ks); off += aesBlock {
		a.counter++
		binary.LittleEndian.PutUint64(ctr[:], a.counter)
		a.block.Encrypt(a.ks[off:off+aesBlock], ctr[:])
	}
	a.ksPos, a.ksLen = 0, len(a.ks)
}

// verify reads any ciphertext the decompressor left unread into the MAC
// and compares the authentication code.
func (a *aesReader) verify() error {
	if _, err := io.Copy(a.mac, a.r); err != nil {
		return err
	}
	if a.tail != nil {
		mac, ok := a.tail.held()
		if !ok {
			return fmt.Errorf("AES authentication code cut short: %w", archive.ErrFormat)
		}
		copy(a.wantMAC[:], mac)
	}
	if !hmac.Equal(a.mac.Sum(nil)[:aesMACLen], a.wantMAC[:]) {
		return fmt.Errorf("%w? AES authentication code: %w", archive.ErrWrongPassword, archive.ErrChecksum)
	}
	return nil
}
