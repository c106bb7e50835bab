package xz

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/garc-dev/garc/internal/lzma"
)

// Block-parallel decoding.
//
// Blocks are independent: each starts a new LZMA2 stream and has its own
// check. Their extent is found without decoding, block header and LZMA2
// chunk headers giving every size (the compressed size in the block header
// is not needed, so blocks written by a single-threaded encoder with
// --block-size qualify as well as those of xz -T2 or 7-Zip). With
// SetThreads(n > 1) the Reader reads up to n+1 whole blocks ahead, each of
// at most maxParBlock unpacked bytes, has them decoded on up to n
// goroutines into buffers of their size, and returns the buffers in order,
// adding each block's index record as the sequential path does. A buffer
// whose bytes have all been returned is kept for a later block: the pages
// of a fresh buffer cost a first-touch fault each, which for blocks of
// tens of MiB is most of what decoding in parallel costs beside the
// sequential decoder, whose window is reused. For the same reason, the
// (n+1)-th block, which only keeps a goroutine busy while the reader
// returns the first, is read ahead only while the queued blocks are small
// (spareHeld). A block the
// walk does not expect (larger than maxParBlock, sizes that differ from its
// header, a bad chunk header, truncated input) and any block whose decoder
// fails is read again, from its header, by the sequential path: same
// output, same error.

// maxParBlock bounds the unpacked size of a block decoded in parallel, a
// variable so that tests can lower it. With n threads at most n+1 blocks
// are held, packed and unpacked, and no more than maxHeld bytes once one
// is held, beside n LZMA2 windows of at most the block size.
var maxParBlock int64 = 32 << 20

// maxHeld bounds the bytes of the blocks read ahead.
const maxHeld = 160 << 20

// spareHeld bounds the bytes of the n blocks queued (n threads) below which
// one more is read ahead: above it, 3 blocks of 24 MiB (xz -6 -T2) instead
// of 2 cost up to 15 % more CPU in first-touch faults for the little time a
// goroutine would otherwise wait while the reader returns the first block.
// A variable so that tests can lower it.
var spareHeld int64 = 16 << 20

// errBlockEnd marks a block decoded in parallel whose data do not end
// where the walk found their end; the sequential path reports why.
var errBlockEnd = errors.New("xz: block data end elsewhere than walked")

// readJob is one block read ahead.
type readJob struct {
	start    int64  // input offset of its header
	raw      []byte // header, data, padding and check
	size     int    // unpacked bytes
	out      []byte // its uncompressed data once decoded (out[:size])
	given    int    // the capacity of out when handed to the decoder
	off      int    // bytes of out already returned
	unpadded int64  // header + compressed data + check, for the index
	err      error
	done     chan struct{}
}

// parBlocks is the Reader's parallel state.
type parBlocks struct {
	threads int
	queue   []*readJob
	subs    chan *Reader // free block decoders (nil until first needed); its capacity bounds the goroutines
	freeOut [][]byte
	freeRaw [][]byte
	blocks  int // blocks handed to the goroutines since Reset
	fresh   int // output buffers allocated by the goroutines for the blocks returned, since SetThreads
	// decided is set once the file's first parRead has looked at its
	// indexes (parallelWorth); off then says that no block is read ahead
	// in this file, as after a walk found a block above maxParBlock in a
	// file whose indexes could not be read first (indexed false).
	decided, off, indexed bool
}

// SetThreads lets z decode up to n blocks at once; n <= 1 keeps the
// sequential decoder. Call it after NewReader or Reset, before the first
// Read; Reset keeps the setting.
func (z *Reader) SetThreads(n int) {
	if z.par != nil {
		z.par.drain()
	}
	if n <= 1 {
		z.par = nil
		return
	}
	if z.par == nil || z.par.threads != n {
		z.par = &parBlocks{threads: n, subs: make(chan *Reader, n)}
		for range n {
			z.par.subs <- nil
		}
	}
}

// drain waits for the blocks being decoded and forgets the queue, keeping
// their output buffers (their packed bytes may have been handed to unread).
func (p *parBlocks) drain() {
	for _, j := range p.queue {
		<-j.done
		if cap(j.out) > 0 {
			p.freeOut = append(p.freeOut, j.out[:0])
		}
	}
	clear(p.queue)
	p.queue = p.queue[:0]
}

// parRead returns the next bytes of the blocks read ahead, reading more
// blocks ahead first. ok is false when no block is queued: the sequential
// path goes on from z.in.
func (z *Reader) parRead(b []byte) (n int, ok bool) {
	p := z.par
	if !p.decided {
		p.decided = true
		p.off = !z.parallelWorth()
	}
	for {
		if len(p.queue) > 0 && p.queue[0].off == p.queue[0].size {
			z.finishJob()
		}
		z.walkBlocks()
		if len(p.queue) == 0 {
			return 0, false
		}
		j := p.queue[0]
		<-j.done
		if j.err != nil {
			// Read this block and the next again, sequentially.
			var raws [][]byte
			for _, q := range p.queue {
				raws = append(raws, q.raw)
			}
			p.drain()
			z.in.unread(raws)
			return 0, false
		}
		if j.off < j.size {
			if len(b) == 0 {
				return 0, true
			}
			n = copy(b, j.out[j.off:j.size])
			j.off += n
			z.totalOut += int64(n)
			return n, true
		}
	}
}

// parallelWorth reports whether reading blocks ahead can pay off in
// this file: always, unless the input is a sized io.ReaderAt (a file's
// section) whose indexes say that fewer than two of its blocks are small
// enough to be decoded in parallel (a single block, as xz -T1 writes, or
// blocks above maxParBlock). Without sizes in its header such a block
// would otherwise be read into a buffer up to maxParBlock unpacked bytes
// before the walk gave it back to the sequential path: on one 32 MiB
// block of random data, 32 MiB read ahead, copied again and 80 MB more
// RSS for nothing.
func (z *Reader) parallelWorth() bool {
	z.par.indexed = false
	src, ok := z.in.src.(interface {
		io.ReaderAt
		Size() int64
	})
	if !ok || src.Size() == math.MaxInt64 {
		// A section of unknown size: an archive arriving on a pipe, which
		// a read at its end would consume.
		return true
	}
	small := 0
	_, z.par.indexed = readIndexes(src, src.Size(), func(uncomp uint64) {
		if uncomp <= uint64(maxParBlock) {
			small++
		}
	})
	return !z.par.indexed || small >= 2
}

// finishJob records the head block, all of whose bytes have been
// returned, as endBlock records a block, and frees its buffers.
func (z *Reader) finishJob() {
	p := z.par
	j := p.queue[0]
	z.blocks++
	var rec [16]byte
	binary.LittleEndian.PutUint64(rec[:8], uint64(j.unpadded))
	binary.LittleEndian.PutUint64(rec[8:], uint64(j.size))
	z.records.Write(rec[:])
	if cap(j.out) != j.given {
		p.fresh++
	}
	p.freeOut = append(p.freeOut, j.out[:0])
	p.freeRaw = append(p.freeRaw, j.raw[:0])
	copy(p.queue, p.queue[1:])
	p.queue[len(p.queue)-1] = nil
	p.queue = p.queue[:len(p.queue)-1]
}

// held returns the bytes of the blocks queued.
func (p *parBlocks) held() int64 {
	var n int64
	for _, j := range p.queue {
		n += int64(j.size + cap(j.raw)) // j.out belongs to its goroutine until done
	}
	return n
}

// walkBlocks reads whole blocks ahead while the input is inside a stream,
// before its index, and fewer than threads are queued, or threads holding
// less than spareHeld.
func (z *Reader) walkBlocks() {
	p := z.par
	for z.inBlock && !p.off && p.room() {
		if !z.walkBlock() {
			return
		}
	}
}

// room reports whether one more block may be read ahead.
func (p *parBlocks) room() bool {
	n, held := len(p.queue), p.held()
	return held < maxHeld-2*maxParBlock && (n < p.threads || n == p.threads && held < spareHeld)
}

// walkBlock reads the block that starts at the input into a buffer and
// starts its decoding. It returns false, with the input as it was, when the
// next thing is not a block it can find the end of.
func (z *Reader) walkBlock() bool {
	p := z.par
	at := z.in.off
	pk, err := z.in.br.Peek(1)
	if err != nil || pk[0] == 0 {
		return false // the index, or an error the sequential path reports
	}
	size := (int(pk[0]) + 1) * 4
	hdr, err := z.in.br.Peek(size)
	if err != nil || crc32.ChecksumIEEE(hdr[:size-4]) != binary.LittleEndian.Uint32(hdr[size-4:]) || hdr[1]&0x3C != 0 {
		return false
	}
	declaredComp, declaredUncomp := int64(-1), int64(-1)
	vp := vliParser{b: hdr[2 : size-4]}
	if hdr[1]&0x40 != 0 {
		v, err := vp.next()
		if err != nil {
			return false
		}
		declaredComp = int64(v)
	}
	if hdr[1]&0x80 != 0 {
		v, err := vp.next()
		if err != nil || int64(v) > maxParBlock {
			return false
		}
		declaredUncomp = int64(v)
	}
	var raw []byte
	if k := len(p.freeRaw); k > 0 {
		raw, p.freeRaw = p.freeRaw[k-1], p.freeRaw[:k-1]
	}
	giveUp := func() bool {
		z.in.unread([][]byte{raw})
		return false
	}
	read := func(n int) bool {
		k := len(raw)
		raw = slices.Grow(raw, n)[:k+n]
		m, _ := io.ReadFull(&z.in, raw[k:])
		raw = raw[:k+m]
		return m == n
	}
	if !read(size) {
		return giveUp()
	}
	// The LZMA2 chunks, up to the end byte.
	var uncomp int64
	for {
		k := len(raw)
		if !read(1) {
			return giveUp()
		}
		c := raw[k]
		if c == 0 {
			break
		}
		hdr := lzma.ChunkHeaderLen(c)
		if hdr == 0 || !read(hdr-1) {
			return giveUp()
		}
		unpacked, packed := lzma.ChunkSizes(raw[k:])
		uncomp += int64(unpacked)
		if uncomp > maxParBlock {
			// Without the indexes (parallelWorth), take the next blocks
			// to be alike, not worth walking either.
			p.off = !p.indexed
			return giveUp()
		}
		if !read(packed) {
			return giveUp()
		}
	}
	comp := int64(len(raw) - size)
	if declaredComp >= 0 && declaredComp != comp || declaredUncomp >= 0 && declaredUncomp != uncomp {
		return giveUp()
	}
	cs := checkSize(z.check)
	if !read(int((4-comp%4)%4) + cs) {
		return giveUp()
	}
	j := &readJob{start: at, raw: raw, size: int(uncomp), unpadded: int64(size) + comp + int64(cs), done: make(chan struct{})}
	if k := len(p.freeOut); k > 0 {
		j.out, p.freeOut = p.freeOut[k-1], p.freeOut[:k-1]
	}
	j.given = cap(j.out)
	p.queue = append(p.queue, j)
	p.blocks++
	go p.decode(j, z.maxDict, z.check, z.flags)
	return true
}

// decode decodes j on a free block decoder: a Reader limited to one block.
func (p *parBlocks) decode(j *readJob, maxDict int64, check byte, flags [2]byte) {
	defer close(j.done)
	sub := <-p.subs
	defer func() { p.subs <- sub }()
	if sub == nil {
		sub = &Reader{blockOnly: true, records: sha256.New(), indexHash: sha256.New()}
	}
	sub.Reset(bytes.NewReader(j.raw), maxDict)
	sub.in.off = j.start
	sub.inBlock = true
	sub.flags, sub.check = flags, check
	sub.sum = newCheck(check)
	sub.blockSize = int64(j.size)
	b, err := sub.in.readByte()
	if err == nil {
		err = sub.startBlock(j.start, b)
	}
	if err != nil {
		j.err = err
		return
	}
	end := j.start + int64(len(j.raw))
	if sub.out == io.Reader(sub.lz) {
		// No filters: decode in place into j.out, then check.
		out, err := sub.lz.DecodeInto(j.out)
		if err != nil {
			j.err = err
			return
		}
		j.out = out
		if sub.sum != nil {
			sub.sum.Write(out)
		}
		sub.uncompressed = int64(len(out))
		sub.out = nil
		if err := sub.endBlock(); err != nil || sub.in.off != end {
			j.err = errBlockEnd
		}
		return
	}
	if cap(j.out) < j.size {
		j.out = make([]byte, j.size)
	}
	j.out = j.out[:j.size]
	if _, err := io.ReadFull(sub, j.out); err != nil {
		j.err = err
		return
	}
	var one [1]byte
	if n, err := sub.Read(one[:]); n != 0 || err != io.EOF || sub.in.off != end {
		j.err = errBlockEnd
	}
}

// unread puts raws, read last from in, back in front of what it still
// holds: the next reads return them again.
func (in *input) unread(raws [][]byte) {
	parts := make([][]byte, 0, len(raws)+1)
	var n int64
	for _, r := range raws {
		if len(r) > 0 {
			parts = append(parts, r)
			n += int64(len(r))
		}
	}
	if n == 0 {
		return
	}
	buffered, _ := in.br.Peek(in.br.Buffered())
	parts = append(parts, bytes.Clone(buffered))
	c := &concatReader{rest: in.src}
	if old, ok := in.src.(*concatReader); ok {
		c.rest = old.rest
		parts = append(parts, old.parts...)
	}
	c.parts = parts
	in.src = c
	in.br.Reset(c)
	in.off -= n
}

// concatReader reads parts, then rest, filling each Read from as many of
// them as it can.
type concatReader struct {
	parts [][]byte
	rest  io.Reader
}

func (c *concatReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) && len(c.parts) > 0 {
		m := copy(b[n:], c.parts[0])
		n += m
		c.parts[0] = c.parts[0][m:]
		if len(c.parts[0]) == 0 {
			c.parts = c.parts[1:]
		}
	}
	if n == len(b) {
		return n, nil
	}
	m, err := c.rest.Read(b[n:])
	n += m
	if n > 0 && err == io.EOF {
		err = nil
	}
	return n, err
}
