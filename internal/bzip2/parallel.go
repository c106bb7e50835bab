package bzip2

import (
	"bytes"
	"encoding/binary"
	"io"
	"slices"
)

// Parallel decoding (NewReaderThreads with threads > 1), as lbzip2 and
// pbzip2 do it: blocks are bit-aligned and their lengths are not stored,
// but every block starts with the 48-bit magic 0x314159265359. The
// goroutine calling Read keeps a window of the input, searches it for
// that magic at every bit offset, and starts a worker goroutine per
// candidate (at most threads at once) that decodes the block there —
// Huffman stage, move-to-front and inverse BWT — into buffers of its
// own. The magic can also occur by chance inside a block's data, so a
// candidate is only a guess: the reading goroutine follows the true
// chain of positions itself. It knows where the first block starts (after
// the stream header), a worker's result says where its block ended, and
// there the next block's magic, or the end-of-stream marker (whose
// combined CRC it checks, then the next stream's header), must follow;
// results of candidates at other positions are dropped. The output stage
// (the initial run-length stage and the block CRC) runs on the reading
// goroutine, in order, with the same code as sequential decoding.
//
// Anything unexpected at a true position — a worker's error, a block
// longer than its stream's level allows, a wrong stream CRC or header,
// a block no candidate covers within parMaxSpan bytes — hands the rest
// of the input to the sequential decoder, started at that bit position
// with the stream's state, so errors, their offsets and the output are
// exactly those of sequential decoding. Blocks found by the magic but
// decoded wrongly cannot pass: their end must be where the next true
// position is read, and the block CRC is checked on output.

const (
	// parMaxSpan is the input a worker may read for one block: a level 9
	// block of 900 000 symbols of at most 20 bits, its tables and its
	// selectors fit.
	parMaxSpan = 3 << 20
	// parFirstSpan is the input given to a worker before any block's
	// length is known; later ones get twice the longest block so far
	// (plus parReadSize), and a worker that runs out of it is started
	// again with parMaxSpan. A block of random data at level 9 takes
	// about 905 000 bytes.
	parFirstSpan = 1 << 20
	// parReadSize is the least room a new window has for reads of the
	// input.
	parReadSize = 256 << 10
	// parMaxBlock is the largest block of any level; workers do not know
	// their stream's level, which the reading goroutine checks.
	parMaxBlock = 9 * 100000
)

// parJob is one candidate block being decoded by a worker.
type parJob struct {
	z    Reader // the worker's bit reader and Huffman tables
	blk  *blockBuf
	pos  int64 // bit offset of the magic in the input
	end  int64 // bit offset after the block's last symbol
	data []byte
	// dataMem owns data where it lies outside the Go heap (hugeAlloc).
	dataMem *mapping
	short   bool  // data ends before parMaxSpan and the input's end
	offset  int64 // input offset of data[0]
	gen     int   // generation of the window holding data
	first   bool  // blk is a closed Reader's first block, to be walked (first.go)
	err     error
	done    chan struct{}
}

// run decodes the block at j.pos from j.data.
func (j *parJob) run() {
	defer func() { j.done <- struct{}{} }()
	j.err = nil
	if j.first {
		j.first = false
		if j.blk.walked < j.blk.n {
			j.blk.finish()
		}
		return
	}
	z := &j.z
	start := j.pos/8 - j.offset
	z.br.resetBytes(j.data[start:])
	z.blockSize = parMaxBlock
	j.err = nil
	if k := uint(j.pos % 8); k > 0 {
		if _, j.err = z.br.readBits(k); j.err != nil {
			return
		}
	}
	// The magic was checked by the search; the CRC follows it.
	if _, j.err = z.br.readBits(24); j.err != nil {
		return
	}
	if _, j.err = z.br.readBits(24); j.err != nil {
		return
	}
	var crc uint32
	if crc, j.err = z.br.readBits(32); j.err != nil {
		return
	}
	if j.err = z.readBlock(j.blk); j.err != nil {
		return
	}
	j.blk.wantCRC = crc
	j.blk.unBWT()
	used := (z.br.base+int64(z.br.pos))*8 - int64(z.br.n)
	j.end = (j.offset+start)*8 + used
}

// parallel is the reading goroutine's state of parallel decoding.
type parallel struct {
	r       io.Reader
	win     []byte   // input from offset base; bytes below len(win) are never written again
	winMem  *mapping // owns win where it lies outside the Go heap
	gen     int      // win's generation (each new window has the next)
	spare   []window
	base    int64
	eof     bool  // r is exhausted
	rerr    error // r's error other than io.EOF
	scanned int64 // the magic was searched for below this offset (its first byte)
	cands   []int64
	pos     int64 // bit offset of the next block or end-of-stream marker
	jobs    []*parJob
	free    []*parJob
	longest int64 // bytes of the longest block decoded so far
	seq     bool  // handed over to sequential decoding
	// held is the job whose block is being output: its buffers are the
	// Reader's cur until the next block is asked for, and it counts
	// against the threads.
	held  *parJob
	first *firstBlock // a closed Reader's first block (adoptFirst), until startFirst
}

func (p *parallel) reset(r io.Reader) {
	p.stop()
	if p.first != nil {
		blockPool.Put(p.first.blk)
		p.first = nil
	}
	p.r = r
	p.win = p.win[:0]
	p.base, p.scanned, p.pos = 0, 0, 0
	p.longest = 0
	p.eof, p.rerr, p.seq = false, nil, false
	p.cands = p.cands[:0]
}

// stop waits for the workers and keeps their jobs for reuse.
func (p *parallel) stop() {
	for _, j := range p.jobs {
		<-j.done
		p.free = append(p.free, j)
	}
	p.jobs = p.jobs[:0]
}

// avail returns the input offset up to which the window holds data.
func (p *parallel) avail() int64 { return p.base + int64(len(p.win)) }

// fill reads input until the window holds data below off, or the input
// ends. It never moves bytes a worker may be reading: a full window is
// replaced by a new one holding the data from the current position on.
// The first window is one read (inBufSize) from the heap, where a small
// stream fits; later ones are laid out for huge pages and advised
// (hugeAlloc): a stream's input read into new 4 KiB pages took a page
// fault per 4 KiB (10-15 µs each on this project's virtual machines,
// about 200 for 800 KB of input in a first window of 1 MiB), and a few
// megabytes from the Go heap started a collection.
func (p *parallel) fill(off int64) {
	for p.avail() < off && !p.eof {
		if len(p.win) == cap(p.win) {
			keep := min(p.pos/8, p.scanned) - p.base
			live := p.win[keep:]
			nw, mem := p.spareWindow(len(live) + parReadSize)
			size := max(2*len(live), len(live)+parReadSize, 1<<20)
			switch {
			case nw != nil:
			case cap(p.win) == 0: // the first: a small stream's fits
				nw = make([]byte, 0, inBufSize)
			default:
				mem, nw = hugeAlloc(size)
				nw = nw[:0]
			}
			nw = append(nw, live...)
			p.spare = append(p.spare, window{p.win[:0], p.gen, p.winMem})
			p.win, p.winMem, p.base = nw, mem, p.base+keep
			p.gen++
		}
		n, err := p.r.Read(p.win[len(p.win):cap(p.win)])
		p.win = p.win[:len(p.win)+n]
		if err != nil {
			p.eof = true
			if err != io.EOF {
				p.rerr = err
			}
		}
	}
}

// window is a buffer the window used before, its generation and the
// mapping that owns it, if any.
type window struct {
	buf []byte
	gen int
	mem *mapping
}

// spareWindow returns an earlier window's buffer of at least size bytes
// that no job in flight reads, and its owner, or nil; it keeps two others
// at most (a job that reads a dropped one holds its owner).
func (p *parallel) spareWindow(size int) ([]byte, *mapping) {
	var found window
	for i := 0; i < len(p.spare); i++ {
		w := p.spare[i]
		if found.buf != nil || cap(w.buf) < size || slices.ContainsFunc(p.jobs, func(j *parJob) bool { return j.gen == w.gen }) {
			continue
		}
		found = w
		p.spare = slices.Delete(p.spare, i, i+1)
		i--
	}
	if len(p.spare) > 2 {
		p.spare = slices.Delete(p.spare, 0, len(p.spare)-2)
	}
	return found.buf, found.mem
}

// magicPairs has bit v set when the two bytes v (big-endian) are bytes k
// and k+1 (k 0 to 2) of the four after the first byte of a block magic
// starting at bit s (0 to 7) of that byte: those four lie wholly inside
// the magic for every s. 24 of the 65 536 pairs are.
var magicPairs = func() (set [1 << 16 / 64]uint64) {
	for s := range 8 {
		w := uint32(uint64(blockMagic) << (16 - s) >> 24)
		for k := range 3 {
			v := uint16(w >> (16 - 8*k))
			set[v/64] |= 1 << (v % 64)
		}
	}
	return set
}()

// scan searches the window from p.scanned up to what it holds for block
// magics, appending their bit offsets to p.cands in order. It looks at
// every third pair of bytes only: of the three pairs within the inner
// four bytes of a magic (magicPairs), one starts at each residue modulo
// 3, and a pair that is none of the 24 rules out every magic around it.
func (p *parallel) scan() {
	end := p.avail() - 8 // a magic is checked on the 8 bytes from its first
	if p.eof {
		end = p.avail() - 6
	}
	if end <= p.scanned {
		return
	}
	from := len(p.cands)
	buf := p.win[p.scanned-p.base:]
	n := int(end - p.scanned)
	// A magic whose first byte is at at < n has its inner pairs at at+1
	// to at+3, so q runs over one residue of 1 to n+2.
	for q := 1; q < n+3; q += 3 {
		v := uint16(buf[q])<<8 | uint16(buf[q+1])
		if magicPairs[v/64]>>(v%64)&1 == 0 {
			continue
		}
		for at := max(q-3, 0); at < min(q, n); at++ {
			var w [8]byte
			copy(w[:], buf[at:])
			x := binary.BigEndian.Uint64(w[:])
			for s := range 8 {
				if x>>(16-s)&(1<<48-1) == blockMagic {
					p.cands = append(p.cands, (p.scanned+int64(at))*8+int64(s))
				}
			}
		}
	}
	slices.Sort(p.cands[from:])
	p.scanned = end
}

// dispatch starts workers on the candidates after the last started job
// (at least at the current position) until threads are running (a held
// block counting as one) or the window has no further candidate within
// parMaxSpan of the last job.
func (p *parallel) dispatch(threads int) {
	if p.held != nil {
		threads--
	}
	for len(p.jobs) < threads {
		after := p.pos - 1
		if k := len(p.jobs); k > 0 {
			after = p.jobs[k-1].pos
		}
		p.scanned = max(p.scanned, after/8+1) // nothing to find before
		i := 0
		for i < len(p.cands) && p.cands[i] <= after {
			i++
		}
		p.cands = p.cands[i:]
		if len(p.cands) == 0 {
			if p.scanned >= after/8+parMaxSpan || p.eof && p.scanned >= p.avail()-6 {
				return
			}
			p.fill(p.scanned + parReadSize + 8)
			p.scan()
			continue
		}
		p.jobs = append(p.jobs, p.start(p.cands[0]))
	}
}

// start starts a worker on a block at bit offset pos and returns its job.
// It gives the worker the input from there up to a span that the longest
// block so far suggests.
func (p *parallel) start(pos int64) *parJob {
	span := int64(parFirstSpan)
	if p.longest > 0 {
		span = min(2*p.longest+parReadSize, parMaxSpan)
	}
	return p.startSpan(pos, span)
}

// startSpan starts a worker on a block at bit offset pos with the input
// up to span bytes from there and returns its job.
func (p *parallel) startSpan(pos, span int64) *parJob {
	j := p.newJob()
	if j.blk == nil {
		j.blk = newBlockBuf()
	}
	p.fill(pos/8 + span)
	j.pos = pos
	j.offset = pos / 8
	j.data = p.win[pos/8-p.base : min(p.avail(), pos/8+span)-p.base]
	j.dataMem = p.winMem
	j.short = span < parMaxSpan && int64(len(j.data)) == span
	j.gen = p.gen
	go j.run()
	return j
}

// newJob returns a free job, or a new one.
func (p *parallel) newJob() *parJob {
	if k := len(p.free); k > 0 {
		j := p.free[k-1]
		p.free = p.free[:k-1]
		return j
	}
	return &parJob{done: make(chan struct{}, 1)}
}

// peek returns the k (≤ 57) bits at bit offset pos, and whether the input
// holds them.
func (p *parallel) peek(pos int64, k uint) (uint64, bool) {
	p.fill(pos/8 + 8)
	if (pos+int64(k)+7)/8 > p.avail() {
		return 0, false
	}
	var w [8]byte
	copy(w[:], p.win[pos/8-p.base:])
	v := binary.BigEndian.Uint64(w[:]) << (pos % 8)
	return v >> (64 - k), true
}

// nextBlockParallel makes the block at the current position current for
// output. On anything it does not expect it hands the input over to the
// sequential decoder (handOver) and lets it read on.
func (z *Reader) nextBlockParallel() error {
	p := z.par
	z.releaseHeld()
	for {
		if !z.inStream {
			if z.streams == 0 && p.avail() == 0 {
				p.adoptFirst()
			}
			p.fill(p.pos/8 + 1)
			if z.streams > 0 && p.pos/8 == p.avail() && p.eof && p.rerr == nil {
				return io.EOF
			}
			v, ok := p.peek(p.pos, 32)
			level := int(v&0xff) - '0'
			if !ok || v>>8 != 'B'<<16|'Z'<<8|'h' || level < 1 || level > 9 {
				return z.handOver()
			}
			z.blockSize = level * 100000
			z.streams++
			z.inStream = true
			z.streamCRC = 0
			p.pos += 32
		}
		m, ok := p.peek(p.pos, 48)
		if !ok {
			return z.handOver()
		}
		if m == endMagic {
			crc, ok := p.peek(p.pos+48, 32)
			if !ok || uint32(crc) != z.streamCRC {
				return z.handOver()
			}
			p.pos = (p.pos + 80 + 7) &^ 7
			z.inStream = false
			continue
		}
		if m != blockMagic {
			return z.handOver()
		}
		if z.streams == 1 && z.blocks == 0 && p.pos == 32 && len(p.jobs) == 0 {
			if j := p.startFirst(); j != nil {
				p.jobs = append(p.jobs, j)
			}
		}
		// Drop the candidates before the position (magics inside data),
		// and start the one at it if the search has not.
		for len(p.jobs) > 0 && p.jobs[0].pos < p.pos {
			j := p.jobs[0]
			<-j.done
			p.jobs = p.jobs[1:]
			p.free = append(p.free, j)
		}
		if len(p.jobs) == 0 || p.jobs[0].pos != p.pos {
			p.jobs = slices.Insert(p.jobs, 0, p.start(p.pos))
		}
		p.dispatch(z.threads)
		j := p.jobs[0]
		<-j.done
		if j.short && j.err == errTruncated {
			// The block is longer than its worker's span: again with
			// the longest a block can be.
			p.free = append(p.free, j)
			j = p.startSpan(p.pos, parMaxSpan)
			p.jobs[0] = j
			<-j.done
		}
		p.jobs = p.jobs[1:]
		if j.err != nil || j.blk.n > z.blockSize {
			p.free = append(p.free, j)
			return z.handOver()
		}
		z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ j.blk.wantCRC
		p.longest = max(p.longest, (j.end-j.pos+7)/8)
		p.pos = j.end
		// The block is output from the buffers the worker left it in, and
		// the job waits for them (held) rather than taking a text buffer
		// of the output stage's: the blocks in flight and the one being
		// output are threads, in threads blocks' buffers, where a third
		// text buffer cost its first touch (a huge page) and a larger
		// share of the cache.
		if z.cur != nil {
			blockPool.Put(z.cur) // a sequential decoder's, before a Reset
		}
		z.cur, j.blk = j.blk, nil
		p.held = j
		p.dispatch(z.threads)
		z.startOutput()
		return nil
	}
}

// handOver stops the workers and continues with sequential decoding from
// the current position: z.br reads the window from there and then the
// rest of the input, counting offsets from the input's start.
func (z *Reader) handOver() error {
	p := z.par
	p.stop()
	p.seq = true
	var rest io.Reader = bytes.NewReader(p.win[p.pos/8-p.base:])
	switch {
	case p.rerr != nil:
		rest = io.MultiReader(rest, errReader{p.rerr})
	case !p.eof:
		rest = io.MultiReader(rest, p.r)
	}
	z.br.reset(rest)
	z.br.base = p.pos / 8
	if k := uint(p.pos % 8); k > 0 {
		if _, err := z.br.readBits(k); err != nil {
			return err
		}
	}
	for _, j := range p.free {
		if z.cur == nil && j.blk != nil {
			z.cur, j.blk = j.blk, nil // a worker's buffers, not new ones
		}
	}
	return z.nextBlock()
}

// errReader returns err from every Read.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// releaseHeld gives the buffers of the block whose output has ended back
// to its job, which is free again.
func (z *Reader) releaseHeld() {
	p := z.par
	if j := p.held; j != nil {
		j.blk, z.cur = z.cur, nil
		p.held = nil
		p.free = append(p.free, j)
	}
}
