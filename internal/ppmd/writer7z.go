package ppmd

import (
	"encoding/binary"
	"errors"
	"io"
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("ppmd: write after close")

// Writer7z encodes a 7z PPMd stream (method 030401): the PPMd var.H model
// driving 7-Zip's range coder, the exact counterpart of Reader7z. 7z
// records the unpacked size, so Close ends the stream without an end
// marker, as 7-Zip does; CloseWithEndMarker writes one for containers that
// do not.
//
// A Writer7z owns its model arena and output buffer; Reset and ResetProps
// reuse them, so encoding stream after stream allocates nothing once the
// arena is as large as the largest memory size used. It is not safe for
// concurrent use.
type Writer7z struct {
	m        Model
	rc       rangeEncoder7z
	charMask [256]byte
	order    int
	memSize  uint32
	closed   bool
	err      error // sticky: a parameter or output error
}

// NewWriter7z returns an encoder writing to w with the given model order
// (MinOrder..MaxOrder; 7-Zip writes 2..32) and arena size in bytes
// (MinMemSize..MaxMemSize). Invalid parameters give an error wrapping
// archive.ErrFormat. The arena (memSize bytes) is allocated here.
func NewWriter7z(w io.Writer, order int, memSize uint32) (*Writer7z, error) {
	z := &Writer7z{}
	if err := z.ResetProps(w, order, memSize); err != nil {
		return nil, err
	}
	return z, nil
}

// Reset starts a new stream to w with the same order and memory size.
// Anything not yet closed in the current stream is discarded.
func (z *Writer7z) Reset(w io.Writer) {
	if err := z.ResetProps(w, z.order, z.memSize); err != nil {
		z.err = err
	}
}

// ResetProps starts a new stream to w with a new order and memory size.
// The arena is reallocated only when memSize exceeds its capacity.
func (z *Writer7z) ResetProps(w io.Writer, order int, memSize uint32) error {
	z.closed = false
	z.err = nil
	if err := z.m.Init(order, memSize); err != nil {
		z.err = err
		return err
	}
	z.order, z.memSize = order, memSize
	z.rc.reset(w)
	return nil
}

// Props returns the 5 coder property bytes of the stream: the order and
// the memory size as a little-endian uint32 (see ParseProps7z).
func (z *Writer7z) Props() []byte {
	p := Props7z(z.order, z.memSize)
	return p[:]
}

// Props7z encodes the 7z coder properties of PPMd.
func Props7z(order int, memSize uint32) [5]byte {
	var p [5]byte
	p[0] = byte(order)
	binary.LittleEndian.PutUint32(p[1:], memSize)
	return p
}

// Order returns the model order of the stream.
func (z *Writer7z) Order() int { return z.order }

// MemSize returns the model memory size of the stream.
func (z *Writer7z) MemSize() uint32 { return z.memSize }

// Written returns the packed bytes written to the underlying writer so
// far; after Close it is the packed size of the stream.
func (z *Writer7z) Written() int64 { return z.rc.written }

// Write encodes p. Output reaches the underlying writer in blocks of a
// few KiB; the last bytes only at Close.
func (z *Writer7z) Write(p []byte) (int, error) {
	if z.err != nil {
		return 0, z.err
	}
	if z.closed {
		return 0, ErrClosed
	}
	m, rc, mask := &z.m, &z.rc, &z.charMask
	for i, b := range p {
		m.encodeSymbol(rc, int(b), mask)
		if rc.err != nil {
			z.err = rc.err
			return i + 1, z.err
		}
	}
	return len(p), nil
}

// Close ends the stream without an end marker and flushes the range
// coder; the decoder must be told the unpacked size. Closing twice is a
// no-op. Close does not close the underlying writer.
func (z *Writer7z) Close() error { return z.close(false) }

// CloseWithEndMarker ends the stream with PPMd's end marker (an escape
// out of the order-0 context), so that a decoder without the unpacked
// size (NewReader7z with size -1) finds the end.
func (z *Writer7z) CloseWithEndMarker() error { return z.close(true) }

func (z *Writer7z) close(endMark bool) error {
	if z.err != nil {
		return z.err
	}
	if z.closed {
		return nil
	}
	z.closed = true
	if endMark {
		z.m.encodeSymbol(&z.rc, -1, &z.charMask)
	}
	if err := z.rc.finish(); err != nil {
		z.err = err
		return err
	}
	return nil
}

// 7-Zip's PPMd orders by compression level 0..9 (PpmdEncoder.cpp).
var levelOrders = [10]uint8{3, 4, 4, 5, 5, 6, 8, 16, 24, 32}

// LevelProps7z returns the model order and memory size 7-Zip's PPMd
// encoder uses at a compression level (-mx1..9; below 1 or above 9 the
// level is clamped, and 0 means 5 as in 7-Zip): memory 2^(19+level)
// bytes (1 MiB at level 1, 16 MiB at 5, 128 MiB at 8) and 192 MiB at 9;
// orders 4, 4, 5, 5, 6, 8, 16, 24, 32 for levels 1..9.
func LevelProps7z(level int) (order int, memSize uint32) {
	if level <= 0 {
		level = 5
	}
	level = min(level, 9)
	if level == 9 {
		memSize = 192 << 20
	} else {
		memSize = 1 << (19 + level)
	}
	return int(levelOrders[level]), memSize
}

// ReduceMem7z shrinks memSize for a stream of known size as 7-Zip does
// (its ReduceSize rule): when memSize is more than 16 times the size, it
// is cut to the smallest power of two from 64 KiB up that is at least 16
// times the size. A negative size means unknown and changes nothing.
func ReduceMem7z(memSize uint32, size int64) uint32 {
	const mult = 16
	if size < 0 || int64(memSize/mult) <= size {
		return memSize
	}
	for i := 16; i <= 31; i++ {
		m := uint32(1) << i
		if size <= int64(m/mult) {
			return min(memSize, m)
		}
	}
	return memSize
}
