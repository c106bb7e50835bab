package zstd

import (
	"encoding/binary"
	"io"
	"math/bits"

	"github.com/garc-dev/garc/internal/hugemem"
)

const (
	// blockMax is the largest block's content (RFC 8878, 3.1.1.2.3).
	blockMax = 128 << 10

	// minSlack is the least the buffer holds beyond the window: the input
	// waiting to be coded, and what is read before the history moves down.
	// The tables, the window and the slack fill whole huge pages, so that
	// the slack is more: 3.375 MiB at a window of 4 MiB.
	minSlack = 2 << 20

	magic = 0xFD2FB528
)

// Encoder writes one zstd frame at a time, with a content checksum. Its
// memory is the match finder's tables (640 KiB), the window and at least
// 2 MiB more of buffer, in whole huge pages (8 MiB at a window of 4 MiB),
// and the output of one Write, whatever the input's size.
type Encoder struct {
	w       io.Writer
	window  int
	bsize   int    // the largest block: blockMax, or the window if smaller
	buf     []byte // the history and the input not coded yet
	done    int    // buf[:done] is coded
	m       *matcher
	b       blockEnc
	x       xxh64
	out     []byte
	started bool // the frame header is written
	first   bool // the next block is the frame's first
	err     error
}

// NewEncoder returns an encoder whose frames have a window of window
// bytes, a power of two from 1 KiB to 1 GiB.
func NewEncoder(window int) *Encoder {
	encTablesOnce.Do(buildEncTables)
	const tables = tablesSize
	n := (tables + window + minSlack + hugemem.PageSize - 1) &^ (hugemem.PageSize - 1)
	// One allocation in huge pages: fewer page faults, and the tables and
	// the window, read at random, miss the TLB less.
	mem := hugemem.Aligned(n)
	hugemem.Advise(mem[:cap(mem)])
	return &Encoder{window: window, bsize: min(window, blockMax), m: newMatcher(mem[:tables]), buf: mem[tables:tables:n]}
}

// Reset begins a new frame written to w.
func (e *Encoder) Reset(w io.Writer) {
	e.w, e.done, e.started, e.first, e.err = w, 0, false, true, nil
	e.buf, e.out = e.buf[:0], e.out[:0]
	e.m.reset(e.window)
	e.b.reset()
	e.x.reset()
}

// Write compresses p into the frame, writing the blocks it completes.
func (e *Encoder) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n := len(p)
	for len(p) > 0 {
		if len(e.buf) == cap(e.buf) {
			e.slide()
		}
		k := copy(e.buf[len(e.buf):cap(e.buf)], p)
		// Hashed in the buffer, where the copy has just brought it.
		e.x.write(e.buf[len(e.buf) : len(e.buf)+k])
		e.buf = e.buf[:len(e.buf)+k]
		p = p[k:]
		// The last block waits for Close, which marks it last.
		for len(e.buf)-e.done > e.bsize {
			e.block(e.buf, e.done+e.bsize, false)
		}
	}
	return n, e.flush()
}

// slide moves the last window of coded bytes and the input after them
// to the start of the buffer.
func (e *Encoder) slide() {
	k := e.done - e.window
	copy(e.buf, e.buf[k:])
	e.buf = e.buf[:len(e.buf)-k]
	e.done -= k
	e.m.shift += k
}

func (e *Encoder) flush() error {
	if len(e.out) > 0 {
		if _, err := e.w.Write(e.out); err != nil {
			e.err = err
			return err
		}
		e.out = e.out[:0]
	}
	return nil
}

// Close ends the frame: its last block and its checksum.
func (e *Encoder) Close() error {
	if e.err != nil {
		return e.err
	}
	for len(e.buf)-e.done > e.bsize {
		e.block(e.buf, e.done+e.bsize, false)
	}
	e.block(e.buf, len(e.buf), true)
	e.out = binary.LittleEndian.AppendUint32(e.out, uint32(e.x.sum()))
	return e.flush()
}

// EncodeAll appends to dst the frame of src, with its content size.
func (e *Encoder) EncodeAll(src, dst []byte) []byte {
	e.Reset(nil)
	e.x.write(src)
	e.out = appendHeader(dst, int64(len(src)), e.window)
	e.started = true
	for e.done+e.bsize < len(src) {
		e.block(src, e.done+e.bsize, false)
	}
	e.block(src, len(src), true)
	out := binary.LittleEndian.AppendUint32(e.out, uint32(e.x.sum()))
	e.out = nil
	return out
}

// appendHeader appends a frame header: with the content size when size
// is not -1 (a single segment), else with the window.
func appendHeader(out []byte, size int64, window int) []byte {
	out = binary.LittleEndian.AppendUint32(out, magic)
	const checksum = 1 << 2
	if size < 0 {
		return append(out, checksum, byte(bits.Len(uint(window))-1-10)<<3)
	}
	const single = 1 << 5
	switch {
	case size < 256:
		return append(out, single|checksum, byte(size))
	case size < 65536+256:
		return binary.LittleEndian.AppendUint16(append(out, 1<<6|single|checksum), uint16(size-256))
	case size < 1<<32:
		return binary.LittleEndian.AppendUint32(append(out, 2<<6|single|checksum), uint32(size))
	}
	return binary.LittleEndian.AppendUint64(append(out, 3<<6|single|checksum), uint64(size))
}

// block codes src[e.done:end] as the frame's next block.
func (e *Encoder) block(src []byte, end int, last bool) {
	if !e.started {
		e.out = appendHeader(e.out, -1, e.window)
		e.started = true
	}
	b := src[e.done:end]
	if !e.first && isRun(b) {
		e.out = appendBlockHeader(e.out, last, blockRLE, len(b))
		e.out = append(e.out, b[0])
	} else {
		e.m.find(src, e.done, end)
		e.out = e.b.encode(e.out, b, e.m.seqs, e.m.lits, last)
	}
	e.first = false
	e.done = end
}

// isRun tells whether b is more than one byte, all the same.
func isRun(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	v := uint64(b[0]) * 0x0101010101010101
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:]) != v {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] != b[0] {
			return false
		}
	}
	return true
}
