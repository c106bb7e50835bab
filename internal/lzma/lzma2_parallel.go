package lzma

import (
	"bytes"
	"errors"
	"io"
	"slices"
)

// Segment-parallel LZMA2 decoding.
//
// A chunk that resets the dictionary (control byte 1, or an LZMA chunk
// with reset bits 3) starts a segment that no later byte of the stream
// refers back past: it can be decoded by a fresh decoder on its own. Every
// chunk header gives its packed size, so the segments are found without
// decoding. 7-Zip's multithreaded encoder resets the dictionary at each of
// its blocks (4 dictionaries, at least 1 MiB), XZ Utils at each block.
//
// With SetThreads(n > 1) Reader2 reads whole segments ahead (at most n+1,
// each at most maxSegment unpacked bytes), has them decoded on up to n
// goroutines into buffers of their unpacked size, and returns the buffers
// in order, keeping each buffer for a later segment once its bytes have
// been returned (a fresh buffer's pages cost a first-touch fault each);
// the (n+1)-th segment is read ahead only while the n queued are small
// (spareHeld). A segment of uncompressed chunks only (random data) is
// copied by the walk itself into its buffer, the one that the segment
// before it used when that was stored too: nothing is read ahead of it
// while no LZMA segment is queued, so that such a stream takes one buffer
// and no goroutine. Anything the walk does not expect (a stream of one segment, a
// segment above maxSegment, the end byte, a bad control byte, truncated
// input) and any error of a segment's decoder hand the rest of the stream,
// from the start of that segment, to the sequential decoder: its output
// and its error, offset included, are those of a sequential run.

// maxSegment is the largest segment (unpacked bytes) decoded in parallel,
// a variable so that tests can lower it. A segment is decoded in place
// (the decoder's window is its buffer), so the memory held is that of the
// segments read ahead, packed and unpacked: at most n+1 of them with n
// threads, and no more than maxHeld bytes once one is held.
var maxSegment = 32 << 20

// maxHeld bounds the bytes of the segments read ahead (see maxSegment).
const maxHeld = 192 << 20

// firstWalk bounds the unpacked bytes of the first segment that the walk
// reads ahead before it knows whether a second one follows: a stream of
// one segment (7-Zip's single-threaded output, or blocks of 4 dictionaries
// larger than the stream) is then decoded sequentially having copied at
// most that much of its input, where copying all of it cost a fifth of the
// decoding's CPU time in page faults and moves (numbers, 32 MiB, -mx1).
// A first segment above it is decoded sequentially, and the walk resumes
// at the next dictionary reset. It covers the 1 MiB blocks of 7-Zip's
// -mx1 -mmt2. A variable so that tests can lower it.
var firstWalk = 1 << 20

// spareHeld bounds the bytes of the n segments queued (n threads) below
// which one more is read ahead: it only keeps a goroutine busy while the
// reader returns the first, and for large segments its buffer's first-touch
// faults cost more CPU than that gains. A variable so that tests can lower
// it.
var spareHeld = 16 << 20

// segment is one run of chunks from a dictionary reset to the next.
type segment struct {
	start  int64  // input offset of its first chunk header
	left   int64  // the stream's unpacked bytes still due at its start, -1 if unknown
	packed []byte // its chunks, headers included
	size   int    // unpacked bytes
	out    []byte // the decoded bytes, decoded in place (DecodeInto)
	given  int    // the capacity of out when handed to the decoder
	off    int    // bytes of out already returned
	err    error
	done   chan struct{}
	stored []int // the lengths of its chunks when all are uncompressed: out holds them, packed nothing
}

// packedBytes returns s's chunks as the stream holds them, rebuilt from
// out for a stored segment.
func (s *segment) packedBytes() []byte {
	if s.stored == nil {
		return s.packed
	}
	return appendStored(nil, s.out, s.stored)
}

// appendStored appends to buf the uncompressed chunks of lengths n whose
// bytes follow each other in data, with their headers: the first resets
// the dictionary (control byte 1), the others do not (2).
func appendStored(buf, data []byte, n []int) []byte {
	c := byte(1)
	for _, k := range n {
		buf = append(buf, c, byte((k-1)>>8), byte(k-1))
		buf = append(buf, data[:k]...)
		data = data[k:]
		c = 2
	}
	return buf
}

// parallel2 is Reader2's parallel state.
type parallel2 struct {
	threads int
	on      bool       // segments are decoded in parallel
	started bool       // the walk has begun
	queue   []*segment // in stream order; queue[0] is being returned
	ended   bool       // the walk reached the declared size: nothing follows the queue
	resume  bool       // the sequential decoder hands back at the next dictionary reset
	tail    io.Reader  // when set, the sequential decoder takes over from tailAt once the queue is empty
	tailAt  int64
	tailLen int64 // the stream's unpacked bytes still due at tailAt, -1 if unknown
	left    int64 // unpacked bytes still due after the walked segments, -1 if unknown

	decoders chan *Reader2 // free decoders (nil until first needed); its capacity bounds the goroutines decoding
	freeOut  [][]byte
	freePack [][]byte
	segments int // segments walked (handed to the goroutines, or stored) since the last restart
	fresh    int // output buffers allocated by the goroutines for the segments returned, since SetThreads

	storedSize int // unpacked bytes of the last segment of uncompressed chunks
}

// SetThreads lets z decode the segments between dictionary resets on up to
// n goroutines; n <= 1 keeps the sequential decoder. Call it after
// NewReader2 or Reset, before the first Read; Reset keeps the setting.
func (z *Reader2) SetThreads(n int) {
	if n <= 1 {
		if z.par != nil {
			z.par.drain()
			z.par.on = false
			z.par.resume = false
		}
		return
	}
	if z.par == nil || z.par.threads != n {
		if z.par != nil {
			z.par.drain()
		}
		z.par = &parallel2{threads: n, decoders: make(chan *Reader2, n)}
		for range n {
			z.par.decoders <- nil
		}
	}
	z.par.restart(z.size)
}

// restart prepares p for a new stream of size bytes (-1 unknown).
func (p *parallel2) restart(size int64) {
	p.drain()
	p.on = true
	p.started = false
	p.ended = false
	p.resume = false
	p.tail = nil
	p.left = size
	p.segments = 0
}

// drain waits for the segments still being decoded and forgets the
// queue, keeping their output buffers (their packed bytes may have been
// handed to the tail).
func (p *parallel2) drain() {
	for _, s := range p.queue {
		<-s.done
		if cap(s.out) > 0 {
			p.freeOut = append(p.freeOut, s.out[:0])
		}
	}
	clear(p.queue)
	p.queue = p.queue[:0]
}

// parRead serves Read while segments are decoded in parallel. ok is false
// once the sequential decoder has taken over.
func (z *Reader2) parRead(b []byte) (n int, ok bool, err error) {
	s, ok, err := z.parHead()
	if !ok || s == nil {
		return 0, ok, err
	}
	n = copy(b, s.out[s.off:s.size])
	s.off += n
	return n, true, nil
}

// parWriteTo serves WriteTo while segments are decoded in parallel.
func (z *Reader2) parWriteTo(w io.Writer) (total int64, ok bool, err error) {
	for {
		s, ok, err := z.parHead()
		if !ok || s == nil {
			if err == io.EOF {
				err = nil
			}
			return total, ok, err
		}
		n, err := w.Write(s.out[s.off:s.size])
		s.off += n
		total += int64(n)
		if err != nil {
			return total, true, err
		}
	}
}

// parHead returns the segment whose bytes come next, with bytes left,
// after waiting for it to be decoded. A nil segment comes with the error
// to return (io.EOF at the end); ok false means the sequential decoder has
// taken over.
func (z *Reader2) parHead() (*segment, bool, error) {
	p := z.par
	if !p.started {
		p.started = true
		if !z.walk(true) {
			z.takeOver()
			return nil, false, nil
		}
	}
	for {
		if len(p.queue) > 0 && p.queue[0].off == p.queue[0].size {
			z.release(p.queue[0])
		}
		z.walkAhead()
		if len(p.queue) == 0 {
			if p.tail != nil {
				z.takeOver()
				return nil, false, nil
			}
			return nil, true, io.EOF
		}
		s := p.queue[0]
		<-s.done
		if s.err != nil {
			// Decode this segment and all that follows sequentially:
			// same output, same error.
			z.failOver()
			return nil, false, nil
		}
		if s.off < s.size {
			return s, true, nil
		}
	}
}

// release returns the head segment's buffers and removes it.
func (z *Reader2) release(s *segment) {
	p := z.par
	if cap(s.out) != s.given {
		p.fresh++
	}
	p.freeOut = append(p.freeOut, s.out[:0])
	p.freePack = append(p.freePack, s.packed[:0])
	copy(p.queue, p.queue[1:])
	p.queue[len(p.queue)-1] = nil
	p.queue = p.queue[:len(p.queue)-1]
}

// keepOut keeps buf, if it has storage, for a later segment's output.
func (p *parallel2) keepOut(buf []byte) {
	if cap(buf) > 0 {
		p.freeOut = append(p.freeOut, buf[:0])
	}
}

// held returns the bytes of the segments queued.
func (p *parallel2) held() int {
	n := 0
	for _, s := range p.queue {
		n += s.size + cap(s.packed) // s.out belongs to its goroutine until done
	}
	return n
}

// walkAhead reads segments while fewer than threads are queued, or
// threads holding less than spareHeld.
func (z *Reader2) walkAhead() {
	p := z.par
	for !p.ended && p.tail == nil && p.room() {
		if !z.walk(false) {
			return
		}
	}
}

// room reports whether one more segment may be read ahead: not while
// every segment queued is stored (copied by the walk), whose read-ahead
// would keep no goroutine busy and only take another buffer, its pages
// faulted in, away from the cache.
func (p *parallel2) room() bool {
	n, held := len(p.queue), p.held()
	if n > 0 && !slices.ContainsFunc(p.queue, func(s *segment) bool { return s.stored == nil }) {
		return false
	}
	return held < maxHeld-2*maxSegment && (n < p.threads || n == p.threads && held < spareHeld)
}

// walk reads the next segment from z.in and starts its decoding. It
// gives up (false, with p.tail set to the input from the segment's start)
// on anything unexpected, and at the first segment of the stream unless a
// second segment follows it.
func (z *Reader2) walk(first bool) bool {
	p := z.par
	in := &z.in
	start := in.offset(in.rp)
	var buf []byte
	if k := len(p.freePack); k > 0 {
		buf, p.freePack = p.freePack[k-1], p.freePack[:k-1]
	}
	size := 0
	final := false
	// While every chunk is uncompressed (random data), their bytes are
	// copied straight into the segment's output, the decoding is that
	// copy, and no goroutine is needed; at the first LZMA chunk the
	// chunks are rebuilt into buf.
	var out []byte
	var stored []int
	if k := len(p.freeOut); k > 0 {
		out, p.freeOut = p.freeOut[k-1], p.freeOut[:k-1]
	}
	given := cap(out)
	unstore := func() {
		buf = appendStored(buf, out, stored)
		stored = nil
	}
	giveUp := func() bool {
		if stored != nil {
			unstore()
		}
		p.keepOut(out)
		p.tail = &concatReader{parts: []io.Reader{bytes.NewReader(buf), bytes.NewReader(bytes.Clone(in.buf[in.rp:in.wp])), &restReader{in.r, in.eof, in.err}}}
		p.tailAt, p.tailLen = start, p.left
		return false
	}
	for !final {
		if in.ensure(1) < 1 {
			return giveUp()
		}
		c := in.buf[in.rp]
		reset := c == 1 || c >= 0xE0
		if size == 0 && !reset {
			return giveUp()
		}
		if size > 0 && reset {
			break
		}
		hdr := ChunkHeaderLen(c)
		if hdr == 0 {
			// The end byte or a bad control byte.
			return giveUp()
		}
		if in.ensure(hdr) < hdr {
			return giveUp()
		}
		unpacked, packed := ChunkSizes(in.buf[in.rp : in.rp+hdr])
		if size+unpacked > maxSegment {
			return giveUp()
		}
		if first && size+unpacked > firstWalk {
			p.resume = true
			return giveUp()
		}
		if p.left >= 0 && int64(size+unpacked) >= p.left {
			// This chunk reaches the declared size; nothing after it is read.
			unpacked = int(p.left) - size
			final = true
		}
		if in.ensure(hdr+packed) < hdr+packed {
			return giveUp()
		}
		if size == 0 && c == 1 {
			stored = []int{}
			want := p.storedSize
			if want == 0 {
				want = firstWalk
			}
			if p.left >= 0 {
				want = int(min(int64(want), p.left))
			}
			if cap(out) < want {
				// A fresh buffer of the last stored segment's size
				// (7-Zip's blocks are all alike; the first at most
				// firstWalk), not grown by copies: each page
				// touched costs a fault.
				p.keepOut(out)
				out = make([]byte, 0, want)
			}
		}
		if stored != nil && (c >= 0x80 || unpacked < packed) {
			unstore()
		}
		if stored != nil {
			out = append(out, in.buf[in.rp+hdr:in.rp+hdr+packed]...)
			stored = append(stored, packed)
		} else {
			buf = append(buf, in.buf[in.rp:in.rp+hdr+packed]...)
		}
		in.rp += hdr + packed
		size += unpacked
	}
	if first && final {
		return giveUp()
	}
	s := &segment{start: start, left: p.left, packed: buf, size: size, out: out, given: given, done: make(chan struct{})}
	if p.left >= 0 {
		p.left -= int64(size)
	}
	p.ended = final
	p.queue = append(p.queue, s)
	p.segments++
	if stored != nil {
		s.stored = stored
		p.storedSize = size
		close(s.done)
		return true
	}
	go p.decode(s, z.props, z.maxDict)
	return true
}

// resumeParallel switches z from the sequential decoder back to the walk,
// at the chunk that resets the dictionary where decode stopped with
// errResume.
func (z *Reader2) resumeParallel() {
	p := z.par
	p.resume = false
	p.on = true
	p.started = true
	p.ended = false
	p.left = -1
	if z.size >= 0 {
		p.left = z.remaining
	}
	z.err = nil
}

// errResume is decode's signal that the sequential decoder reached a
// dictionary reset after a first segment above firstWalk: the walk takes
// over there. Read and WriteTo never return it.
var errResume = errors.New("lzma: parallel decoding resumes")

// decode decodes s on a free decoder.
func (p *parallel2) decode(s *segment, props byte, maxDict int64) {
	defer close(s.done)
	d := <-p.decoders
	defer func() { p.decoders <- d }()
	if d == nil {
		d = &Reader2{maxDict: maxDict}
	}
	if s.err = d.Reset(bytes.NewReader(s.packed), props, int64(s.size)); s.err != nil {
		return
	}
	s.out, s.err = d.DecodeInto(s.out)
}

// DecodeInto decodes the rest of the stream z was Reset to, whose size
// must have been given, into buf's storage, as z's window for the time of
// the call (grown when buf's capacity is too small), and returns the
// decoded bytes: output decoded in place, never copied.
func (z *Reader2) DecodeInto(buf []byte) ([]byte, error) {
	if z.size < 0 || z.size > int64(maxInt) || z.par != nil && z.par.on {
		return nil, errDecodeInto
	}
	size := int(z.size)
	w := windowSize(uint32(min(z.size, 1<<32-1)), z.size)
	if n := int(w) + windowSlack; cap(buf) < n {
		if n >= hugeWindowMin {
			buf = hugeBytes(n) // fewer page faults and TLB misses
		} else {
			// Huge pages would double the memory of 7-Zip's 1 MiB
			// blocks (a 2 MiB page each, from 4 MiB allocations).
			buf = make([]byte, n)
		}
	}
	old := z.d.dict
	z.d.dict = buf[:cap(buf)]
	defer func() { z.d.dict = old }()
	if err := z.d.allocWindow(w, z.maxDict, true); err != nil {
		return nil, err
	}
	for {
		err := z.fill()
		z.flushed = z.d.pos
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if z.d.pos != size {
		return nil, errDecodeInto // cannot happen: the stream was Reset to size bytes
	}
	return z.d.dict[:size], nil
}

// errDecodeInto is DecodeInto's answer for a stream of unknown size.
var errDecodeInto = errors.New("lzma: DecodeInto needs the unpacked size and no threads")

const maxInt = int(^uint(0) >> 1)

// failOver hands the stream, from the head segment on, to the sequential
// decoder after the head segment's decoder failed.
func (z *Reader2) failOver() {
	p := z.par
	s := p.queue[0]
	parts := make([]io.Reader, 0, len(p.queue)+2)
	for _, q := range p.queue {
		parts = append(parts, bytes.NewReader(q.packedBytes()))
	}
	if t, ok := p.tail.(*concatReader); ok {
		parts = append(parts, t.parts...)
	} else {
		in := &z.in
		parts = append(parts, bytes.NewReader(bytes.Clone(in.buf[in.rp:in.wp])), &restReader{in.r, in.eof, in.err})
	}
	p.tail = &concatReader{parts: parts}
	p.tailAt, p.tailLen = s.start, s.left
	p.drain() // the later segments' buffers now belong to the tail
	z.takeOver()
}

// takeOver switches z to the sequential decoder, on p.tail (or the input
// as it is, when the walk gave up at the first segment of the stream).
func (z *Reader2) takeOver() {
	p := z.par
	p.on = false
	if p.tail == nil {
		return
	}
	z.in.reset(p.tail)
	z.in.base = p.tailAt
	z.remaining = p.tailLen
	z.kind = 0
	z.chunkLeft = 0
	z.needDict = true
	z.needProps = true
	z.d.eos = false
	z.d.pendLen = 0
	z.flushed = z.d.pos
	p.tail = nil
}

// restReader continues an input after what inBuffer held, repeating the
// end or the error inBuffer saw.
type restReader struct {
	r   io.Reader
	eof bool
	err error
}

func (r *restReader) Read(b []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.eof {
		return 0, io.EOF
	}
	return r.r.Read(b)
}

// concatReader reads its parts one after the other, filling each Read
// from as many of them as it can, as a single reader holding all of them
// would: the bytes the sequential decoder has buffered when it fails, and
// so the offset it reports, are those of a sequential run.
type concatReader struct {
	parts []io.Reader // the last one is the rest of the input
}

func (c *concatReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) && len(c.parts) > 0 {
		m, err := c.parts[0].Read(b[n:])
		n += m
		if err == io.EOF && len(c.parts) > 1 {
			c.parts = c.parts[1:]
			continue
		}
		if err != nil || len(c.parts) == 1 {
			if n > 0 && err == io.EOF {
				err = nil
			}
			return n, err
		}
	}
	return n, nil
}

// maxPeekChunks bounds the chunk headers Segmented reads: a segment of
// maxSegment bytes stored in uncompressed chunks of 64 KiB has 512.
const maxPeekChunks = 1024

// Segmented reports whether the LZMA2 stream of n packed bytes at offset
// off of r resets its dictionary again within maxSegment unpacked bytes of
// its start: whether a Reader2 with SetThreads(n > 1) decodes parts of it
// in parallel. It reads the first segment's chunk headers only, each where
// the previous chunk ends, and reports false on anything unexpected (the
// decoder reports the damage).
func Segmented(r io.ReaderAt, off, n int64) bool {
	var h [6]byte
	pos, size := int64(0), 0
	for range maxPeekChunks {
		if pos >= n {
			return false
		}
		k, _ := r.ReadAt(h[:min(int64(len(h)), n-pos)], off+pos)
		if k < 1 {
			return false
		}
		c := h[0]
		if reset := c == 1 || c >= 0xE0; reset != (pos == 0) {
			return reset
		}
		hdr := ChunkHeaderLen(c)
		if hdr == 0 {
			return false // the end byte or a bad control byte
		}
		if k < hdr {
			return false
		}
		unpacked, packed := ChunkSizes(h[:hdr])
		if size += unpacked; size > maxSegment {
			return false
		}
		pos += int64(hdr + packed)
	}
	return false
}
