package unpack3

import (
	"encoding/binary"
	"io"
)

const inBufSize = 64 << 10

// bitReader reads bits most significant first from a buffered byte source.
// v holds the next bits left-aligned; n of them are valid. Bytes past the
// end of the source read as zeros and are counted, so that callers can
// detect a truncated stream at block boundaries without a check per bit.
type bitReader struct {
	v    uint64
	n    uint
	data []byte // valid bytes of buf
	pos  int    // next byte of data to load
	base int64  // stream offset of data[0]
	src  io.Reader
	buf  []byte
	eof  bool  // src is exhausted
	err  error // read error other than io.EOF
}

func (r *bitReader) reset(src io.Reader) {
	if r.buf == nil {
		r.buf = make([]byte, inBufSize)
	}
	*r = bitReader{src: src, buf: r.buf, data: r.buf[:0]}
}

// bitPos returns the number of bits consumed since reset.
func (r *bitReader) bitPos() int64 {
	return (r.base+int64(r.pos))*8 - int64(r.n)
}

// truncated reports whether bits beyond the end of the source were consumed.
func (r *bitReader) truncated() bool {
	return r.eof && r.bitPos() > (r.base+int64(len(r.data)))*8
}

// refill makes at least 56 bits available.
func (r *bitReader) refill() {
	if r.pos+8 <= len(r.data) {
		x := binary.BigEndian.Uint64(r.data[r.pos:])
		r.v |= x >> r.n
		k := (63 - r.n) >> 3
		r.pos += int(k)
		r.n += k << 3
		return
	}
	r.refillSlow()
}

func (r *bitReader) refillSlow() {
	for r.n < 56 {
		if r.pos >= len(r.data) {
			if !r.eof {
				r.fill()
				continue
			}
			// past the end: zero bits, counted by pos
			r.pos++
			r.n += 8
			continue
		}
		r.v |= uint64(r.data[r.pos]) << (56 - r.n)
		r.pos++
		r.n += 8
	}
}

// fill replaces the consumed buffer with new bytes from src.
func (r *bitReader) fill() {
	r.base += int64(len(r.data))
	r.pos -= len(r.data)
	r.data = r.buf[:0]
	for tries := 0; ; tries++ {
		n, err := r.src.Read(r.buf)
		if n > 0 {
			r.data = r.buf[:n]
			return
		}
		if err != nil || tries > 100 {
			if err != io.EOF && err != nil {
				r.err = err
			}
			r.eof = true
			return
		}
	}
}

// readBits returns the next k bits, 0 <= k <= 32.
func (r *bitReader) readBits(k uint) uint64 {
	if r.n < k {
		r.refill()
	}
	x := r.v >> 1 >> (63 - k) // k may be 0
	r.v <<= k
	r.n -= k
	return x
}

// alignByte skips to the next byte boundary.
func (r *bitReader) alignByte() {
	k := r.n & 7
	r.v <<= k
	r.n -= k
}

// ReadByte returns the next 8 bits; PPM blocks and filter records read
// bytes this way. It reports io.EOF once bits past the end of the source
// are consumed.
func (r *bitReader) ReadByte() (byte, error) {
	if r.n < 8 {
		r.refill()
	}
	b := byte(r.v >> 56)
	r.v <<= 8
	r.n -= 8
	if r.err != nil {
		return 0, r.err
	}
	if r.truncated() {
		return 0, io.EOF
	}
	return b, nil
}

// bitsLeft returns how many unread bits of the source are known to remain
// (at least the buffered ones; exactly the rest once the source ended).
func (r *bitReader) bitsLeft() int64 {
	r.refill()
	return (r.base+int64(len(r.data)))*8 - r.bitPos()
}
