package xz

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"sync"

	"github.com/garc-dev/garc/internal/lzma"
)

// Writer compresses into one .xz stream of independent blocks, each the
// LZMA2 filter alone with a CRC-64 check: every block holds BlockSize
// bytes of input (the last one the rest) and starts with a fresh
// dictionary. A block whose compressed stream is at most keepOut bytes
// has both sizes in its header, as `xz -T` writes them (xz decodes such
// blocks in parallel); a longer one has none there (the index has them),
// so that its stream goes out as it is coded instead of being held whole
// for the header: the Writer's memory does not grow with the block's
// output (a 128 MiB block of random data at -mx5 held 128 MiB). garc's
// Reader finds a block's end from its LZMA2 chunk headers either way.
// The block size depends on the options (the level's dictionary), never
// on the threads: blocks are compressed on up to opts.Threads goroutines
// and the file does not depend on their number (which header a block
// gets depends only on its compressed size). Several blocks at once take
// their input in pieces through a pool of a fixed size (inBudget), not
// in a buffer of a block each: the Writer's memory is the same for an
// input of two blocks as for one of thousands (issue 26, point 8).
type Writer struct {
	w     io.Writer
	opts  lzma.WriterOptions
	block int64 // input bytes per block
	// One block at a time (one, or a binary-tree finder's two threads):
	// enc codes the current block as its input arrives.
	enc *blockCoder
	// Several blocks at once: the block being filled (nil between
	// blocks), the blocks being compressed, fill among them (oldest
	// first), the idle coders, the pieces of input not handed to a
	// coder (free) and the one being filled (cur), and the input bytes
	// of fill so far.
	fill   *blockJob
	queue  []*blockJob
	idle   chan *blockCoder
	free   chan []byte
	made   int // pieces made, up to cap(free)
	cur    []byte
	filled int64
	// records are the index's (unpadded size, uncompressed size) pairs.
	records []uint64
	blocks  int // blocks begun
	started bool
	closed  bool
	err     error
}

// blockCoder compresses the blocks of a Writer one after another.
type blockCoder struct {
	enc *lzma.Writer2
	out blockOut // the block's LZMA2 stream
	crc uint64
	n   int64
}

// keepOut is the most of a block's compressed stream a Writer holds for
// the header's sizes; a variable so that tests can lower it.
var keepOut = 4 << 20

// blockOut takes a block's LZMA2 stream: it holds the stream in pieces
// while it is at most keepOut bytes; past that, when to is set (the
// block next to be written: coded alone, or the oldest of those coded
// at once, lead), it writes the block's header without sizes and the
// pieces to to, and from then on the stream straight through. A block
// coded beside an older one is held until it is the oldest, and its
// header chosen by its size when it is written (writeBlock), the same.
type blockOut struct {
	pieces
	mu     sync.Mutex // to and the stream, between a block's coder and lead
	to     io.Writer
	props  byte
	sent   int64 // bytes of the stream written through
	hdrLen int   // the header's length once written, 0 before
}

// Write appends p to the held stream or writes it through.
func (b *blockOut) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hdrLen > 0 {
		n, err := b.to.Write(p)
		b.sent += int64(n)
		return n, err
	}
	b.pieces.Write(p)
	if err := b.release(); err != nil {
		return 0, err
	}
	return len(p), nil
}

// release writes the header without sizes and the stream held to b.to
// when b.to is set and the stream is longer than keepOut.
func (b *blockOut) release() error {
	if b.to == nil || b.pieces.Len() <= keepOut {
		return nil
	}
	bh := blockHeader(b.props, -1, 0)
	if _, err := b.to.Write(bh); err != nil {
		return err
	}
	b.hdrLen = len(bh)
	for _, q := range b.bufs[:b.used] {
		n, err := b.to.Write(q)
		b.sent += int64(n)
		if err != nil {
			return err
		}
	}
	b.pieces.Reset()
	return nil
}

// lead makes the block the next to be written to w: what its coder
// writes from now on may go straight there.
func (b *blockOut) lead(w io.Writer) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.to = w
	return b.release()
}

// Len is the length of the block's stream so far.
func (b *blockOut) Len() int64 { return b.sent + int64(b.pieces.Len()) }

// Reset starts a block whose stream may go to to (nil: held until it
// leads). It keeps the pieces a leading block holds at most (keepOut and
// one), not those of a longer stream held beside an older block, so
// that every coder does not keep a block's stream of random data (16
// MiB at -mx3) once it has coded one.
func (b *blockOut) Reset(to io.Writer) {
	b.pieces.Reset()
	if k := keepOut/pieceSize + 1; len(b.bufs) > k {
		clear(b.bufs[k:])
		b.bufs = b.bufs[:k]
	}
	b.sent, b.hdrLen, b.to = 0, 0, to
}

// pieces holds a block's compressed stream, which the block header's
// sizes must precede (blockOut), in pieces of pieceSize bytes kept for
// the next block: unlike a buffer grown by doubling, it holds no more than the
// stream and a piece, and leaves nothing behind for the collector (a
// 128 MiB block at -mx5 held up to twice its compressed size).
type pieces struct {
	bufs [][]byte // bufs[:used] hold the stream; the rest are spare
	used int
	n    int
}

// pieceSize is the size of the pieces of a block's compressed stream.
const pieceSize = 1 << 20

// Write appends p.
func (b *pieces) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if b.used == 0 || len(b.bufs[b.used-1]) == pieceSize {
			if b.used == len(b.bufs) {
				b.bufs = append(b.bufs, make([]byte, 0, pieceSize))
			}
			b.bufs[b.used] = b.bufs[b.used][:0]
			b.used++
		}
		last := &b.bufs[b.used-1]
		k := min(len(p), pieceSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	b.n += n
	return n, nil
}

// Len is the length of the stream held.
func (b *pieces) Len() int { return b.n }

// Reset empties b, keeping its pieces.
func (b *pieces) Reset() { b.used, b.n = 0, 0 }

// blockJob is one block compressed on its own goroutine, which takes
// its input in pieces from in until in is closed and gives each piece
// back to the Writer's pool once coded.
type blockJob struct {
	c    *blockCoder
	in   chan []byte
	err  error
	done chan struct{}
}

// inPiece is the size of the pieces in which a Writer hands a block's
// input to its coder.
const inPiece = 256 << 10

// inBudget is the input that a Writer coding n blocks of size block at
// once holds, in pieces of inPiece bytes: half a block for each block
// beside the oldest. Blocks are handed their input in order, the next
// one once the last has all of its own; with the coders equally fast the
// first, oldest block takes half a block ahead and is done when the
// second has been handed all of its block (the other half as the first
// gave pieces back), which takes the first's coder next: no coder waits.
// The pool is full after the first half block, whatever the input's
// length; three blocks' buffers (one being filled, two coded) took 48
// MiB at -mx3 and put the peak RSS of 2 GiB 40 MB above that of 20 MiB.
func inBudget(n int, block int64) int {
	return max(int(int64(n-1)*block/2/inPiece), 2)
}

// BlockSize is the input size of the blocks that a Writer with options o
// writes: o.BlockSize when set, otherwise four times the dictionary
// between 2 MiB and 256 MiB, as 7-Zip sizes its LZMA2 blocks (-mx5, 32
// MiB of dictionary: 128 MiB; -mx1: 2 MiB).
func BlockSize(o lzma.WriterOptions) int64 {
	if o.BlockSize > 0 {
		return o.BlockSize
	}
	d := int64(o.DictSize)
	if d == 0 {
		d = int64(lzma.LevelOptions(o.Level).DictSize)
	}
	return min(max(4*d, 2<<20), 256<<20)
}

// NewWriter writes the stream header to w and returns a Writer whose
// LZMA2 encoders have the options opts (zero fields from opts.Level's
// preset, see lzma.LevelOptions). With a binary-tree match finder (the
// levels from 5) each block is compressed on two threads (the encoder's
// parallel finder) and opts.Threads/2 blocks (rounded up) at once; with a
// hash chain each block on one thread, opts.Threads at once.
func NewWriter(w io.Writer, opts lzma.WriterOptions) (*Writer, error) {
	x := &Writer{w: w, opts: opts, block: BlockSize(opts)}
	threads := max(opts.Threads, 1)
	mf := opts.MatchFinder
	if mf == "" {
		mf = lzma.LevelOptions(opts.Level).MatchFinder
	}
	kind, err := lzma.ParseMatchFinder(mf)
	if err != nil {
		return nil, err
	}
	per, coders := 1, threads
	if kind == lzma.BT4 || kind == lzma.BT5 {
		per, coders = min(threads, 2), (threads+1)/2
	}
	x.opts.BlockSize = x.block // one LZMA2 block per xz block
	newCoder := func(t int) (*blockCoder, error) {
		o := x.opts
		o.Threads = t
		c := &blockCoder{}
		enc, err := lzma.NewWriter2(&c.out, o)
		if err == nil {
			c.enc, c.out.props = enc, enc.Props()
		}
		return c, err
	}
	if coders == 1 {
		if x.enc, err = newCoder(per); err != nil {
			return nil, err
		}
	} else {
		x.free = make(chan []byte, inBudget(coders, x.block))
		x.idle = make(chan *blockCoder, coders)
		for i := range coders {
			// With an odd thread count the last coder has one.
			c, err := newCoder(min(per, threads-i*per))
			if err != nil {
				return nil, err
			}
			x.idle <- c
		}
	}
	flags := []byte{0, checkCRC64}
	hdr := append([]byte{0xFD, '7', 'z', 'X', 'Z', 0}, flags...)
	hdr = binary.LittleEndian.AppendUint32(hdr, crc32.ChecksumIEEE(flags))
	if _, err := w.Write(hdr); err != nil {
		return nil, err
	}
	return x, nil
}

// errClosed is returned by Write after Close.
var errClosed = errors.New("xz: write to a closed Writer")

// Write compresses p.
func (x *Writer) Write(p []byte) (int, error) {
	if x.closed {
		return 0, errClosed
	}
	if x.err != nil {
		return 0, x.err
	}
	n := len(p)
	for len(p) > 0 {
		if x.enc != nil {
			c := x.enc
			if !x.started {
				c.start(x.w)
				x.started = true
				x.blocks++
			}
			k := int(min(int64(len(p)), x.block-c.n))
			if err := c.write(p[:k]); err != nil {
				x.err = err
				return n - len(p), err
			}
			p = p[k:]
			if c.n == x.block {
				x.started = false
				if x.err = c.finish(); x.err == nil {
					x.err = x.writeBlock(c)
				}
			}
		} else {
			if x.fill == nil {
				if x.err = x.begin(); x.err != nil {
					return n - len(p), x.err
				}
			}
			if x.cur == nil {
				x.cur = x.piece()
			}
			k := int(min(int64(len(p)), int64(inPiece-len(x.cur)), x.block-x.filled))
			x.cur = append(x.cur, p[:k]...)
			x.filled += int64(k)
			p = p[k:]
			if len(x.cur) == inPiece || x.filled == x.block {
				x.fill.in <- x.cur
				x.cur = nil
			}
			if x.filled == x.block {
				x.endFill()
			}
		}
		if x.err != nil {
			return n - len(p), x.err
		}
	}
	return n, nil
}

// piece returns an empty piece of input from the pool, a new one while
// fewer than its size have been made, otherwise once a coder gives one
// back.
func (x *Writer) piece() []byte {
	select {
	case b := <-x.free:
		return b[:0]
	default:
	}
	if x.made < cap(x.free) {
		x.made++
		return make([]byte, 0, inPiece)
	}
	return (<-x.free)[:0]
}

// begin starts a block on an idle coder, first writing the oldest blocks
// until one is idle. The block's goroutine codes the pieces of input
// handed to it as they come.
func (x *Writer) begin() error {
	for len(x.idle) == 0 {
		if err := x.retire(); err != nil {
			return err
		}
	}
	j := &blockJob{c: <-x.idle, in: make(chan []byte, cap(x.free)), done: make(chan struct{})}
	var to io.Writer
	if len(x.queue) == 0 {
		to = x.w // the oldest block: its stream may go straight out
	}
	j.c.start(to)
	x.queue = append(x.queue, j)
	x.fill, x.filled = j, 0
	x.blocks++
	go func() {
		defer close(j.done)
		for b := range j.in {
			if j.err == nil {
				j.err = j.c.write(b)
			}
			x.free <- b
		}
		if j.err == nil {
			j.err = j.c.finish()
		}
	}()
	return nil
}

// endFill ends the input of the block being filled, handing its coder
// what is left of it.
func (x *Writer) endFill() {
	if len(x.cur) > 0 {
		x.fill.in <- x.cur
		x.cur = nil
	}
	close(x.fill.in)
	x.fill = nil
}

// retire waits for the oldest block in flight, writes it, makes its
// coder idle and lets the next block's stream go out. On an error it
// ends the block being filled and waits for every block in flight.
func (x *Writer) retire() error {
	j := x.queue[0]
	x.queue = x.queue[1:]
	<-j.done
	err := j.err
	if err == nil {
		err = x.writeBlock(j.c)
	}
	x.idle <- j.c
	if err == nil && len(x.queue) > 0 {
		err = x.queue[0].c.out.lead(x.w)
	}
	if err != nil {
		if x.fill != nil {
			x.endFill()
		}
		for _, k := range x.queue {
			<-k.done
			x.idle <- k.c
		}
		x.queue = nil
	}
	return err
}

// start begins a block whose stream may go to to (nil: held until it
// leads, blockOut).
func (c *blockCoder) start(to io.Writer) {
	c.out.Reset(to)
	c.enc.Reset(&c.out)
	c.crc, c.n = 0, 0
}

// write compresses p into the block.
func (c *blockCoder) write(p []byte) error {
	_, err := c.enc.Write(p)
	c.crc = crc64Update(c.crc, p)
	c.n += int64(len(p))
	return err
}

// finish ends the block's LZMA2 stream.
func (c *blockCoder) finish() error { return c.enc.Close() }

// blockHeader returns a block header for the LZMA2 filter with the
// property byte props: with the compressed and uncompressed sizes packed
// and n, or none when packed is negative.
func blockHeader(props byte, packed, n int64) []byte {
	// Size byte, flags (one filter; both sizes present or none), the
	// sizes, the LZMA2 filter (ID 0x21, one property byte), padding to
	// a multiple of four, CRC-32.
	bh := []byte{0, 0}
	if packed >= 0 {
		bh[1] = 0xC0
		bh = binary.AppendUvarint(bh, uint64(packed))
		bh = binary.AppendUvarint(bh, uint64(n))
	}
	bh = append(bh, 0x21, 0x01, props)
	for len(bh)%4 != 0 {
		bh = append(bh, 0)
	}
	bh[0] = byte(len(bh) / 4) // (header size including the CRC)/4 - 1
	return binary.LittleEndian.AppendUint32(bh, crc32.ChecksumIEEE(bh))
}

// writeBlock writes what is left of a compressed block: its header (with
// both sizes when its stream is at most keepOut bytes) and its stream
// when they are held, then padding and the CRC-64, and records the block
// for the index.
func (x *Writer) writeBlock(c *blockCoder) error {
	out := &c.out
	packed := out.Len()
	hdrLen := out.hdrLen
	var bufs [][]byte
	if hdrLen == 0 {
		sizes := packed
		if packed > int64(keepOut) {
			sizes = -1
		}
		bh := blockHeader(out.props, sizes, c.n)
		hdrLen = len(bh)
		bufs = append(append(bufs, bh), out.bufs[:out.used]...)
	}
	var tail []byte
	tail = append(tail, make([]byte, (4-packed%4)%4)...)
	tail = binary.LittleEndian.AppendUint64(tail, c.crc)
	for _, b := range append(bufs, tail) {
		if _, err := x.w.Write(b); err != nil {
			return err
		}
	}
	x.records = append(x.records, uint64(int64(hdrLen)+packed+8), uint64(c.n))
	return nil
}

// Close ends the last block and writes the index and the stream footer.
// It does not close the underlying writer. An empty input gives one
// empty block (xz writes none, but 7-Zip reports data after the end of
// a ZIP entry's stream of no blocks).
func (x *Writer) Close() error {
	if x.closed {
		return x.err
	}
	x.closed = true
	if x.err == nil && x.blocks == 0 {
		if x.enc != nil {
			x.enc.start(x.w)
			x.started = true
		} else {
			x.err = x.begin()
		}
	}
	if x.err == nil {
		switch {
		case x.enc != nil && x.started:
			if x.err = x.enc.finish(); x.err == nil {
				x.err = x.writeBlock(x.enc)
			}
		case x.fill != nil:
			x.endFill()
		}
	}
	for len(x.queue) > 0 {
		if err := x.retire(); err != nil && x.err == nil {
			x.err = err
		}
	}
	if x.err != nil {
		return x.err
	}
	idx := []byte{0}
	idx = binary.AppendUvarint(idx, uint64(len(x.records)/2))
	for _, r := range x.records {
		idx = binary.AppendUvarint(idx, r)
	}
	for len(idx)%4 != 0 {
		idx = append(idx, 0)
	}
	idx = binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(idx))
	foot := binary.LittleEndian.AppendUint32(nil, uint32(len(idx)/4-1))
	foot = append(foot, 0, checkCRC64)
	tail := binary.LittleEndian.AppendUint32(idx, crc32.ChecksumIEEE(foot))
	tail = append(tail, foot...)
	tail = append(tail, 'Y', 'Z')
	if _, err := x.w.Write(tail); err != nil {
		x.err = err
	}
	return x.err
}
