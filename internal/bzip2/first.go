package bzip2

import (
	"bytes"
	"io"
	"sync/atomic"
)

// The opener looks into a compressed stream (1 KiB, for a tar inside)
// with one Reader, closes it, and then reads the stream with another: the
// first block's Huffman decoding and links, about a tenth of the work on a
// 4 MiB stream, would be done twice. So a sequential Reader records the
// input up to the end of its stream's first block, and Close keeps that
// block, as far as it was decoded and walked, with the input it came from
// (lastFirst). A Reader whose input starts with those very bytes (it
// reads and compares them) takes the block instead of decoding it again;
// any other goes on as if nothing had happened. The block CRC is checked
// on output as always.

// firstBlock is the first block of a stream as a closed Reader left it.
type firstBlock struct {
	blk       *blockBuf // decoded and linked, its text walked to blk.walked
	input     []byte    // the input from its start through the block's last bit
	inputMem  *mapping  // owns input where it lies outside the Go heap
	endBit    int64     // bit offset of the input after the block
	blockSize int       // the stream's block size
}

// lastFirst is the first block the last closed Reader left, until a
// Reader takes it (one at most: the opener looks into one stream at a
// time, and the Reader that reads it next takes it).
var lastFirst atomic.Pointer[firstBlock]

// keep makes fb lastFirst; the block it replaces goes to blockPool.
func keep(fb *firstBlock) {
	if old := lastFirst.Swap(fb); old != nil {
		blockPool.Put(old.blk)
	}
}

// recSize is the capacity a record grows to at once when it outgrows one
// read (inBufSize): a level 9 block of mixed data takes about 200 KB, one
// of random data 905 KB. That capacity is mapped on a huge page outside
// the Go heap (hugeAlloc, 2 MiB): a record in new 4 KiB pages of the heap
// took a page fault per 4 KiB as it was written, and a parallel Reader
// that takes the block goes on reading its input into the rest
// (adoptFirst), about 200 faults for 800 KB of input; on this project's
// virtual machines a fault costs 10-15 µs. The record is not copied again
// as it grows. A small stream's record stays small, on the heap.
const recSize = 1 << 20

// record is the input a sequential Reader records, and the mapping that
// owns it where it lies outside the Go heap.
type record struct {
	buf []byte
	mem *mapping
}

// record makes a fresh sequential Reader record its input until the end
// of the first block.
func (z *Reader) record() {
	z.firstEnd = 0
	z.rec.buf = z.rec.buf[:0]
	z.br.rec = &z.rec
}

// add appends b, just read, to the record.
func (r *record) add(b []byte) {
	n := len(r.buf) + len(b)
	if n > cap(r.buf) && n > inBufSize && cap(r.buf) < recSize {
		mem, nb := hugeAlloc(max(recSize, n))
		r.buf, r.mem = append(nb[:0], r.buf...), mem
	} else if n > cap(r.buf) {
		r.mem = nil // append moves the record to the heap
	}
	r.buf = append(r.buf, b...)
}

// firstRead notes that the first block has been read: where it ended in
// the input. The recording stops.
func (z *Reader) firstRead() {
	if z.br.rec == nil {
		return
	}
	z.br.rec = nil
	z.firstEnd = (z.br.base+int64(z.br.pos))*8 - int64(z.br.n)
}

// keepFirst makes z.cur lastFirst if it holds the first block and
// nothing after it was read.
func (z *Reader) keepFirst() bool {
	if z.par != nil || z.blocks != 1 || z.streams != 1 || z.firstEnd == 0 || z.cur == nil {
		return false
	}
	end := int((z.firstEnd + 7) / 8)
	if end > len(z.rec.buf) {
		return false
	}
	keep(&firstBlock{blk: z.cur, input: z.rec.buf[:end], inputMem: z.rec.mem, endBit: z.firstEnd, blockSize: z.blockSize})
	z.rec, z.cur, z.firstEnd = record{}, nil, 0
	return true
}

// useFirst takes a block a closed Reader left, if z's input starts with
// the input it came from, and makes it current with the stream's state
// after it. Otherwise z reads its input from the start, as before.
func (z *Reader) useFirst() bool {
	fb := lastFirst.Swap(nil)
	if fb == nil {
		return false
	}
	if !z.br.skipMatching(fb.input, fb.endBit) {
		blockPool.Put(fb.blk)
		return false
	}
	if z.cur != nil {
		blockPool.Put(z.cur)
	}
	z.cur = fb.blk
	z.br.rec = nil
	z.rec, z.firstEnd = record{fb.input, fb.inputMem}, fb.endBit
	z.blockSize = fb.blockSize
	z.streams, z.inStream = 1, true
	z.streamCRC = fb.blk.wantCRC
	return true
}

// skipMatching reads the input from its start, which br has not read
// from yet, and compares it with want. If the input starts with want, br
// goes on reading at bit end of it (end ≤ 8·len(want)) and it returns
// true; otherwise br reads the input from its start again (the bytes read
// are given back), and it returns false.
func (br *bitReader) skipMatching(want []byte, end int64) bool {
	r := br.r
	got, empty := 0, 0
	var err error
	for got < len(want) && err == nil {
		var k int
		k, err = r.Read(br.buf[:min(len(br.buf), len(want)-got)])
		if !bytes.Equal(br.buf[:k], want[got:got+k]) {
			br.giveBack(append(want[:got:got], br.buf[:k]...), r, err)
			return false
		}
		got += k
		if k == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress
			}
		}
	}
	if got < len(want) {
		br.giveBack(want[:got], r, err)
		return false
	}
	br.reset(io.MultiReader(bytes.NewReader(want[end/8:]), r))
	br.base = end / 8
	// The byte holding bit end is in want: the bits before it are there.
	br.refill()
	k := uint(end % 8)
	br.bits <<= k
	br.n -= k
	return true
}

// giveBack makes br read the input from its start again: read, the bytes
// that were read from r, then what r has left, or its error err.
func (br *bitReader) giveBack(read []byte, r io.Reader, err error) {
	rest := []io.Reader{bytes.NewReader(read)}
	switch err {
	case nil:
		rest = append(rest, r)
	case io.EOF:
	default:
		rest = append(rest, errReader{err})
	}
	br.reset(io.MultiReader(rest...))
}

// adoptFirst takes the block a closed Reader left, before anything of
// the input is read, if the input starts with the input it came from: it
// reads that much and compares it, a chunk at a time, in the record's
// spare capacity, and the record becomes the window, which goes on
// filling after it (the recorded bytes are not read into new memory
// again). Otherwise the bytes read so far start a new window, and the
// block goes to blockPool.
func (p *parallel) adoptFirst() {
	fb := lastFirst.Swap(nil)
	if fb == nil {
		return
	}
	n := len(fb.input)
	if cap(fb.input)-n < parReadSize {
		p.first = fb // startFirst compares it with the window
		return
	}
	if cap(p.win) > 0 {
		p.spare = append(p.spare, window{p.win[:0], p.gen, p.winMem})
		p.gen++
	}
	chunk := fb.input[n : n+parReadSize]
	got, empty := 0, 0
	for got < n {
		k, err := p.r.Read(chunk[:min(len(chunk), n-got)])
		match := bytes.Equal(chunk[:k], fb.input[got:got+k])
		if match {
			got += k
		}
		if k == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress
			}
		}
		if match && err == nil {
			continue
		}
		if err != nil {
			p.eof = true
			if err != io.EOF {
				p.rerr = err
			}
		}
		if match && got == n && p.rerr == nil {
			break
		}
		w := make([]byte, 0, max(1<<20, got+k+parReadSize))
		p.win, p.winMem = append(w, fb.input[:got]...), nil
		if !match {
			p.win = append(p.win, chunk[:k]...)
		}
		blockPool.Put(fb.blk)
		return
	}
	p.win, p.winMem = fb.input, fb.inputMem
	p.first = fb
}

// startFirst starts a job that finishes the walk of the block adoptFirst
// took, if it took one (the window then holds its input from offset 0),
// and returns it, or nil.
func (p *parallel) startFirst() *parJob {
	fb := p.first
	if fb == nil {
		return nil
	}
	p.first = nil
	n := int64(len(fb.input))
	p.fill(n)
	if p.base != 0 || p.avail() < n || !bytes.Equal(p.win[:n], fb.input) {
		blockPool.Put(fb.blk)
		return nil
	}
	j := p.newJob()
	if j.blk != nil {
		blockPool.Put(j.blk)
	}
	j.blk, j.first = fb.blk, true
	j.pos, j.end = 32, fb.endBit
	j.data, j.dataMem, j.short, j.gen = nil, nil, false, -1
	go j.run()
	return j
}
