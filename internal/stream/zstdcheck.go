package stream

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"sync"
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
// repeated offsets from block to block. A frame with a content checksum
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
	reps     [3]uint32
	// ll, of and ml are the tables the next block's Repeat mode reuses
	// (nil at the start of a frame); they point at a predefined table or
	// at own or rle.
	ll, of, ml *fseTable
	own        [3]fseTable
	rle        [3]fseTable
	norm       [zstdMaxML + 1]int16
	scratch    []byte
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

// The largest code of each sequence symbol, the largest accuracy logs of
// their FSE tables, and the largest block.
const (
	zstdMaxLL       = 35
	zstdMaxOF       = 31
	zstdMaxML       = 52
	zstdMaxLLLog    = 9
	zstdMaxOFLog    = 8
	zstdMaxMLLog    = 9
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
	c.reps = [3]uint32{1, 4, 8}
	c.ll, c.of, c.ml = nil, nil, nil
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
	b = b[n:]
	nseq, h := int(b[0]), 1
	switch {
	case nseq == 255:
		if len(b) < 3 {
			return false
		}
		nseq, h = int(b[1])+int(b[2])<<8+0x7F00, 3
	case nseq >= 128:
		if len(b) < 2 {
			return false
		}
		nseq, h = (nseq-128)<<8+int(b[1]), 2
	}
	if nseq == 0 {
		return true // no sequences (in any of the three forms): tables and offsets stay
	}
	if len(b) < h+1 {
		return false
	}
	modes := b[h]
	if modes&3 != 0 {
		return false // reserved bits
	}
	b = b[h+1:]
	for i, k := range [3]struct {
		cur    **fseTable
		mode   byte
		maxSym int
		maxLog int
	}{
		{&c.ll, modes >> 6, zstdMaxLL, zstdMaxLLLog},
		{&c.of, modes >> 4 & 3, zstdMaxOF, zstdMaxOFLog},
		{&c.ml, modes >> 2 & 3, zstdMaxML, zstdMaxMLLog},
	} {
		switch k.mode {
		case 0: // predefined
			*k.cur = &zstdPredefined()[i]
		case 1: // RLE: one symbol, no state bits
			if len(b) < 1 || int(b[0]) > k.maxSym {
				return false
			}
			t := &c.rle[i]
			t.e[0] = fseEntry{sym: b[0], x: zstdExtra[i][b[0]]}
			t.log = 0
			*k.cur = t
			b = b[1:]
		case 2: // FSE table description
			log, nsym, used, ok := ownzstd.ReadNormalized(b, k.maxSym, k.maxLog, c.norm[:])
			if !ok || !c.own[i].build(i, c.norm[:nsym], log) {
				return false
			}
			*k.cur = &c.own[i]
			b = b[used:]
		case 3: // repeat the previous block's table
			if *k.cur == nil {
				return false
			}
		}
	}
	if len(b) == 0 || b[len(b)-1] == 0 {
		return false
	}
	bad, ok := c.sequences(b, nseq)
	if !ok {
		return false
	}
	if bad >= 0 {
		c.fail(&archive.Error{Offset: at, Err: fmt.Errorf("zstd: sequence %d of the block has offset 0: %w", bad+1, archive.ErrFormat)})
	}
	return true
}

// sequences decodes the nseq sequences of the bit stream s (its last byte
// is not 0) for their offsets, updating the repeated offsets. It returns
// the index of the first sequence whose offset is 0 (-1 when none), and
// ok=false when the stream is not read through exactly.
func (c *zstdCheck) sequences(s []byte, nseq int) (bad int, ok bool) {
	// The stream is read backwards through a 64-bit container holding
	// buf[end-8:end], of which the top used bits are consumed. buf is
	// the stream, or for a stream of less than 8 bytes the stream behind
	// pad = 8 zero bytes; the container never reaches before buf (floor),
	// and a stream read too far ends with fewer than 0 bits left. A read
	// of n bits is val<<used>>1>>(63-n), which is 0 for n = 0; shifts
	// are masked to 63, as used stays below 64 in a stream read within
	// its bounds.
	buf, pad := s, 0
	if len(s) < 8 {
		buf = append(append(c.scratch[:0], 0, 0, 0, 0, 0, 0, 0, 0), s...)
		c.scratch, pad = buf, 8
	}
	end, floor := len(buf), min(len(buf), pad+8)
	used := uint64(9 - bits.Len8(s[len(s)-1])) // the zero bits and the end marker
	val := binary.LittleEndian.Uint64(buf[end-8:])
	ll, of, ml := &c.ll.e, &c.of.e, &c.ml.e
	llLog, ofLog, mlLog := uint64(c.ll.log), uint64(c.of.log), uint64(c.ml.log)
	llS := val << (used & 63) >> 1 >> ((63 - llLog) & 63)
	used += llLog
	ofS := val << (used & 63) >> 1 >> ((63 - ofLog) & 63)
	used += ofLog
	mlS := val << (used & 63) >> 1 >> ((63 - mlLog) & 63)
	used += mlLog
	r0, r1, r2 := uint64(c.reps[0]), uint64(c.reps[1]), uint64(c.reps[2])
	bad = -1
	for i := nseq; ; i-- {
		{ // an offset reads up to 31 bits
			k := min(int(used>>3), end-floor)
			end -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[end-8:])
		}
		le, oe, me := ll[llS&511], of[ofS&511], ml[mlS&511]
		// Offset_Value: a 1 above the code's extra bits.
		ox := uint64(oe.x)
		v := (val<<(used&63)>>1 | 1<<63) >> ((63 - ox) & 63)
		used += ox + uint64(me.x) + uint64(le.x) // and the lengths' extra bits
		if v > 3 {
			r0, r1, r2 = v-3, r0, r1
		} else {
			if le.sym != 0 {
				v-- // 1, 2, 3: Repeated_Offset1, 2, 3
			} // after no literals: Repeated_Offset2, 3, Repeated_Offset1 - 1
			switch v {
			case 1:
				r0, r1 = r1, r0
			case 2:
				r0, r1, r2 = r2, r0, r1
			case 3:
				if r0 == 1 && bad < 0 {
					bad = nseq - i
				}
				r0, r1, r2 = r0-1, r0, r1
			}
		}
		if i == 1 {
			break
		}
		if used > 64-3*9 { // the states read up to 9 bits each
			k := min(int(used>>3), end-floor)
			end -= k
			used -= uint64(k) << 3
			val = binary.LittleEndian.Uint64(buf[end-8:])
		}
		nb := uint64(le.nb)
		llS = uint64(le.base) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
		nb = uint64(me.nb)
		mlS = uint64(me.base) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
		nb = uint64(oe.nb)
		ofS = uint64(oe.base) + val<<(used&63)>>1>>((63-nb)&63)
		used += nb
	}
	if (end-pad)*8 != int(used) {
		return -1, false
	}
	c.reps = [3]uint32{uint32(r0), uint32(r1), uint32(r2)}
	return bad, true
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

// fseEntry is one state of an FSE decoding table: the symbol (a code),
// the extra bits its value reads, and how the next state is read.
type fseEntry struct {
	base uint16 // next state: base + the next nb bits
	nb   uint8
	sym  uint8
	x    uint8 // extra bits of the code's value
}

// fseTable is an FSE decoding table of 1<<log states (log at most 9).
type fseTable struct {
	log uint8
	e   [512]fseEntry
}

// zstdPredefined returns the tables of the predefined mode, built from
// the default distributions of the format (literal lengths, offsets,
// match lengths) on first use rather than at start-up: most garc
// processes read no zstd.
var zstdPredefined = sync.OnceValue(func() *[3]fseTable {
	t := new([3]fseTable)
	ll := []int16{4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1}
	of := []int16{1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1}
	ml := []int16{1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
		1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1, -1, -1, -1, -1, -1}
	t[0].build(0, ll, 6)
	t[1].build(1, of, 5)
	t[2].build(2, ml, 6)
	return t
})

// zstdExtra is how many extra bits the value of each code reads, by
// table: literal lengths, offsets (the code itself), match lengths.
var zstdExtra = [3][zstdMaxML + 1]uint8{
	{16: 1, 1, 1, 1, 2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31},
	{32: 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
}

// build makes t the decoding table of the normalized distribution norm
// (-1: a probability below 1) of accuracy log, for table kind. It
// reports false when the distribution does not fill the table.
func (t *fseTable) build(kind int, norm []int16, log int) bool {
	size := 1 << log
	t.log = uint8(log)
	var next [zstdMaxML + 1]uint16
	high := size - 1
	for s, n := range norm {
		switch {
		case n == -1:
			t.e[high].sym = uint8(s)
			high--
			next[s] = 1
		case n > 0:
			next[s] = uint16(n)
		}
	}
	step, mask, pos := size>>1+size>>3+3, size-1, 0
	for s, n := range norm {
		for range max(n, 0) {
			t.e[pos&511].sym = uint8(s)
			pos = (pos + step) & mask
			for pos > high {
				pos = (pos + step) & mask
			}
		}
	}
	if pos != 0 {
		return false
	}
	xs := &zstdExtra[kind]
	for u := range size {
		e := &t.e[u&511]
		ns := next[e.sym]
		next[e.sym]++
		nb := uint8(log) + 1 - uint8(bits.Len16(ns))
		e.nb, e.base, e.x = nb, ns<<nb-uint16(size), xs[e.sym]
	}
	return true
}

// zstdRunsShare is how many times the bytes of compressed and raw blocks
// the bytes of RLE blocks must be, among the blocks whose headers
// zstdMostlyRuns sees, for the file to be decoded by zstdRunsDecoder;
// zstdRunsLeast is the fewest bytes of RLE blocks it must see. An RLE
// block costs klauspost's decoder about 0.4 ns a byte and the own decoder
// a tenth of that; a byte of a compressed block costs the own decoder
// 1.5-1.7x what it costs klauspost's (3.5 ns more on Go's source tree).
const (
	zstdRunsShare = 16
	zstdRunsLeast = 1 << 20
)

// zstdMostlyRuns peeks at the start of the zstd file in (what its buffer
// holds, zstdInputSize bytes at most) and reports whether the blocks
// whose headers are in it are mostly RLE blocks (zstdRunsShare). It
// follows the frames and their block headers and skips skippable frames.
func zstdMostlyRuns(in *bufio.Reader) bool {
	b, _ := in.Peek(zstdInputSize)
	var runs, other int64
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
				return false
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
		if v>>1&3 == 1 {
			runs += int64(size)
			p++
		} else {
			other += int64(size)
			p += size
		}
		if v&1 != 0 {
			frame = false
			if checksum {
				p += 4
			}
		}
	}
	return runs >= zstdRunsLeast && runs >= zstdRunsShare*other
}
