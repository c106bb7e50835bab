package bzip2

import (
	"encoding/binary"
	"io"
)

// inBufSize is the size of the input buffer of a Reader.
const inBufSize = 64 << 10

// bitReader reads bits most significant first. The valid bits sit at the
// top of bits; the bits below the n valid ones are either zero or the true
// following bits of the input, so peeking past n near the end of the input
// sees zeros and callers compare the length they consume with n.
type bitReader struct {
	r        io.Reader
	buf      []byte
	pos, end int
	base     int64 // input offset of buf[0]
	bits     uint64
	n        uint
	eof      bool
	err      error   // sticky read error other than io.EOF
	rec      *record // when not nil, fill appends what it reads (first.go)
}

func (br *bitReader) reset(r io.Reader) {
	if br.buf == nil {
		br.buf = make([]byte, inBufSize)
	}
	br.r = r
	br.pos, br.end = 0, 0
	br.base = 0
	br.bits, br.n = 0, 0
	br.eof = false
	br.err = nil
}

// resetBytes makes br read data, which must not change while br reads it,
// in place: br never writes to it (fill returns at once at the end of the
// input) and keeps no other buffer until the next resetBytes.
func (br *bitReader) resetBytes(data []byte) {
	br.r = nil
	br.buf = data
	br.pos, br.end = 0, len(data)
	br.base = 0
	br.bits, br.n = 0, 0
	br.eof = true
	br.err = nil
}

// fill tries to make at least 8 unread bytes available in buf.
func (br *bitReader) fill() {
	if br.eof || br.err != nil {
		return
	}
	copy(br.buf, br.buf[br.pos:br.end])
	br.base += int64(br.pos)
	br.end -= br.pos
	br.pos = 0
	for empty := 0; br.end < 8; {
		k, err := br.r.Read(br.buf[br.end:])
		if br.rec != nil {
			br.rec.add(br.buf[br.end : br.end+k])
		}
		br.end += k
		if err == io.EOF {
			br.eof = true
			return
		}
		if err != nil {
			br.err = err
			return
		}
		if k == 0 {
			if empty++; empty >= 100 {
				br.err = io.ErrNoProgress
				return
			}
		}
	}
}

// refill tops the bit buffer up to at least 57 bits, or to what is left of
// the input. It must be called with n <= 56.
func (br *bitReader) refill() {
	if br.end-br.pos < 8 {
		br.fill()
	}
	if br.end-br.pos >= 8 {
		br.bits |= binary.BigEndian.Uint64(br.buf[br.pos:]) >> br.n
		br.pos += int(63-br.n) >> 3
		br.n |= 56
		return
	}
	for br.n <= 56 && br.pos < br.end {
		br.bits |= uint64(br.buf[br.pos]) << (56 - br.n)
		br.pos++
		br.n += 8
	}
}

// offset returns the input offset of the byte holding the next unread bit.
func (br *bitReader) offset() int64 { return br.base + int64(br.pos) - int64((br.n+7)/8) }

// stopAt stores the state of a decoding loop that kept the bit buffer in
// local variables (bits, n, pos) and returns the damage it found, so that
// offset reports where decoding stopped rather than where the loop began
// or last refilled the buffer.
func (br *bitReader) stopAt(bits uint64, n uint, pos int, what string) error {
	br.bits, br.n, br.pos = bits, n, pos
	return formatError(what)
}

// inputRead returns how many input bytes have been read.
func (br *bitReader) inputRead() int64 { return br.base + int64(br.end) }

// missing returns the error for input that ended (or failed) too early.
func (br *bitReader) missing() error {
	if br.err != nil {
		return br.err
	}
	return errTruncated
}

// readBits returns the next k (1..32) bits.
func (br *bitReader) readBits(k uint) (uint32, error) {
	if br.n < k {
		br.refill()
		if br.n < k {
			return 0, br.missing()
		}
	}
	v := uint32(br.bits >> (64 - k))
	br.bits <<= k
	br.n -= k
	return v, nil
}

// readBit returns the next bit.
func (br *bitReader) readBit() (bool, error) {
	if br.n == 0 {
		br.refill()
		if br.n == 0 {
			return false, br.missing()
		}
	}
	v := br.bits>>63 != 0
	br.bits <<= 1
	br.n--
	return v, nil
}

// alignByte drops the bits up to the next byte boundary of the input.
func (br *bitReader) alignByte() {
	k := br.n % 8
	br.bits <<= k
	br.n -= k
}

// atEOF reports whether the input has no unread byte left (after
// alignByte); it may read from the underlying reader to find out.
func (br *bitReader) atEOF() bool {
	if br.n > 0 {
		return false
	}
	br.refill()
	return br.n == 0
}
