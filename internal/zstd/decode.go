package zstd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/huff0"

	"github.com/garc-dev/garc/internal/archive"
)

// Reader decompresses a Zstandard stream (RFC 8878): data frames, with or
// without a content checksum and a content size, and skippable frames,
// one after another. Frames that need a dictionary are refused.
//
// A frame is decoded a block at a time into one buffer, the window and a
// block, used as a ring: a block that would not fit behind the output is
// written at the buffer's start, and its matches reach back into the end
// of the buffer (the window is not moved). Read copies from it. A frame
// whose content size is known and fits in the window gets a buffer of
// that size. A Reader keeps its buffer for the next stream it is Reset
// to.
type Reader struct {
	r        io.Reader
	maxWin   int64
	in       []byte // input read ahead; in[ip:iend] is unread
	ip, iend int
	inOff    int64 // offset in the stream of in[0]
	eof      bool  // r has ended

	hist     []byte // window and output
	op       int    // end of the decoded data in hist
	wrapEnd  int    // where the data before hist[0] ends, at the end of hist, once the output wrapped
	rp       int    // read position in hist
	window   int    // the frame's window
	inFrame  bool
	last     bool // the frame's last block was decoded
	checksum bool // the frame has a content checksum
	content  int64
	produced int64
	xx       xxh64
	err      error // sticky

	lits   []byte // the current block's literals, with slack
	huff   *huff0.Scratch
	huffOK bool // huff holds a Huffman table from an earlier block of the frame
	seq    seqState
}

// ErrDictionary is the error of a frame that names a dictionary.
var ErrDictionary = errors.New("zstd: frames that need a dictionary are not supported")

const (
	frameMagic    = 0xFD2FB528
	skipMagic     = 0x184D2A50
	skipMagicMask = 0xFFFFFFF0
	maxBlockSize  = 128 << 10
	minWindow     = 1 << 10
	copySlack     = 32 // bytes written and read past ends by the copy loops
	inputBuffer   = 256 << 10
	fillChunk     = 64 << 10  // the least fill reads at a time
	histMapped    = 256 << 10 // the smallest window buffer from histMemory
)

// NewReader returns a Reader of r whose frames may have a window of up
// to maxWindow bytes; a larger one is an error wrapping archive.ErrLimit.
func NewReader(r io.Reader, maxWindow int64) *Reader {
	z := &Reader{}
	z.Reset(r, maxWindow)
	return z
}

// Reset makes z read a new stream from r, keeping its buffers.
func (z *Reader) Reset(r io.Reader, maxWindow int64) {
	*z = Reader{r: r, maxWin: maxWindow, in: z.in, hist: z.hist, lits: z.lits, huff: z.huff}
	if z.in == nil {
		z.in = make([]byte, inputBuffer+copySlack)
	}
}

// Read decodes into p.
func (z *Reader) Read(p []byte) (int, error) {
	for z.rp == z.op {
		if z.err != nil {
			return 0, z.err
		}
		z.err = z.step()
	}
	n := copy(p, z.hist[z.rp:z.op])
	z.rp += n
	return n, nil
}

// corrupt returns a format error at stream offset off.
func corrupt(off int64, format string, args ...any) error {
	return &archive.Error{Offset: off, Err: fmt.Errorf("zstd: "+format+": %w", append(args, archive.ErrFormat)...)}
}

// offset returns the stream offset of in[i].
func (z *Reader) offset(i int) int64 { return z.inOff + int64(i) }

// fill makes at least n bytes (n ≤ inputBuffer) available at in[ip:],
// reporting false when the stream ends before.
func (z *Reader) fill(n int) (bool, error) {
	if z.iend-z.ip >= n {
		return true, nil
	}
	if z.ip > 0 {
		k := copy(z.in, z.in[z.ip:z.iend])
		z.inOff += int64(z.ip)
		z.ip, z.iend = 0, k
	}
	for z.iend < n && !z.eof {
		// At least fillChunk bytes a read, and no more than n asks
		// beyond that: the buffer's pages are touched only as far as
		// the data needs (a raw block reads past it, raw).
		end := min(inputBuffer, max(n, z.iend+fillChunk))
		k, err := z.r.Read(z.in[z.iend:end])
		z.iend += k
		switch {
		case err == io.EOF:
			z.eof = true
		case err != nil:
			return false, err
		case k == 0:
			return false, io.ErrNoProgress
		}
	}
	return z.iend-z.ip >= n, nil
}

// step decodes the next block, or reads the next frame's header, or
// ends the stream with io.EOF.
func (z *Reader) step() error {
	if !z.inFrame {
		return z.frameHeader()
	}
	if z.last {
		return z.frameEnd()
	}
	return z.block()
}

// frameHeader reads the next frame's header, skipping skippable frames.
func (z *Reader) frameHeader() error {
	for {
		ok, err := z.fill(4)
		if err != nil {
			return err
		}
		if !ok {
			if z.iend == z.ip && z.offset(z.ip) > 0 {
				return io.EOF
			}
			return corrupt(z.offset(z.ip), "truncated frame magic")
		}
		at := z.offset(z.ip)
		m := binary.LittleEndian.Uint32(z.in[z.ip:])
		if m&skipMagicMask == skipMagic {
			if ok, err := z.fill(8); err != nil || !ok {
				return z.truncated(err, "skippable frame header")
			}
			size := int64(binary.LittleEndian.Uint32(z.in[z.ip+4:]))
			z.ip += 8
			if err := z.skip(size); err != nil {
				return err
			}
			continue
		}
		if m != frameMagic {
			return corrupt(at, "no frame magic")
		}
		if ok, err := z.fill(6); err != nil || !ok {
			return z.truncated(err, "frame header")
		}
		d := z.in[z.ip+4]
		if d&0x08 != 0 {
			return corrupt(at+4, "reserved bit in frame header descriptor")
		}
		fcsSize := [4]int{0, 2, 4, 8}[d>>6]
		single := d&0x20 != 0
		if fcsSize == 0 && single {
			fcsSize = 1
		}
		didSize := [4]int{0, 1, 2, 4}[d&3]
		n := 5 + fcsSize + didSize
		if !single {
			n++
		}
		if ok, err := z.fill(n); err != nil || !ok {
			return z.truncated(err, "frame header")
		}
		h := z.in[z.ip+5 : z.ip+n]
		var window uint64
		if !single {
			wd := h[0]
			window = uint64(8+wd&7) << (wd>>3 + 10 - 3)
			h = h[1:]
		}
		var dict uint32
		for i := didSize - 1; i >= 0; i-- {
			dict = dict<<8 | uint32(h[i])
		}
		h = h[didSize:]
		content := int64(-1)
		switch fcsSize {
		case 1:
			content = int64(h[0])
		case 2:
			content = int64(binary.LittleEndian.Uint16(h)) + 256
		case 4:
			content = int64(binary.LittleEndian.Uint32(h))
		case 8:
			c := binary.LittleEndian.Uint64(h)
			if c > 1<<62 {
				return corrupt(at, "frame content size %d", c)
			}
			content = int64(c)
		}
		if dict != 0 {
			return &archive.Error{Offset: at, Err: ErrDictionary}
		}
		if single {
			window = uint64(content)
		}
		if int64(window) > z.maxWin {
			return &archive.Error{Offset: at, Err: &archive.LimitError{What: "zstd window size", Need: int64(window), Limit: z.maxWin}}
		}
		z.ip += n
		z.startFrame(int(window), content, d&0x04 != 0)
		return nil
	}
}

// truncated is the error of a stream that ends inside what, or r's err.
func (z *Reader) truncated(err error, what string) error {
	if err != nil {
		return err
	}
	return corrupt(z.offset(z.iend), "truncated %s", what)
}

// skip passes n bytes of input.
func (z *Reader) skip(n int64) error {
	for n > 0 {
		if z.ip == z.iend {
			if _, err := z.fill(1); err != nil {
				return err
			}
			if z.ip == z.iend {
				return corrupt(z.offset(z.ip), "truncated skippable frame")
			}
		}
		k := int(min(n, int64(z.iend-z.ip)))
		z.ip += k
		n -= int64(k)
	}
	return nil
}

// startFrame prepares the window buffer for a frame.
func (z *Reader) startFrame(window int, content int64, checksum bool) {
	window = max(window, minWindow)
	// Past the window, a block and three times the slack: the output
	// wraps when a block and twice the slack would not fit behind it, so
	// that what the copies write past its end is more than copySlack
	// bytes before the oldest byte of the window.
	size := window
	if content >= 0 && content <= int64(window) {
		size = int(content) // all the frame's output fits
	}
	size += maxBlockSize + 3*copySlack
	if cap(z.hist) < size {
		if size >= histMapped {
			z.hist = histMemory(z, size)
		} else {
			z.hist = make([]byte, size)
		}
	}
	z.hist = z.hist[:cap(z.hist)]
	z.window, z.content, z.checksum = window, content, checksum
	z.op, z.rp, z.wrapEnd = 0, 0, 0
	z.produced = 0
	z.inFrame, z.last = true, false
	z.huffOK = false
	z.seq.reset()
	if checksum {
		z.xx.reset()
	}
}

// frameEnd checks the content size and checksum of a frame whose last
// block was decoded.
func (z *Reader) frameEnd() error {
	at := z.offset(z.ip)
	if z.content >= 0 && z.produced != z.content {
		return corrupt(at, "frame content size %d, decoded %d", z.content, z.produced)
	}
	if z.checksum {
		if ok, err := z.fill(4); err != nil || !ok {
			return z.truncated(err, "content checksum")
		}
		want := binary.LittleEndian.Uint32(z.in[z.ip:])
		z.ip += 4
		if got := uint32(z.xx.sum()); got != want {
			return &archive.Error{Offset: at, Err: fmt.Errorf("zstd: content checksum %08x, computed %08x: %w", want, got, archive.ErrChecksum)}
		}
	}
	z.inFrame = false
	return nil
}

// makeRoom starts the output again at the start of hist when a block of
// the largest size would not fit behind it; the data before stays at the
// end of hist (wrapEnd), for matches.
func (z *Reader) makeRoom() {
	if z.op+maxBlockSize+2*copySlack <= len(z.hist) {
		return
	}
	z.wrapEnd = z.op
	z.op, z.rp = 0, 0
}

// block decodes the next block of the frame into hist[op:].
func (z *Reader) block() error {
	if ok, err := z.fill(3); err != nil || !ok {
		return z.truncated(err, "block header")
	}
	at := z.offset(z.ip)
	v := uint32(z.in[z.ip]) | uint32(z.in[z.ip+1])<<8 | uint32(z.in[z.ip+2])<<16
	z.ip += 3
	z.last = v&1 != 0
	size := int(v >> 3)
	limit := min(z.window, maxBlockSize)
	z.makeRoom()
	begin := z.op
	switch v >> 1 & 3 {
	case 0: // raw
		if size > limit {
			return corrupt(at, "raw block of %d bytes", size)
		}
		if err := z.raw(size); err != nil {
			return err
		}
	case 1: // RLE
		if size > limit {
			return corrupt(at, "RLE block of %d bytes", size)
		}
		if ok, err := z.fill(1); err != nil || !ok {
			return z.truncated(err, "RLE block")
		}
		fillByte(z.hist[z.op:z.op+size], z.in[z.ip])
		if z.checksum {
			z.xx.writeRun(z.in[z.ip], size)
		}
		z.ip++
		z.op += size
	case 2:
		if size > limit {
			return corrupt(at, "compressed block of %d bytes", size)
		}
		if ok, err := z.fill(size); err != nil || !ok {
			return z.truncated(err, "compressed block")
		}
		b := z.in[z.ip : z.ip+size]
		z.ip += size
		if err := z.compressed(b, at, limit); err != nil {
			return err
		}
	default:
		return corrupt(at, "reserved block type")
	}
	n := z.op - begin
	z.produced += int64(n)
	if z.content >= 0 && z.produced > z.content {
		return corrupt(at, "frame content size %d exceeded", z.content)
	}
	if z.checksum && v>>1&3 != 1 { // an RLE block is hashed as it is filled
		z.xx.write(z.hist[begin:z.op])
	}
	return nil
}

// rawAhead is how many bytes past a raw block raw reads with it: the
// next block's header.
const rawAhead = 3

// raw copies a raw block of size bytes to hist[op:]. What in does not
// hold of it is read straight into hist, with the rawAhead bytes after
// it, which go to in: one read a block, and no copy through in, for a
// run of raw blocks (incompressible data).
func (z *Reader) raw(size int) error {
	k := min(size, z.iend-z.ip)
	copy(z.hist[z.op:z.op+k], z.in[z.ip:z.ip+k])
	z.ip += k
	if k < size {
		// in is used up: the rest comes from r.
		z.inOff += int64(z.iend)
		z.ip, z.iend = 0, 0
		dst := z.hist[z.op : z.op+size+rawAhead]
		got := k
		for got < size {
			if z.eof {
				return corrupt(z.inOff+int64(got-k), "truncated raw block")
			}
			n, err := z.r.Read(dst[got:])
			got += n
			switch {
			case err == io.EOF:
				z.eof = true
			case err != nil:
				return err
			case n == 0:
				return io.ErrNoProgress
			}
		}
		z.iend = copy(z.in, dst[size:got])
		z.inOff += int64(size - k)
	}
	z.op += size
	return nil
}

// fillByte sets every byte of b to c.
func fillByte(b []byte, c byte) {
	if len(b) == 0 {
		return
	}
	b[0] = c
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// compressed decodes the compressed block b (its header at offset at)
// of at most limit bytes of output.
func (z *Reader) compressed(b []byte, at int64, limit int) error {
	lits, rest, err := z.literals(b, at+3, limit)
	if err != nil {
		return err
	}
	return z.sequences(rest, lits, at+3+int64(len(b)-len(rest)), limit)
}

// literals decodes the literals section at the start of b (at offset
// at), returning the literals, with copySlack bytes of room behind them,
// and the rest of b.
func (z *Reader) literals(b []byte, at int64, limit int) ([]byte, []byte, error) {
	if len(b) == 0 {
		return nil, nil, corrupt(at, "empty compressed block")
	}
	var v uint64 // the header's up to 5 bytes
	for i := range min(len(b), 5) {
		v |= uint64(b[i]) << (8 * i)
	}
	typ, sf := b[0]&3, b[0]>>2&3
	var h, regen, comp int
	four := true
	switch {
	case typ <= 1 && sf&1 == 0:
		h, regen = 1, int(v>>3&0x1F)
	case typ <= 1 && sf == 1:
		h, regen = 2, int(v>>4&0xFFF)
	case typ <= 1:
		h, regen = 3, int(v>>4&0xFFFFF)
	case sf <= 1:
		h, regen, comp = 3, int(v>>4&0x3FF), int(v>>14&0x3FF)
		four = sf == 1
	case sf == 2:
		h, regen, comp = 4, int(v>>4&0x3FFF), int(v>>18&0x3FFF)
	default:
		h, regen, comp = 5, int(v>>4&0x3FFFF), int(v>>22&0x3FFFF)
	}
	if h > len(b) {
		return nil, nil, corrupt(at, "truncated literals header")
	}
	if regen > limit {
		return nil, nil, corrupt(at, "%d literals in a block of at most %d bytes", regen, limit)
	}
	if cap(z.lits) < maxBlockSize+copySlack {
		z.lits = make([]byte, maxBlockSize+copySlack)
	}
	lits := z.lits[:regen]
	b = b[h:]
	switch typ {
	case 0:
		if regen > len(b) {
			return nil, nil, corrupt(at, "truncated raw literals")
		}
		copy(lits, b)
		return lits, b[regen:], nil
	case 1:
		if len(b) == 0 {
			return nil, nil, corrupt(at, "truncated RLE literals")
		}
		fillByte(lits, b[0])
		return lits, b[1:], nil
	}
	if comp > len(b) {
		return nil, nil, corrupt(at, "truncated Huffman literals")
	}
	src, rest := b[:comp], b[comp:]
	if typ == 2 {
		s, streams, err := huff0.ReadTable(src, z.huff)
		if err != nil {
			return nil, nil, corrupt(at+int64(h), "Huffman table: %v", err)
		}
		z.huff, z.huffOK, src = s, true, streams
	} else if !z.huffOK {
		return nil, nil, corrupt(at, "treeless literals with no Huffman table before")
	}
	if four && regen < 6 { // too few for four streams (zstd also refuses)
		return nil, nil, corrupt(at, "%d literals in four streams", regen)
	}
	z.huff.MaxDecodedSize = regen
	d := z.huff.Decoder()
	var out []byte
	var err error
	if four {
		out, err = d.Decompress4X(z.lits[:0:regen], src)
	} else {
		out, err = d.Decompress1X(z.lits[:0:regen], src)
	}
	if err != nil {
		return nil, nil, corrupt(at, "Huffman literals: %v", err)
	}
	if len(out) != regen {
		return nil, nil, corrupt(at, "%d Huffman literals, %d declared", len(out), regen)
	}
	return z.lits[:regen], rest, nil
}
