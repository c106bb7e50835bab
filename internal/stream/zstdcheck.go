package stream

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/garc-dev/garc/internal/archive"
	ownzstd "github.com/garc-dev/garc/internal/zstd"
)

// zstdCheck sits between a zstd file and klauspost/compress's decoder
// and reads the frames the decoder reads, as they pass, for two things
// the decoder does not report as the zstd format requires:
//
//   - a frame whose window exceeds the limit (--max-dict), named with
//     the window it needs (the decoder only says that some window was
//     too large);
//   - a sequence whose offset is 0, which zstd's format description
//     (RFC 8878 with its errata, and zstd since 1.5.6) calls corrupt:
//     Offset_Value 3 after a literal length of 0 when Repeated_Offset1
//     is 1. The decoder turns that offset into 1 and goes on, as zstd
//     before 1.5.6 did.
//
// For the second it decodes the sequences section of every compressed
// block of a frame without a content checksum — the FSE tables and the
// sequence bit stream, not the literals nor the matches — keeping the
// repeated offsets from block to block (internal/zstd's OffsetCheck, with
// the tables of garc's own decoder). A frame with a content checksum
// (zstd's and klauspost's default) is not decoded: the decoder verifies
// the checksum over what it wrote, so an offset 0 read as 1 there gives
// content that differs from what was checksummed and is reported as a
// checksum error, unless the checksum was made over the content of that
// reading, the very bytes garc writes. Decoding every sequence a second
// time costs 40 % of the decoder's CPU time, which only frames without
// a checksum, where nothing else verifies the content, pay.
// Only a block whose bit stream is read through exactly, as a valid one
// is, is reported; anything else it cannot follow (damage, a dictionary)
// ends the checking and is left to the decoder.
//
// Walking the frame and block headers of a frame with a checksum costs
// next to nothing, and is done on the decoder's side as it reads. The
// sequences of frames without one are read beside the decoder: from the
// first such block on, what the decoder reads is copied into chunks of
// zstdCheckChunk bytes that a goroutine checks, at most zstdCheckQueue
// chunks behind. A stream that ends within the first chunk (most small
// files) is checked when it ends, without a goroutine.
// Findings come out at the decoder's next Read and at the latest when
// the stream ends (finish).
type zstdCheck struct {
	r     io.Reader
	limit int64

	// The reading side's.
	pending []byte        // read but not yet handed over
	work    chan []byte   // chunks for the goroutine; nil before it starts
	free    chan []byte   // chunks it is done with
	done    chan struct{} // closed when it has stopped
	stopped atomic.Bool   // the check is over: stop collecting
	found   atomic.Bool   // err is set
	err     error         // what the check found; written before found

	// The checking side's (the goroutine's once it runs).
	state zstdState
	need  int   // bytes of the unit being collected
	skip  int64 // bytes to pass over before it
	off   int64 // offset in the file of the unit being collected
	buf   []byte

	desc     byte // the frame header's descriptor
	checksum bool // the frame ends with a content checksum
	last     bool // the block being read is the frame's last
	// offsets follows the sequences' tables and repeated offsets
	// from block to block.
	offsets ownzstd.OffsetCheck
}

// zstdCheckChunk and zstdCheckQueue size the hand-over to the checking
// goroutine: 1.25 MiB at most in flight.
const (
	zstdCheckChunk = 256 << 10
	zstdCheckQueue = 4
)

type zstdState uint8

const (
	zstdMagic      zstdState = iota // a frame's magic number
	zstdSkipSize                    // a skippable frame's size
	zstdDescriptor                  // Frame_Header_Descriptor
	zstdHeader                      // the rest of the frame header
	zstdBlockHead                   // a block header
	zstdBlock                       // a compressed block's content
	zstdDone                        // checking stopped
)

// The largest block, and the magic numbers and smallest window of the
// format.
const (
	zstdMaxBlock    = 128 << 10
	zstdFrameMagic  = 0xFD2FB528
	zstdMinWindow   = 1 << 10
	zstdSkipMagic   = 0x184D2A50 // the 16 values 0x184D2A50–5F
	zstdSkipMagicHi = 0xFFFFFFF0
)

// newZstdCheck returns a check of the zstd stream read from r, which
// starts at offset 0 of the file; limit bounds the frames' windows.
func newZstdCheck(r io.Reader, limit int64) *zstdCheck {
	return &zstdCheck{r: r, limit: limit, need: 4}
}

// Read passes the file on to the decoder and keeps what it read for the
// check.
func (c *zstdCheck) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if n > 0 && !c.stopped.Load() {
		if c.work == nil && len(c.pending) == 0 && c.cheap() {
			c.feed(p[:n])
			return n, err
		}
		if len(c.pending)+n > cap(c.pending) && len(c.pending) > 0 {
			c.handOver()
		}
		if c.pending == nil {
			c.pending = make([]byte, 0, zstdCheckChunk)
		}
		c.pending = append(c.pending, p[:n]...)
	}
	return n, err
}

// cheap reports whether the check is where reading on is cheap: in a
// frame with a checksum, whose blocks it passes over, or before the first
// block of a frame (the decoder reads a frame's header in small pieces).
// Called before the goroutine starts.
func (c *zstdCheck) cheap() bool {
	return c.checksum || c.state < zstdBlockHead
}

// handOver gives the pending bytes to the checking goroutine, starting it
// the first time; it waits while the goroutine is zstdCheckQueue chunks
// behind.
func (c *zstdCheck) handOver() {
	if c.work == nil {
		c.work = make(chan []byte, zstdCheckQueue)
		c.free = make(chan []byte, zstdCheckQueue+1)
		c.done = make(chan struct{})
		go c.run()
	}
	c.work <- c.pending
	select {
	case b := <-c.free:
		c.pending = b[:0]
	default:
		c.pending = make([]byte, 0, zstdCheckChunk)
	}
}

// run is the checking goroutine.
func (c *zstdCheck) run() {
	defer close(c.done)
	for b := range c.work {
		c.feed(b)
		select {
		case c.free <- b:
		default:
		}
	}
}

// finish checks what is still pending and waits for the goroutine: the
// end of the stream as the decoder read it. It returns what the check
// found.
func (c *zstdCheck) finish() error {
	if len(c.pending) > 0 && !c.stopped.Load() {
		if c.work != nil {
			c.work <- c.pending
		} else {
			c.feed(c.pending)
		}
	}
	c.pending = nil
	c.stop()
	if c.found.Load() {
		return c.err
	}
	return nil
}

// stop ends the goroutine, if any, once it has checked what it was given.
func (c *zstdCheck) stop() {
	c.stopped.Store(true)
	if c.work != nil {
		close(c.work)
		<-c.done
		c.work = nil
	}
}

// feed takes the next bytes of the file.
func (c *zstdCheck) feed(p []byte) {
	for len(p) > 0 && c.state != zstdDone {
		if c.skip > 0 {
			k := int(min(c.skip, int64(len(p))))
			p = p[k:]
			c.skip -= int64(k)
			c.off += int64(k)
			continue
		}
		var unit []byte
		if len(c.buf) == 0 && len(p) >= c.need {
			unit, p = p[:c.need], p[c.need:]
		} else {
			k := min(c.need-len(c.buf), len(p))
			c.buf = append(c.buf, p[:k]...)
			p = p[k:]
			if len(c.buf) < c.need {
				return
			}
			unit = c.buf
		}
		at := c.off
		c.off += int64(c.need)
		c.step(unit, at)
		c.buf = c.buf[:0]
	}
}

// step reads one complete unit found at offset at.
func (c *zstdCheck) step(u []byte, at int64) {
	switch c.state {
	case zstdMagic:
		switch m := binary.LittleEndian.Uint32(u); {
		case m == zstdFrameMagic:
			c.state, c.need = zstdDescriptor, 1
		case m&zstdSkipMagicHi == zstdSkipMagic:
			c.state, c.need = zstdSkipSize, 4
		default:
			c.end() // not zstd: the decoder says so
		}
	case zstdSkipSize:
		c.skip = int64(binary.LittleEndian.Uint32(u))
		c.state, c.need = zstdMagic, 4
	case zstdDescriptor:
		d := u[0]
		if d&0x08 != 0 { // reserved bit
			c.end()
			return
		}
		n := []int{0, 1, 2, 4}[d&3]
		switch {
		case d>>6 != 0:
			n += []int{1, 2, 4, 8}[d>>6]
		case d&0x20 != 0: // single segment: a one-byte content size
			n++
		}
		if d&0x20 == 0 {
			n++ // Window_Descriptor
		}
		c.desc = d
		c.state, c.need = zstdHeader, n
	case zstdHeader:
		var hb [15]byte
		hb[0] = c.desc
		copy(hb[1:], u)
		h, _ := parseZstdFrameHeader(hb[:1+len(u)])
		c.frame(h, at-5)
	case zstdBlockHead:
		v := uint32(u[0]) | uint32(u[1])<<8 | uint32(u[2])<<16
		c.last = v&1 != 0
		size := int(v >> 3)
		switch v >> 1 & 3 {
		case 0: // raw
			c.skip = int64(size)
			c.next()
		case 1: // RLE: one byte
			c.skip = 1
			c.next()
		case 2:
			switch {
			case size == 0 || size > zstdMaxBlock:
				c.end()
			case c.checksum: // the checksum vouches for the content
				c.skip = int64(size)
				c.next()
			default:
				c.state, c.need = zstdBlock, size
			}
		default:
			c.end()
		}
	case zstdBlock:
		if !c.block(u, at-3) {
			c.end()
		}
		if c.state != zstdDone {
			c.next()
		}
	}
}

// frame starts a data frame whose header (at offset at) is h.
func (c *zstdCheck) frame(h zstdFrameHeader, at int64) {
	if h.dictID != 0 {
		c.end() // its tables and offsets come from a dictionary
		return
	}
	window := max(h.contentSize, zstdMinWindow)
	if h.descriptor&0x20 == 0 {
		wd := h.windowDescriptor
		window = uint64(8+wd&7) << (wd>>3 + 10 - 3)
	}
	switch {
	case window > zstdMaxWindow: // a single segment's content size
		c.fail(&archive.Error{Offset: at, Err: &archive.LimitError{What: "zstd window size", Need: int64(min(window, 1<<63-1)), Limit: zstdMaxWindow, Fixed: true}})
		return
	case window > uint64(c.limit):
		c.fail(&archive.Error{Offset: at, Err: &archive.LimitError{What: "zstd window size", Need: int64(window), Limit: c.limit}})
		return
	}
	c.checksum = h.descriptor&0x04 != 0
	c.offsets.Reset()
	c.state, c.need = zstdBlockHead, 3
}

// next moves on after a block: to the next block, or past the checksum
// to the next frame.
func (c *zstdCheck) next() {
	if !c.last {
		c.state, c.need = zstdBlockHead, 3
		return
	}
	if c.checksum {
		c.skip += 4
	}
	c.state, c.need = zstdMagic, 4
}

func (c *zstdCheck) fail(err error) {
	c.err = err
	c.found.Store(true)
	c.end()
}

// end stops the checking: nothing more is collected.
func (c *zstdCheck) end() {
	c.state = zstdDone
	c.stopped.Store(true)
}

// block reads the sequences section of the compressed block b, whose
// header is at offset at, and keeps its tables and repeated offsets for
// the next block. It reports false when it cannot follow the block.
func (c *zstdCheck) block(b []byte, at int64) bool {
	n, ok := literalsSectionSize(b)
	if !ok || n >= len(b) {
		return false
	}
	bad, ok := c.offsets.Block(b[n:])
	if !ok {
		return false
	}
	if bad >= 0 {
		c.fail(&archive.Error{Offset: at, Err: fmt.Errorf("zstd: sequence %d of the block has offset 0: %w", bad+1, archive.ErrFormat)})
	}
	return true
}

// literalsSectionSize returns the size of the literals section that
// starts a compressed block: its header and its literals (raw, one RLE
// byte, or Huffman-coded).
func literalsSectionSize(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var v uint64 // the header's up to 5 bytes
	for i := range min(len(b), 5) {
		v |= uint64(b[i]) << (8 * i)
	}
	var h, size int
	switch typ, sf := b[0]&3, b[0]>>2&3; {
	case typ <= 1 && sf&1 == 0:
		h, size = 1, int(v>>3&0x1F)
	case typ <= 1 && sf == 1:
		h, size = 2, int(v>>4&0xFFF)
	case typ <= 1:
		h, size = 3, int(v>>4&0xFFFFF)
	case sf <= 1:
		h, size = 3, int(v>>14&0x3FF)
	case sf == 2:
		h, size = 4, int(v>>18&0x3FFF)
	default:
		h, size = 5, int(v>>22&0x3FFFF)
	}
	if b[0]&3 == 1 {
		size = 1 // RLE
	}
	return h + size, true
}

// zstdRunsShare is how many times the bytes of the other blocks the
// bytes of RLE blocks must be, among the blocks whose headers
// zstdMostlyRuns sees in the first zstdInputSize bytes, for the file to
// be decoded by zstdRunsDecoder; zstdRunsLeast is the fewest bytes of
// RLE blocks it must see. An RLE block costs klauspost's decoder about
// 0.4 ns a byte and the own decoder a tenth of that; a byte of a
// compressed block costs the own decoder 1.5-1.7x what it costs
// klauspost's (3.5 ns more on Go's source tree).
//
// A raw block costs klauspost's decoder three copies (through the input
// buffer, into its block buffer, into the window) and the own decoder
// one read into its window (garc t of 100 MB of random bytes 0.84x the
// CPU time). The first zstdInputSize bytes hold the header of one raw
// block of the largest size and little more, too little to tell
// incompressible data from an incompressible file at the start of a tar
// (a tar of 300 KB of random bytes and 12 MB of text took the own
// decoder 1.38x klauspost's CPU time): a file that starts with such a
// block is read zstdRawLook bytes ahead (newZstdDecoder), and goes to
// the own decoder when the RLE and raw blocks whose headers are in them
// are zstdRunsShare times the compressed ones and at least zstdRawLeast
// bytes (zstdMostlyRaw).
const (
	zstdRunsShare = 16
	zstdRunsLeast = 1 << 20
	zstdRawLeast  = 1 << 20
	zstdRawLook   = 2 << 20
)

// zstdMostlyRuns reports whether the blocks whose headers are in b, the
// start of a zstd file, are mostly RLE blocks (zstdRunsShare).
func zstdMostlyRuns(b []byte) bool {
	runs, raw, other, _ := zstdBlockBytes(b)
	return runs >= zstdRunsLeast && runs >= zstdRunsShare*(raw+other)
}

// zstdMostlyRaw reports whether the blocks whose headers are in b, the
// start of a zstd file, are mostly raw or RLE blocks (zstdRunsShare,
// zstdRawLeast).
func zstdMostlyRaw(b []byte) bool {
	runs, raw, other, _ := zstdBlockBytes(b)
	return runs+raw >= zstdRawLeast && runs+raw >= zstdRunsShare*other
}

// zstdRawFirst reports whether the first block in b, the start of a zstd
// file, is a raw block of the largest size.
func zstdRawFirst(b []byte) bool {
	_, _, _, first := zstdBlockBytes(b)
	return first
}

// zstdBlockBytes adds up the sizes of the RLE, raw and compressed
// blocks whose headers are in b, the start of a zstd file, and reports
// whether the first is a raw block of the largest size. It follows the
// frames and their block headers and skips skippable frames.
func zstdBlockBytes(b []byte) (runs, raw, other int64, rawFirst bool) {
	blocks := 0
	p, frame, checksum := 0, false, false
	for {
		if !frame {
			if len(b)-p < 8 {
				break
			}
			switch m := binary.LittleEndian.Uint32(b[p:]); {
			case m&zstdSkipMagicHi == zstdSkipMagic:
				p += 8 + int(binary.LittleEndian.Uint32(b[p+4:]))
				continue
			case m != zstdFrameMagic:
				return 0, 0, 0, false
			}
			d := b[p+4]
			n := 5 + [4]int{0, 1, 2, 4}[d&3] + [4]int{0, 2, 4, 8}[d>>6]
			if d&0x20 == 0 {
				n++ // Window_Descriptor
			} else if d>>6 == 0 {
				n++ // a one-byte content size
			}
			p += n
			frame, checksum = true, d&0x04 != 0
		}
		if len(b)-p < 3 || p < 0 {
			break
		}
		v := int(b[p]) | int(b[p+1])<<8 | int(b[p+2])<<16
		size := v >> 3
		p += 3
		switch v >> 1 & 3 {
		case 1:
			runs += int64(size)
			p++
		case 0:
			raw += int64(size)
			p += size
			rawFirst = rawFirst || blocks == 0 && size == zstdMaxBlock
		default:
			other += int64(size)
			p += size
		}
		blocks++
		if v&1 != 0 {
			frame = false
			if checksum {
				p += 4
			}
		}
	}
	return runs, raw, other, rawFirst
}
