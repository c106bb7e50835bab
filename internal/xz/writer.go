package xz

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"

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
// gets depends only on its compressed size).
type Writer struct {
	w     io.Writer
	opts  lzma.WriterOptions
	block int64 // input bytes per block
	// One block at a time (one, or a binary-tree finder's two threads):
	// enc codes the current block as its input arrives.
	enc *blockCoder
	// Several blocks at once: the block being filled, the blocks being
	// compressed (oldest first) and the idle coders.
	fill  *blockJob
	queue []*blockJob
	idle  chan *blockCoder
	spare [][]byte
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
// block coded alone, in order), it writes the block's header without
// sizes and the pieces to to, and from then on the stream straight
// through. A block coded beside others (to nil) is held whole, and its
// header chosen by its size when it is written (writeBlock), the same.
type blockOut struct {
	pieces
	to     io.Writer
	props  byte
	sent   int64 // bytes of the stream written through
	hdrLen int   // the header's length once written, 0 before
}

// Write appends p to the held stream or writes it through.
func (b *blockOut) Write(p []byte) (int, error) {
	if b.hdrLen > 0 {
		n, err := b.to.Write(p)
		b.sent += int64(n)
		return n, err
	}
	b.pieces.Write(p)
	if b.to == nil || b.pieces.Len() <= keepOut {
		return len(p), nil
	}
	bh := blockHeader(b.props, -1, 0)
	if _, err := b.to.Write(bh); err != nil {
		return 0, err
	}
	b.hdrLen = len(bh)
	for _, q := range b.bufs[:b.used] {
		n, err := b.to.Write(q)
		b.sent += int64(n)
		if err != nil {
			return 0, err
		}
	}
	b.pieces.Reset()
	return len(p), nil
}

// Len is the length of the block's stream so far.
func (b *blockOut) Len() int64 { return b.sent + int64(b.pieces.Len()) }

// Reset starts a block.
func (b *blockOut) Reset() {
	b.pieces.Reset()
	b.sent, b.hdrLen = 0, 0
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

// blockJob is one block compressed on its own goroutine.
type blockJob struct {
	in   []byte
	c    *blockCoder
	err  error
	done chan struct{}
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
		x.enc.out.to = w
	} else {
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
				c.start()
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
				x.fill = &blockJob{in: x.buffer()}
				x.blocks++
			}
			f := x.fill
			k := int(min(int64(len(p)), x.block-int64(len(f.in))))
			f.in = append(f.in, p[:k]...)
			p = p[k:]
			if int64(len(f.in)) == x.block {
				x.err = x.submit()
			}
		}
		if x.err != nil {
			return n - len(p), x.err
		}
	}
	return n, nil
}

// buffer returns an empty input buffer for a block, a spare one when
// there is one.
func (x *Writer) buffer() []byte {
	if n := len(x.spare); n > 0 {
		b := x.spare[n-1]
		x.spare = x.spare[:n-1]
		return b[:0]
	}
	// The block's size at once, so that no smaller buffers are left
	// behind; the pages a short stream does not fill are never touched.
	return make([]byte, 0, x.block)
}

// submit starts compressing the filled block on an idle coder, first
// writing the oldest blocks until one is idle.
func (x *Writer) submit() error {
	j := x.fill
	x.fill = nil
	for len(x.idle) == 0 {
		if err := x.retire(); err != nil {
			x.spare = append(x.spare, j.in)
			return err
		}
	}
	j.c = <-x.idle
	j.done = make(chan struct{})
	x.queue = append(x.queue, j)
	go func() {
		defer close(j.done)
		c := j.c
		c.start()
		if j.err = c.write(j.in); j.err == nil {
			j.err = c.finish()
		}
	}()
	return nil
}

// retire waits for the oldest block in flight, writes it and makes its
// coder idle. On an error it waits for every block in flight.
func (x *Writer) retire() error {
	j := x.queue[0]
	x.queue = x.queue[1:]
	<-j.done
	err := j.err
	if err == nil {
		err = x.writeBlock(j.c)
	}
	x.spare = append(x.spare, j.in)
	x.idle <- j.c
	if err != nil {
		for _, k := range x.queue {
			<-k.done
			x.idle <- k.c
		}
		x.queue = nil
	}
	return err
}

// start begins a block.
func (c *blockCoder) start() {
	c.out.Reset()
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
			x.enc.start()
			x.started = true
		} else {
			x.fill = &blockJob{}
		}
	}
	if x.err == nil {
		switch {
		case x.enc != nil && x.started:
			if x.err = x.enc.finish(); x.err == nil {
				x.err = x.writeBlock(x.enc)
			}
		case x.fill != nil:
			x.err = x.submit()
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
