package ppmd

import "io"

// encBufSize is the output buffer of the 7z range encoder.
const encBufSize = 32 << 10

// rangeEncoder7z is 7-Zip's range encoder (the one LZMA uses), the
// counterpart of rangeDecoder in the 7z flavour. low holds 33 bits: a
// carry out of the 32-bit interval start is kept in bit 32 until the
// pending bytes are written. The top byte of low is not written at once:
// it is held in cache, and a run of 0xFF bytes after it is only counted
// (cacheSize), because a later carry may still turn cache+1 and the run
// into zeros.
//
// Output goes to buf and is written to dst whenever buf fills; the first
// write error is kept in err and stops all further output.
type rangeEncoder7z struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int64 // cache plus the pending 0xFF bytes
	buf       []byte
	dst       io.Writer
	written   int64 // bytes handed to dst
	err       error
}

// reset starts a new stream to dst, keeping the output buffer.
func (e *rangeEncoder7z) reset(dst io.Writer) {
	e.low, e.rng = 0, 0xFFFFFFFF
	e.cache, e.cacheSize = 0, 1
	if e.buf == nil {
		e.buf = make([]byte, 0, encBufSize)
	}
	e.buf = e.buf[:0]
	e.dst = dst
	e.written = 0
	e.err = nil
}

// putByte appends one output byte, writing the buffer out when full.
func (e *rangeEncoder7z) putByte(b byte) {
	if len(e.buf) == cap(e.buf) {
		e.flushBuf()
	}
	e.buf = append(e.buf, b)
}

// flushBuf writes the buffered bytes to dst.
func (e *rangeEncoder7z) flushBuf() {
	if e.err == nil && len(e.buf) > 0 {
		n, err := e.dst.Write(e.buf)
		e.written += int64(n)
		if err == nil && n < len(e.buf) {
			err = io.ErrShortWrite
		}
		e.err = err
	}
	e.buf = e.buf[:0]
}

// shiftLow moves the top byte of low out: it settles cache and the run of
// 0xFF bytes behind it unless the byte is 0xFF and no carry is pending,
// in which case the run just grows.
func (e *rangeEncoder7z) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		e.putByte(e.cache + carry)
		for ; e.cacheSize > 1; e.cacheSize-- {
			e.putByte(0xFF + carry)
		}
		e.cacheSize = 0
		e.cache = byte(uint32(e.low) >> 24)
	}
	e.cacheSize++
	e.low = uint64(uint32(e.low) << 8)
}

// encode codes the interval [start, start+size) of total.
func (e *rangeEncoder7z) encode(start, size, total uint32) {
	e.rng /= total
	e.low += uint64(start) * uint64(e.rng)
	e.rng *= size
	for e.rng < rcTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

// encodeBit codes a binary decision whose probability of 0 is pr/2^14
// (bit == false takes the lower part of the range).
func (e *rangeEncoder7z) encodeBit(pr uint32, bit bool) {
	size0 := (e.rng >> 14) * pr
	if !bit {
		e.rng = size0
	} else {
		e.low += uint64(size0)
		e.rng -= size0
	}
	for e.rng < rcTop {
		e.rng <<= 8
		e.shiftLow()
	}
}

// finish writes the rest of low (7-Zip's FlushData: five shifts) and
// empties the buffer into dst.
func (e *rangeEncoder7z) finish() error {
	for i := 0; i < 5; i++ {
		e.shiftLow()
	}
	e.flushBuf()
	return e.err
}
