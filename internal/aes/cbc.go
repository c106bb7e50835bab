package aes

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

// BlockSize is the AES block size in bytes.
const BlockSize = aes.BlockSize

// bufSize is the size of the pooled working buffer; a multiple of
// BlockSize.
const bufSize = 32 << 10

// ErrClosed is returned by a DecryptReader or EncryptWriter used after
// Close.
var ErrClosed = errors.New("aes: use of closed stream")

// errPartialBlock reports ciphertext that does not end on a block boundary.
var errPartialBlock = fmt.Errorf("%w: AES ciphertext length is not a multiple of 16", archive.ErrFormat)

var bufPool = sync.Pool{New: func() any { return new([bufSize]byte) }}

// getBuf and putBuf take and return pooled buffers; putBuf clears the
// buffer first so that no plaintext stays in the pool.
func getBuf() *[bufSize]byte { return bufPool.Get().(*[bufSize]byte) }

func putBuf(b *[bufSize]byte) {
	clear(b[:])
	bufPool.Put(b)
}

// ivSetter is implemented by the CBC modes of crypto/cipher; it lets a
// stream with an unchanged key start a new chain without allocating.
type ivSetter interface{ SetIV([]byte) }

// cbcState holds the cipher for one key and the CBC mode built on it. A
// new key costs an allocation (crypto/aes keeps its schedule on the heap);
// a new IV with the same key does not.
type cbcState struct {
	key     [32]byte
	keyLen  int
	block   cipher.Block
	mode    cipher.BlockMode
	encrypt bool
}

func checkKeyIV(key, iv []byte) error {
	switch len(key) {
	case 16, 24, 32:
	default:
		return fmt.Errorf("aes: invalid key length %d", len(key))
	}
	if len(iv) != BlockSize {
		return fmt.Errorf("aes: invalid IV length %d", len(iv))
	}
	return nil
}

func (s *cbcState) set(key, iv []byte, encrypt bool) error {
	if err := checkKeyIV(key, iv); err != nil {
		return err
	}
	if s.mode != nil && s.encrypt == encrypt && s.keyLen == len(key) && bytes.Equal(s.key[:s.keyLen], key) {
		if m, ok := s.mode.(ivSetter); ok {
			m.SetIV(iv)
			return nil
		}
	}
	b, err := aes.NewCipher(key)
	if err != nil {
		return err
	}
	s.block = b
	s.keyLen = copy(s.key[:], key)
	s.encrypt = encrypt
	if encrypt {
		s.mode = cipher.NewCBCEncrypter(b, iv)
	} else {
		s.mode = cipher.NewCBCDecrypter(b, iv)
	}
	return nil
}

// wipe forgets the key. The expanded key schedule inside crypto/aes cannot
// be cleared from here; dropping every reference lets it be collected.
func (s *cbcState) wipe() {
	clear(s.key[:])
	s.keyLen = 0
	s.block = nil
	s.mode = nil
}

// DecryptReader decrypts an AES-CBC stream read from an underlying reader.
// It works in one pooled 32 KiB buffer, decrypting in place, and does not
// allocate per Read whatever the size of the caller's buffer. Close
// returns the buffer (cleared) to the pool and forgets the key; use after
// Close fails with ErrClosed.
//
// Ciphertext whose length is not a multiple of 16 yields the plaintext of
// the whole blocks followed by an error wrapping archive.ErrFormat.
// Callers that know the true plaintext size (7z, RAR pad the last block)
// truncate the stream themselves, e.g. with io.LimitReader.
type DecryptReader struct {
	r      io.Reader
	cbc    cbcState
	buf    *[bufSize]byte
	start  int // plaintext is buf[start:end]
	end    int
	fill   int // buf[end:fill] is ciphertext of an incomplete block
	err    error
	closed bool
}

// NewDecryptReader returns a DecryptReader over r with the given key (16,
// 24 or 32 bytes) and 16-byte IV.
func NewDecryptReader(r io.Reader, key, iv []byte) (*DecryptReader, error) {
	d := new(DecryptReader)
	if err := d.Reset(r, key, iv); err != nil {
		return nil, err
	}
	return d, nil
}

// Reset starts a new stream from r with key and iv, discarding buffered
// data. It does not allocate when the key is unchanged.
func (d *DecryptReader) Reset(r io.Reader, key, iv []byte) error {
	if d.closed {
		return ErrClosed
	}
	if err := d.cbc.set(key, iv, false); err != nil {
		return err
	}
	if d.buf == nil {
		d.buf = getBuf()
	}
	d.r = r
	d.start, d.end, d.fill = 0, 0, 0
	d.err = nil
	return nil
}

// Read implements io.Reader.
func (d *DecryptReader) Read(p []byte) (int, error) {
	if d.closed {
		return 0, ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	for d.start == d.end {
		if d.err != nil {
			return 0, d.err
		}
		d.refill()
	}
	n := copy(p, d.buf[d.start:d.end])
	d.start += n
	return n, nil
}

// refill reads more ciphertext after the carried partial block and
// decrypts every complete block.
func (d *DecryptReader) refill() {
	// Move the incomplete block to the front.
	tail := copy(d.buf[:], d.buf[d.end:d.fill])
	d.start, d.end, d.fill = 0, 0, tail
	for empty := 0; d.fill < BlockSize; {
		n, err := d.r.Read(d.buf[d.fill:])
		d.fill += n
		if err != nil {
			if err == io.EOF && d.fill%BlockSize != 0 {
				err = errPartialBlock
			}
			d.err = err
			break
		}
		if n == 0 {
			if empty++; empty >= 100 {
				d.err = io.ErrNoProgress
				break
			}
		}
	}
	whole := d.fill &^ (BlockSize - 1)
	if whole > 0 {
		d.cbc.mode.CryptBlocks(d.buf[:whole], d.buf[:whole])
	}
	d.end = whole
}

// Close releases the buffer and the key. It does not close the
// underlying reader. Closing twice is harmless.
func (d *DecryptReader) Close() error {
	if d.closed {
		return nil
	}
	d.closed = true
	if d.buf != nil {
		putBuf(d.buf)
		d.buf = nil
	}
	d.cbc.wipe()
	d.r = nil
	d.err = ErrClosed
	return nil
}

// EncryptWriter encrypts to an underlying writer with AES-CBC. Plaintext
// is collected in one pooled 32 KiB buffer and encrypted in place; Write
// and WriteByte do not allocate. Close pads the last partial block with
// zero bytes (7-Zip's convention: the real size is stored elsewhere),
// writes it, clears and returns the buffer and forgets the key, whether or
// not the underlying writer failed. Close does not close the underlying
// writer.
type EncryptWriter struct {
	w      io.Writer
	cbc    cbcState
	buf    *[bufSize]byte
	n      int // buffered plaintext bytes
	err    error
	closed bool
}

// NewEncryptWriter returns an EncryptWriter to w with the given key (16,
// 24 or 32 bytes) and 16-byte IV.
func NewEncryptWriter(w io.Writer, key, iv []byte) (*EncryptWriter, error) {
	if err := checkKeyIV(key, iv); err != nil {
		return nil, err
	}
	e := &EncryptWriter{w: w}
	if err := e.cbc.set(key, iv, true); err != nil {
		return nil, err
	}
	e.buf = getBuf()
	return e, nil
}

// Write implements io.Writer.
func (e *EncryptWriter) Write(p []byte) (int, error) {
	if e.closed {
		return 0, ErrClosed
	}
	if e.err != nil {
		return 0, e.err
	}
	written := 0
	for len(p) > 0 {
		c := copy(e.buf[e.n:], p)
		e.n += c
		p = p[c:]
		written += c
		if e.n == bufSize {
			if err := e.flush(bufSize); err != nil {
				return written, err
			}
		}
	}
	return written, nil
}

// WriteByte implements io.ByteWriter.
func (e *EncryptWriter) WriteByte(c byte) error {
	if e.closed {
		return ErrClosed
	}
	if e.err != nil {
		return e.err
	}
	e.buf[e.n] = c
	e.n++
	if e.n == bufSize {
		return e.flush(bufSize)
	}
	return nil
}

// flush encrypts and writes the first n (a multiple of 16) buffered bytes.
func (e *EncryptWriter) flush(n int) error {
	e.cbc.mode.CryptBlocks(e.buf[:n], e.buf[:n])
	_, err := e.w.Write(e.buf[:n])
	e.n = 0
	if err != nil {
		e.err = err
	}
	return err
}

// Close pads and writes the final block, then releases the buffer and the
// key. It returns the first error of the underlying writer, if any.
// Closing twice returns nil.
func (e *EncryptWriter) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	err := e.err
	if err == nil && e.n > 0 {
		padded := (e.n + BlockSize - 1) &^ (BlockSize - 1)
		clear(e.buf[e.n:padded])
		err = e.flush(padded)
	}
	putBuf(e.buf)
	e.buf = nil
	e.cbc.wipe()
	e.w = nil
	return err
}
