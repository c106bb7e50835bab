package bzip2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

const (
	blockMagic = 0x314159265359
	endMagic   = 0x177245385090
	outBufSize = 256 << 10 // WriteTo's buffer
	// lazyHead is how much of the text of the first block after
	// NewReader or Reset is written before it is read (blockBuf.unBWTHead):
	// the opener reads 1 KiB of a stream to find a tar inside, and the
	// output of the rest costs a walk through the block.
	lazyHead = 16 << 10
)

// damage is a kind of corrupt input found while decoding; the Reader
// reports it as a CorruptInputError with the input offset.
type damage string

func (d damage) Error() string { return "bzip2: " + string(d) + ": " + archive.ErrFormat.Error() }
func (d damage) Unwrap() error { return archive.ErrFormat }

// errClosed is returned by Read after Close.
var errClosed = errors.New("bzip2: read from a closed Reader")

// blockPool holds the block buffers of closed Readers.
var blockPool sync.Pool

// newBlockBuf returns a closed Reader's block buffer, or a new one.
func newBlockBuf() *blockBuf {
	if b, ok := blockPool.Get().(*blockBuf); ok {
		return b
	}
	return new(blockBuf)
}

// errTruncated is input that ends inside a stream.
const errTruncated damage = "truncated input"

func formatError(what string) error { return damage(what) }

// CorruptInputError reports corrupt or truncated bzip2 data at an offset
// of the compressed input, counted from the first byte the Reader read
// since it was made or Reset: where decoding stopped, or the end of the
// input for a truncation. It wraps archive.ErrFormat, and also
// io.ErrUnexpectedEOF for a truncation.
type CorruptInputError struct {
	Offset int64  // packed offset at which decoding failed
	Reason string // what was wrong, e.g. "invalid Huffman code"
}

func (e *CorruptInputError) Error() string {
	return fmt.Sprintf("bzip2: corrupt data at packed offset %d (%s)", e.Offset, e.Reason)
}

// Unwrap returns archive.ErrFormat, and io.ErrUnexpectedEOF for a
// truncation.
func (e *CorruptInputError) Unwrap() []error {
	if e.Reason == string(errTruncated) {
		return []error{archive.ErrFormat, io.ErrUnexpectedEOF}
	}
	return []error{archive.ErrFormat}
}

// Reader decompresses one or more concatenated bzip2 streams. Its buffers
// are allocated once and reused for every block, stream and Reset.
type Reader struct {
	br        bitReader
	blockSize int // of the current stream
	selectors [maxSelectors]uint8
	tables    [maxGroups]huffTable
	out       []byte // WriteTo's buffer

	streams   int    // streams started so far
	blocks    int    // blocks decoded since NewReader or Reset
	inStream  bool   // between a stream header and its end marker
	streamCRC uint32 // combined CRC of the blocks so far

	// The block being output, and in parallel mode (threads > 1) the
	// workers' state (parallel.go).
	cur     *blockBuf
	threads int
	par     *parallel

	// The input up to the end of the first block, as a sequential
	// Reader records it, and the bit offset of that end (first.go).
	rec      record
	firstEnd int64

	// Output state of the current block.
	inBlock    bool
	wantCRC    uint32
	crc        uint32 // running CRC state of the block's output
	crcBuf     [crcChunk]byte
	rpos, rend int // unread part of pre
	last       int // previous output byte (-1: none) for the RLE1 stage
	run        int // equal bytes in a row ending with last (0..4)
	repeat     int // copies of last still to output

	err error
}

// NewReader returns a Reader decompressing the bzip2 streams of r until
// r's end. It may read from r beyond the end of the last stream.
func NewReader(r io.Reader) *Reader {
	return NewReaderThreads(r, 1)
}

// NewReaderThreads is NewReader with up to threads blocks decoded at once
// on goroutines of their own (parallel.go); the output, its checksums
// and the errors, with their offsets, are the same for any threads.
// Memory grows by about 6 MB per thread at the largest block size, and a
// window of the input of a few megabytes. threads < 2 means one
// goroutine.
func NewReaderThreads(r io.Reader, threads int) *Reader {
	z := &Reader{threads: max(threads, 1)}
	if z.threads > 1 {
		z.par = new(parallel)
	}
	z.Reset(r)
	return z
}

// Close stops the Reader's workers and gives its block buffers (about 6
// MB at level 9 for each thread) to the next Reader made in this process,
// so that a stream whose start was only looked into (the opener's check
// for a tar inside) costs the Reader that then reads it no memory. A
// sequential Reader that read no further than its first block leaves that
// block decoded, and the next Reader whose input starts with the same
// bytes takes it (first.go). The Reader can be Reset and used again; it
// then allocates anew. Close always returns nil.
func (z *Reader) Close() error {
	if p := z.par; p != nil {
		p.stop()
		for _, j := range p.free {
			if j.blk != nil {
				blockPool.Put(j.blk)
				j.blk = nil
			}
		}
	}
	if z.cur != nil && !z.keepFirst() {
		blockPool.Put(z.cur)
		z.cur = nil
	}
	z.inBlock = false
	z.err = errClosed
	return nil
}

// Reset discards the Reader's state and makes it decompress r, keeping its
// buffers. It always returns nil; header errors surface from Read.
func (z *Reader) Reset(r io.Reader) error {
	if z.par != nil {
		z.releaseHeld()
		z.par.reset(r)
	}
	z.br.reset(r)
	z.br.rec = nil
	if z.par == nil {
		z.record()
	}
	z.streams, z.blocks = 0, 0
	z.inStream = false
	z.inBlock = false
	z.rpos, z.rend, z.repeat = 0, 0, 0
	z.err = nil
	return nil
}

// Read decompresses into p. It returns io.EOF after the last stream.
func (z *Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if z.inBlock {
			k := z.emit(p[n:])
			z.crc = crcUpdate(z.crc, p[n:n+k], &z.crcBuf)
			n += k
			if z.rpos == z.rend && z.repeat == 0 {
				if z.rend < z.cur.n {
					// The first block's head is read: the rest.
					z.cur.finish()
					z.rend = z.cur.n
					continue
				}
				z.inBlock = false
				if got := ^z.crc; got != z.wantCRC {
					z.err = fmt.Errorf("bzip2: block CRC %08x, stored %08x: %w", got, z.wantCRC, archive.ErrChecksum)
				}
			}
			continue
		}
		if z.err != nil {
			break
		}
		z.err = z.nextBlock()
	}
	if n > 0 {
		return n, nil
	}
	return 0, z.err
}

// WriteTo decompresses everything left into w.
func (z *Reader) WriteTo(w io.Writer) (int64, error) {
	if z.out == nil {
		z.out = make([]byte, outBufSize)
	}
	var total int64
	for {
		n, err := z.Read(z.out)
		if n > 0 {
			m, werr := w.Write(z.out[:n])
			total += int64(m)
			if werr == nil && m < n {
				werr = io.ErrShortWrite
			}
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// nextBlock makes the next block current for output. It returns io.EOF at
// the end of the input after a complete stream.
func (z *Reader) nextBlock() error {
	if z.par != nil && !z.par.seq {
		return z.nextBlockParallel()
	}
	if z.par == nil && z.streams == 0 && z.useFirst() {
		z.startOutput()
		return nil
	}
	if z.cur == nil {
		z.cur = newBlockBuf()
	}
	z.firstEnd = 0 // z.cur is no longer the first block
	if err := z.readNext(z.cur); err != nil {
		return err
	}
	if z.blocks == 0 {
		z.firstRead()
		z.cur.unBWTHead(lazyHead)
	} else {
		z.cur.unBWT()
	}
	z.startOutput()
	return nil
}

// startOutput starts the output of z.cur.
func (z *Reader) startOutput() {
	z.rpos, z.rend = 0, z.cur.walked
	z.blocks++
	z.last, z.run, z.repeat = -1, 0, 0
	z.wantCRC = z.cur.wantCRC
	z.crc = ^uint32(0)
	z.inBlock = true
}

// readNext reads up to and through the next block's symbols into blk,
// passing stream ends and headers. It returns io.EOF at the end of the
// input after a complete stream.
func (z *Reader) readNext(blk *blockBuf) error {
	err := z.readNextBlock(blk)
	if d, ok := err.(damage); ok {
		off := z.br.offset()
		if d == errTruncated {
			off = z.br.inputRead()
		}
		err = &CorruptInputError{Offset: off, Reason: string(d)}
	}
	return err
}

func (z *Reader) readNextBlock(blk *blockBuf) error {
	br := &z.br
	for {
		if !z.inStream {
			if err := z.readStreamHeader(); err != nil {
				return err
			}
		}
		hi, err := br.readBits(24)
		if err != nil {
			return err
		}
		lo, err := br.readBits(24)
		if err != nil {
			return err
		}
		stored, err := br.readBits(32)
		if err != nil {
			return err
		}
		switch uint64(hi)<<24 | uint64(lo) {
		case blockMagic:
			z.streamCRC = (z.streamCRC<<1 | z.streamCRC>>31) ^ stored
			if err := z.readBlock(blk); err != nil {
				return err
			}
			blk.wantCRC = stored
			return nil
		case endMagic:
			if stored != z.streamCRC {
				return fmt.Errorf("bzip2: stream CRC %08x, stored %08x: %w", z.streamCRC, stored, archive.ErrChecksum)
			}
			br.alignByte()
			z.inStream = false
		default:
			return formatError("bad block magic")
		}
	}
}

// readStreamHeader reads "BZh" and the level of the next stream, or
// returns io.EOF when a stream ended exactly at the end of the input.
func (z *Reader) readStreamHeader() error {
	br := &z.br
	if z.streams > 0 && br.atEOF() {
		if br.err != nil {
			return br.err
		}
		return io.EOF
	}
	v, err := br.readBits(32)
	if err != nil {
		return err
	}
	if v>>8 != 'B'<<16|'Z'<<8|'h' {
		if z.streams == 0 {
			return formatError("not a bzip2 stream")
		}
		return formatError("data after the end of the stream is not a bzip2 stream")
	}
	level := int(v&0xff) - '0'
	if level < 1 || level > 9 {
		return formatError("invalid block size")
	}
	z.blockSize = level * 100000
	z.streams++
	z.inStream = true
	z.streamCRC = 0
	return nil
}

// emit writes the next output bytes of the block into out, undoing the
// initial run-length stage: after four equal bytes comes a count (0..255)
// of further copies.
func (z *Reader) emit(out []byte) int {
	o := 0
	if z.repeat > 0 {
		k := min(z.repeat, len(out))
		b := byte(z.last)
		for i := range out[:k] {
			out[i] = b
		}
		z.repeat -= k
		o = k
	}
	src := z.cur.pre[:z.rend]
	i, last, run := z.rpos, z.last, z.run
	if run == 4 && i < len(src) && o < len(out) {
		// The previous call stopped between a run of four and its count.
		k := int(src[i])
		i++
		run = 0
		m := min(k, len(out)-o)
		fill := out[o : o+m]
		for j := range fill {
			fill[j] = byte(last)
		}
		o += m
		z.repeat = k - m
	}
	// Fast loop: room for a whole repeat, so no state is left pending,
	// written in words of 8 bytes, the last running up to 7 bytes past
	// it into out's room (scratch until later bytes are written there).
	for i < len(src) && o+264 <= len(out) {
		b := int(src[i])
		i++
		out[o] = byte(b)
		o++
		if b != last {
			last, run = b, 1
			continue
		}
		// After four equal bytes the count follows; at the end of src
		// (a head written by unBWTHead) run stays 4 for the next call.
		if run++; run == 4 && i < len(src) {
			run = 0
			k := int(src[i])
			i++
			w := uint64(b) * 0x0101010101010101
			fill := out[o : o+256]
			for j := 0; j < k; j += 8 {
				binary.LittleEndian.PutUint64(fill[j:], w)
			}
			o += k
		}
	}
	for i < len(src) && o < len(out) {
		b := int(src[i])
		i++
		if run == 4 {
			run = 0
			k := min(b, len(out)-o)
			fill := out[o : o+k]
			for j := range fill {
				fill[j] = byte(last)
			}
			o += k
			z.repeat = b - k
			continue
		}
		if b == last {
			run++
		} else {
			last, run = b, 1
		}
		out[o] = byte(b)
		o++
	}
	z.rpos, z.last, z.run = i, last, run
	return o
}
