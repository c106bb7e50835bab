package lzcore

import (
	"encoding/binary"
	"io"
)

// inBufSize is the input buffer of a BitReader over a large or unknown
// source; minInBufSize the least one over a small source.
const (
	inBufSize    = 64 << 10
	minInBufSize = 512
)

// BitReader reads bits most significant first from a buffered byte
// source. V holds the next bits left-aligned; N of them are valid. Bytes
// past the end of the source read as zeros and are counted, so that a
// decoder can detect a truncated stream with Truncated at convenient
// points instead of checking every bit.
//
// Decoders may read V and N directly (to peek at a Huffman code) and
// consume bits with Skip after a Refill. The hottest loops (unpack3,
// unpack5) go further: they copy V, N, Pos and Data into locals, refill
// from Data themselves while Pos+8 <= len(Data), store V, N and Pos back
// before calling any method, and reload all four after RefillSlow or
// Refill. Nothing else may write the exported fields.
type BitReader struct {
	V    uint64
	N    uint
	Data []byte // valid bytes of the input buffer
	Pos  int    // next byte of Data to load into V
	Base int64  // stream offset of Data[0]
	src  io.Reader
	buf  []byte
	eof  bool  // src is exhausted
	err  error // read error other than io.EOF
}

// Reset starts reading src, keeping the input buffer.
func (r *BitReader) Reset(src io.Reader) { r.ResetSize(src, 0) }

// ResetSize starts reading src, which holds size bytes (0 when unknown),
// keeping the input buffer when it is large enough. The buffer is sized
// to a small source (at least minInBufSize bytes) rather than taking
// inBufSize for a few bytes; it grows, doubling, as larger sources come.
func (r *BitReader) ResetSize(src io.Reader, size int64) {
	want := inBufSize
	if size > 0 && size < inBufSize {
		want = max(int(size), minInBufSize)
	}
	if len(r.buf) < want {
		r.buf = make([]byte, min(max(want, 2*len(r.buf)), inBufSize))
	}
	*r = BitReader{src: src, buf: r.buf, Data: r.buf[:0]}
}

// Err returns the source's read error other than io.EOF, if any.
func (r *BitReader) Err() error { return r.err }

// BitPos returns the number of bits consumed since Reset.
func (r *BitReader) BitPos() int64 {
	return (r.Base+int64(r.Pos))*8 - int64(r.N)
}

// InputOffset returns the byte offset in the source of the next bit to
// read, or the source's length when bits past its end (read as zeros)
// were consumed: where a decoder reports damage (CorruptInputError).
func (r *BitReader) InputOffset() int64 {
	off := r.BitPos() / 8
	if r.eof {
		off = min(off, r.Base+int64(len(r.Data)))
	}
	return off
}

// Truncated reports whether bits beyond the end of the source were
// consumed.
func (r *BitReader) Truncated() bool {
	return r.eof && r.BitPos() > (r.Base+int64(len(r.Data)))*8
}

// Refill makes at least 56 bits available in V.
func (r *BitReader) Refill() {
	if r.Pos+8 <= len(r.Data) {
		r.V, r.N, r.Pos = Load(r.V, r.N, r.Data, r.Pos)
		return
	}
	r.RefillSlow()
}

// Load is Refill's fast step for hot loops that keep the reader's state
// in locals: it loads whole bytes of data from pos into the left-aligned
// bits v, of which nb are valid, until at least 56 are, and returns the
// new state. The caller checks pos+8 <= len(data). It inlines, so that
//
//	if pos+8 <= len(data) {
//		v, nb, pos = lzcore.Load(v, nb, data, pos)
//	}
//
// compiles to the same code as the load written out.
func Load(v uint64, nb uint, data []byte, pos int) (uint64, uint, int) {
	x := binary.BigEndian.Uint64(data[pos : pos+8])
	k := (63 - nb) >> 3
	return v | x>>nb, nb + k<<3, pos + int(k)
}

// RefillSlow is the part of Refill that loads byte by byte, reads the
// source and pads with zero bits past its end; it makes at least 56 bits
// available.
func (r *BitReader) RefillSlow() {
	for r.N < 56 {
		if r.Pos >= len(r.Data) {
			if !r.eof {
				r.fill()
				continue
			}
			// past the end: zero bits, counted by pos
			r.Pos++
			r.N += 8
			continue
		}
		r.V |= uint64(r.Data[r.Pos]) << (56 - r.N)
		r.Pos++
		r.N += 8
	}
}

// fill replaces the consumed buffer with new bytes from src.
func (r *BitReader) fill() {
	r.Base += int64(len(r.Data))
	r.Pos -= len(r.Data)
	r.Data = r.buf[:0]
	for tries := 0; ; tries++ {
		n, err := r.src.Read(r.buf)
		if n > 0 {
			r.Data = r.buf[:n]
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
	return (r.Base+int64(len(r.Data)))*8 - r.BitPos()
}

// AlignByte skips to the next byte boundary of the stream.
func (r *BitReader) AlignByte() {
	k := r.N & 7
	r.V <<= k
	r.N -= k
}

// ReadByte returns the next 8 bits (PPMd blocks and filter records read
// bytes this way). It reports the source's error, or io.EOF once bits past
// the end of the source are consumed.
func (r *BitReader) ReadByte() (byte, error) {
	if r.N < 8 {
		r.Refill()
	}
	b := byte(r.V >> 56)
	r.V <<= 8
	r.N -= 8
	if r.err != nil {
		return 0, r.err
	}
	if r.Truncated() {
		return 0, io.EOF
	}
	return b, nil
}
