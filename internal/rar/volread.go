package rar

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"fmt"
	"io"

	"github.com/garc-dev/garc/internal/archive"
)

// Headers, and the packed data of entries, are read through a volWindow:
// one reusable buffer of volume bytes, so that a run of small headers and
// stored entries costs one ReadAt per window instead of two or three per
// entry (issue 13: 302,000 preads for `garc t` of 100,000 stored RAR5
// entries). The reader keeps one for the headers while the archive is
// opened (dropped afterwards) and each Extract one for the data.

// maxWindow is the most volume bytes read ahead at once, and minWindowRead
// the least: a window that served several items (headers, or entries'
// data) is followed by one twice as large, one that served a single item
// by the smallest, so that the headers of an archive of large entries,
// and a few entries picked out of a large archive, cost reads near their
// size. An entry's data of maxWindow bytes or more is read straight into
// the caller's buffer.
const (
	maxWindow     = 256 << 10
	minWindowRead = 4 << 10
)

// volWindow holds the bytes [start, start+len(buf)) of volume vol. The
// zero value holds nothing.
type volWindow struct {
	vol      int
	buf      []byte
	start    int64
	served   int // the items that started in the window
	readSize int // the size of the last fill before need was added
}

// reset forgets the window's bytes (volumes are about to change), keeping
// the buffer.
func (w *volWindow) reset() {
	w.buf = w.buf[:0]
	w.served, w.readSize = 0, 0
}

// holds reports whether the window has the byte at off of volume vol.
func (w *volWindow) holds(vol int, off int64) bool {
	return vol == w.vol && off >= w.start && off-w.start < int64(len(w.buf))
}

// begin records that an item starts at off of volume vol.
func (w *volWindow) begin(vol int, off int64) {
	if w.holds(vol, off) {
		w.served++
	}
}

// fill reads the window from off of volume vol (ra, of size bytes): at
// least need bytes, fewer only at the end of the volume. An error comes
// with what was read before it.
func (w *volWindow) fill(ra io.ReaderAt, size int64, vol int, off int64, need int) error {
	if w.readSize == 0 || w.served <= 1 {
		w.readSize = minWindowRead
	} else {
		w.readSize = min(2*w.readSize, maxWindow)
	}
	want := max(0, min(int64(max(w.readSize, need)), size-off))
	if int64(cap(w.buf)) < want {
		w.buf = make([]byte, min(max(want, int64(2*cap(w.buf))), max(want, maxWindow)))
	}
	w.buf = w.buf[:want]
	w.vol, w.start, w.served = vol, off, 1
	n, err := ra.ReadAt(w.buf, off)
	w.buf = w.buf[:n]
	if n == int(want) {
		err = nil
	}
	return err
}

// bytes returns the n bytes at off of volume vol (ra, of size bytes),
// valid until the next call; bytes that run past the volume's end or a
// short read are an error wrapping archive.ErrFormat, like readFull's.
// Requests larger than the window are read into a buffer of their own.
func (w *volWindow) bytes(ra io.ReaderAt, size int64, vol int, off int64, n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w: negative length at offset %d", archive.ErrFormat, off)
	}
	if w.holds(vol, off) && int64(n) <= int64(len(w.buf))-(off-w.start) {
		i := off - w.start
		return w.buf[i : i+int64(n) : i+int64(n)], nil
	}
	if n > maxWindow {
		if int64(n) > size-off {
			return nil, fmt.Errorf("%w: truncated at offset %d", archive.ErrFormat, size)
		}
		p := make([]byte, n)
		return p, readFull(ra, p, off)
	}
	err := w.fill(ra, size, vol, off, n)
	if len(w.buf) < n {
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%w: truncated at offset %d", archive.ErrFormat, off+int64(len(w.buf)))
		}
		return nil, err
	}
	return w.buf[:n:n], nil
}

// volumeSection reads one piece of an entry's packed data through a
// window kept for the following pieces and entries, as io.SectionReader
// would: a volume shorter than the piece ends it early (the content
// reader then reports the missing bytes).
type volumeSection struct {
	win  volWindow
	ra   io.ReaderAt
	size int64 // the volume's size
	vol  int
	off  int64 // the volume offset of the next byte
	n    int64 // the bytes of the piece left
}

// open makes pt, a piece of an entry of r, the section read.
func (s *volumeSection) open(r *reader, pt *part) {
	s.ra, s.size, s.vol = r.vols[pt.vol], r.sizes[pt.vol], int(pt.vol)
	s.off, s.n = pt.offset, pt.size
	s.win.begin(s.vol, s.off)
}

// Read implements io.Reader.
func (s *volumeSection) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	if int64(len(p)) > s.n {
		p = p[:s.n]
	}
	var k int
	var err error
	switch {
	case s.win.holds(s.vol, s.off):
		k = copy(p, s.win.buf[s.off-s.win.start:])
	case s.n >= maxWindow:
		// A large piece: no copy through the window.
		k, err = s.ra.ReadAt(p, s.off)
	default:
		err = s.win.fill(s.ra, s.size, s.vol, s.off, int(s.n))
		if s.win.holds(s.vol, s.off) {
			k = copy(p, s.win.buf)
		}
	}
	s.off += int64(k)
	s.n -= int64(k)
	if k > 0 {
		return k, nil
	}
	if err == nil {
		err = io.EOF // the volume shrank since it was opened
	}
	return 0, err
}

// plainHeader returns a copy of enc, an encrypted header, in the reader's
// buffer for decrypted headers (valid until the next call): the window
// itself is never decrypted in place.
func (r *reader) plainHeader(enc []byte) []byte {
	if cap(r.hdrPlain) < len(enc) {
		r.hdrPlain = make([]byte, max(len(enc), 2*cap(r.hdrPlain)))
	}
	r.hdrPlain = r.hdrPlain[:len(enc)]
	copy(r.hdrPlain, enc)
	return r.hdrPlain
}

// headerCipher decrypts encrypted headers in place with AES-CBC, keeping
// the cipher of the last key, so that a header costs no key schedule or
// allocation of its own.
type headerCipher struct {
	key   [32]byte
	n     int // key length; 0 when no cipher is kept
	block cipher.Block
	mode  cipher.BlockMode
	// iv and first are the readers' room for a header's IV and first
	// block.
	iv, first [aes.BlockSize]byte
}

// decrypt decrypts buf (a multiple of 16 bytes) in place with key and iv.
func (c *headerCipher) decrypt(buf, key, iv []byte) error {
	if len(buf)%aes.BlockSize != 0 || len(iv) != aes.BlockSize {
		return fmt.Errorf("%w: encrypted header of %d bytes", archive.ErrFormat, len(buf))
	}
	switch {
	case c.n != len(key) || !bytes.Equal(c.key[:c.n], key):
		b, err := aes.NewCipher(key)
		if err != nil {
			return err
		}
		c.n = copy(c.key[:], key)
		c.block, c.mode = b, cipher.NewCBCDecrypter(b, iv)
	default:
		if m, ok := c.mode.(interface{ SetIV([]byte) }); ok {
			m.SetIV(iv)
		} else {
			c.mode = cipher.NewCBCDecrypter(c.block, iv)
		}
	}
	c.mode.CryptBlocks(buf, buf)
	return nil
}
