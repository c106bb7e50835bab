package lzma

import "io"

// inBufSize is the capacity of the input buffer; it must hold a whole
// LZMA2 chunk (64 KiB packed) plus its header. The buffer starts at
// firstInBuf, which holds all of a small stream, and takes inBufSize
// once more is asked of it or the stream turns out to be longer.
const (
	inBufSize  = 1 << 17
	firstInBuf = 4 << 10
)

// inBuffer buffers compressed input so that the range decoder can read
// from memory. buf has maxSymbolInput bytes beyond its capacity so that a
// decoder running past the valid data stays inside the slice; those bytes
// are never treated as data.
type inBuffer struct {
	r      io.Reader
	buf    []byte
	rp, wp int
	base   int64 // input offset of buf[0]
	eof    bool  // r returned io.EOF
	err    error // a read error other than io.EOF
}

func (b *inBuffer) reset(r io.Reader) {
	if b.buf == nil {
		b.buf = make([]byte, firstInBuf+maxSymbolInput)
	}
	b.r = r
	b.rp, b.wp = 0, 0
	b.base = 0
	b.eof = false
	b.err = nil
}

// size returns the capacity of the buffer.
func (b *inBuffer) size() int { return len(b.buf) - maxSymbolInput }

// grow gives the buffer its full capacity, keeping buf[:wp].
func (b *inBuffer) grow() {
	buf := make([]byte, inBufSize+maxSymbolInput)
	copy(buf, b.buf[:b.wp])
	b.buf = buf
}

// ensure tries to make n bytes (n <= inBufSize) available at buf[rp:] and
// returns how many are available. It moves the unread bytes to the front of
// the buffer, or into a larger one, so positions into buf are invalidated.
func (b *inBuffer) ensure(n int) int {
	if b.wp-b.rp >= n {
		return b.wp - b.rp
	}
	if n > b.size() {
		b.grow()
	}
	if b.rp > 0 {
		b.base += int64(b.rp)
		b.wp = copy(b.buf, b.buf[b.rp:b.wp])
		b.rp = 0
	}
	for b.wp < n && !b.eof && b.err == nil {
		m, err := b.r.Read(b.buf[b.wp:b.size()])
		b.wp += m
		if err == io.EOF {
			b.eof = true
		} else if err != nil {
			b.err = err
		} else if m == 0 {
			// Tolerate a few empty reads, but not forever.
			m, err = b.r.Read(b.buf[b.wp:b.size()])
			b.wp += m
			if m == 0 && err == nil {
				b.err = io.ErrNoProgress
			} else if err == io.EOF {
				b.eof = true
			} else if err != nil {
				b.err = err
			}
		}
	}
	if b.eof {
		clear(b.buf[b.wp : b.wp+maxSymbolInput])
	}
	return b.wp - b.rp
}

// fillMore reads at least one more chunk of input if possible, keeping
// buf[rp:wp].
func (b *inBuffer) fillMore() {
	if b.size() < inBufSize && b.base+int64(b.wp) >= int64(b.size()) {
		// The stream is longer than the first buffer.
		b.grow()
	}
	want := b.wp - b.rp + maxSymbolInput
	if want < b.size()/2 {
		want = b.size() / 2
	}
	b.ensure(want)
}

// readFull copies len(p) bytes into p, from the buffer first and then
// straight from the reader. It reports whether all bytes were read.
func (b *inBuffer) readFull(p []byte) bool {
	n := copy(p, b.buf[b.rp:b.wp])
	b.rp += n
	if n == len(p) {
		return true
	}
	if b.eof || b.err != nil {
		return false
	}
	// The buffer is empty: the bytes read straight from r follow it.
	m, err := io.ReadFull(b.r, p[n:])
	b.base += int64(b.wp + m)
	b.rp, b.wp = 0, 0
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			b.eof = true
		} else {
			b.err = err
		}
		return n+m == len(p)
	}
	return true
}

// offset returns the input offset of buf[i], clamped to the data read.
func (b *inBuffer) offset(i int) int64 { return b.base + int64(min(i, b.wp)) }

// failure returns the read error if there was one, else def.
func (b *inBuffer) failure(def error) error {
	if b.err != nil {
		return b.err
	}
	return def
}
