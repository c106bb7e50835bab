package lzcore

import (
	"encoding/binary"
	"io"
)

const inBufSize = 64 << 10

// BitReader reads bits most significant first from a buffered byte
// source. V holds the next bits left-aligned; N of them are valid. Bytes
// past the end of the source read as zeros and are counted, so that a
// decoder can detect a truncated stream with Truncated at convenient
// points instead of checking every bit.
//
// Decoders may read V and N directly (to peek at a Huffman code) and
// consume bits with Skip after a Refill.
type BitReader struct {
	V    uint64
	N    uint
	data []byte // valid bytes of buf
	pos  int    // next byte of data to load
	base int64  // stream offset of data[0]
	src  io.Reader
	buf  []byte
	eof  bool  // src is exhausted
	err  error // read error other than io.EOF
}

// Reset starts reading src, keeping the input buffer.
func (r *BitReader) Reset(src io.Reader) {
	if r.buf == nil {
		r.buf = make([]byte, inBufSize)
	}
	*r = BitReader{src: src, buf: r.buf, data: r.buf[:0]}
}

// Err returns the source's read error other than io.EOF, if any.
func (r *BitReader) Err() error { return r.err }

// BitPos returns the number of bits consumed since Reset.
func (r *BitReader) BitPos() int64 {
	return (r.base+int64(r.pos))*8 - int64(r.N)
}

// Truncated reports whether bits beyond the end of the source were
// consumed.
func (r *BitReader) Truncated() bool {
	return r.eof && r.BitPos() > (r.base+int64(len(r.data)))*8
}

// Refill makes at least 56 bits available in V.
func (r *BitReader) Refill() {
	if r.pos+8 <= len(r.data) {
		x := binary.BigEndian.Uint64(r.data[r.pos:])
		r.V |= x >> r.N
		k := (63 - r.N) >> 3
		r.pos += int(k)
		r.N += k << 3
		return
	}
	r.refillSlow()
}

func (r *BitReader) refillSlow() {
	for r.N < 56 {
		if r.pos >= len(r.data) {
			if !r.eof {
				r.fill()
				continue
			}
			// past the end: zero bits, counted by pos
			r.pos++
			r.N += 8
			continue
		}
		r.V |= uint64(r.data[r.pos]) << (56 - r.N)
		r.pos++
		r.N += 8
	}
}

// fill replaces the consumed buffer with new bytes from src.
func (r *BitReader) fill() {
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

// Fill makes at least k bits available, k <= 56. It is cheap (inlined)
// when they already are.
func (r *BitReader) Fill(k uint) {
	if r.N < k {
		r.Refill()
	}
}

// Bits returns and consumes the next k bits, 0 <= k <= 32, which Fill or
// Refill made available.
func (r *BitReader) Bits(k uint) uint32 {
	x := r.V >> 1 >> (63 - k) // k may be 0
	r.V <<= k
	r.N -= k
	return uint32(x)
}

// ReadBits returns the next k bits, 0 <= k <= 32.
func (r *BitReader) ReadBits(k uint) uint32 {
	if r.N < k {
		r.Refill()
	}
	x := r.V >> 1 >> (63 - k) // k may be 0
	r.V <<= k
	r.N -= k
	return uint32(x)
}

// Peek returns the next k bits without consuming them, 1 <= k <= 56;
// the caller must have refilled enough bits.
func (r *BitReader) Peek(k uint) uint32 { return uint32(r.V >> (64 - k)) }

// Skip consumes k bits that Refill made available.
func (r *BitReader) Skip(k uint) {
	r.V <<= k
	r.N -= k
}

// BitsLeft returns how many unread bits of the source are known to
// remain: at least the buffered ones, exactly the rest once the source
// ended.
func (r *BitReader) BitsLeft() int64 {
	r.Refill()
	return (r.base+int64(len(r.data)))*8 - r.BitPos()
}
