package deflate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
)

// ErrLevel reports a compression level outside MinLevel…MaxLevel.
var ErrLevel = errors.New("deflate: unsupported level")

// ErrClosed reports a Write after Close.
var ErrClosed = errors.New("deflate: write after close")

// The levels this encoder implements.
const (
	MinLevel = 1
	MaxLevel = 9
)

// chunkSize is how much input is parsed at a time.
const chunkSize = 1 << 17

// params are a level's settings.
type params struct {
	nice   int  // a match this long is taken whole, without looking inside
	depth  int  // candidates the match finder visits per position
	passes int  // parses per chunk, each priced by the previous one
	tries  int  // cut points tried when halving a run of blocks
	seg    int  // symbols per segment, the unit of block splitting (0: segSyms)
	blocks int  // parses of each block priced by its own statistics
	skip   bool // positions inside a long match stay out of the trees
	edge   int  // without skip, >0: of the positions inside a long match only the first and the last edge go into the trees
	warmup bool // the first chunk of a stream is parsed once more, the first time priced by the fixed codes
	fast   bool // greedy parse over hash chains (chain.go)
	lazy   int  // with fast: a match shorter than this waits for a longer one at the next position
	good   int  // with lazy: the look ahead walks a quarter of depth once the match in hand is this long
	stale  int  // with lazy, >0: adaptive walks (chain.go), cut this many candidates after the last longer match
	share  int  // with stale: walks are cut after a chunk with under one late match in share full walks
}

// levels are the settings of each level (doc.go tells why).
var levels = [MaxLevel + 1]params{
	1: {nice: 32, depth: 32, tries: 2, fast: true},
	2: {nice: 32, depth: 32, tries: 2, fast: true, lazy: 8, good: 4},
	3: {nice: 128, depth: 48, tries: 2, fast: true, lazy: 24, good: 8, stale: 8, share: 64},
	4: {nice: 258, depth: 256, tries: 4, fast: true, lazy: 258, good: 16, stale: 8, share: 32},
	5: {nice: 48, depth: 16, passes: 1, tries: 4, edge: 32},
	6: {nice: 48, depth: 24, passes: 2, tries: 8, blocks: 1, skip: true, warmup: true},
	7: {nice: 64, depth: 48, passes: 3, tries: 8, blocks: 1, warmup: true},
	8: {nice: 96, depth: 64, passes: 4, tries: 16, blocks: 2, warmup: true},
	9: {nice: 128, depth: 96, passes: 6, tries: 64, blocks: 4, warmup: true, seg: segSyms / 2},
}

// Writer compresses to raw Deflate (RFC 1951) what is written to it. It
// buffers a chunk of input at a time; Close writes the rest and the final
// block.
type Writer struct {
	w       io.Writer
	nice    int
	p       params
	win     *window  // holds buf
	buf     []byte   // window history, then the chunk being gathered
	base    int      // first byte of buf not yet compressed
	mf      *finder  // the binary trees, or nil at the fast levels
	ch      *chain   // the hash chains of the fast levels, or nil
	midx    []int32  // per chunk position: first of its matches in mbuf
	mbuf    []uint32 // the chunk's matches
	opt     []uint64 // the parse's state per position: cost<<32 | step
	syms    []uint32
	best    []uint32
	hb      huffBuilder
	bw      bitWriter
	pr      prices
	seen    bool // pr holds the statistics of an earlier chunk
	split   []int
	segs    []segment
	blk     []uint32
	blkBest []uint32
	err     error
	done    bool
	dict    int // bytes of a preset dictionary at buf[0] not yet in the match finder
	// slid says the buffer dropped input since the match finder was last
	// emptied, so that positions below 0, out of reach of the buffer's
	// bytes, may be in its heads (resetFinder).
	slid bool
}

// NewWriter returns a Writer compressing at level (MinLevel…MaxLevel) to
// w.
func NewWriter(w io.Writer, level int) (*Writer, error) {
	if level < MinLevel || level > MaxLevel {
		return nil, fmt.Errorf("%w %d", ErrLevel, level)
	}
	tablesOnce.Do(buildTables)
	p := levels[level]
	e := &Writer{
		w:    w,
		nice: p.nice,
		p:    p,
		win:  new(window),
	}
	e.buf = e.win[:0:bufCap]
	if p.fast {
		e.ch = newChain()
		return e, nil
	}
	e.mf = newFinder(p.depth)
	e.midx = make([]int32, chunkSize+1)
	e.opt = make([]uint64, chunkSize+1)
	return e, nil
}

// Chain are the settings of a lazy parse over hash chains, the parse of
// levels 2 to 4, for a caller that matches another encoder's levels (the
// gzip writer, pigz's): as zlib's max_chain, max_lazy, good_length and
// nice_length.
type Chain struct {
	Depth int // candidates the walk visits per position, at least 1
	Lazy  int // a match shorter than this waits for a longer one at the next position (0 to 258; 0 parses greedily)
	Good  int // the look ahead walks a quarter of Depth once the match in hand is this long
	Nice  int // a match this long ends the walk (3 to 258)
}

// NewWriterChain returns a Writer to w whose parse has the settings c;
// it fails with ErrLevel when they are out of range.
func NewWriterChain(w io.Writer, c Chain) (*Writer, error) {
	if c.Depth < 1 || c.Lazy < 0 || c.Lazy > maxMatch || c.Nice < minMatch || c.Nice > maxMatch {
		return nil, fmt.Errorf("%w: chain settings %+v", ErrLevel, c)
	}
	e, err := NewWriter(w, 3)
	if err != nil {
		return nil, err
	}
	e.p.depth, e.p.lazy, e.p.good, e.p.nice, e.p.stale = c.Depth, c.Lazy, c.Good, c.Nice, 0
	e.nice = c.Nice
	return e, nil
}

// Reset discards the Writer's state and makes it compress to w, as a new
// Writer of the same level would.
func (e *Writer) Reset(w io.Writer) {
	e.w = w
	e.resetFinder()
	e.buf = e.buf[:0]
	e.base = 0
	e.seen = false
	e.err = nil
	e.done = false
	e.dict = 0
	e.bw = bitWriter{out: e.bw.out[:0]}
}

// ResetDict is Reset with a preset dictionary, as zlib's
// deflateSetDictionary: the output is a Deflate stream of its own, but
// its matches may reach back into the last 32 KiB of dict, so a decoder
// must be given the same dictionary (or, as in a gzip stream cut into
// blocks, have decoded dict just before).
func (e *Writer) ResetDict(w io.Writer, dict []byte) {
	e.Reset(w)
	dict = dict[max(0, len(dict)-windowSize):]
	e.buf = append(e.buf, dict...)
	e.base = len(dict)
	e.dict = len(dict)
}

// Write compresses p; the output is written a chunk at a time.
func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	if e.done {
		return 0, ErrClosed
	}
	total := len(p)
	for len(p) > 0 {
		limit := e.base + chunkSize
		if len(e.buf) == limit {
			if err := e.compress(endNone); err != nil {
				return total - len(p), err
			}
			limit = e.base + chunkSize
		}
		n := copy(e.buf[len(e.buf):limit], p)
		e.buf = e.buf[:len(e.buf)+n]
		p = p[n:]
	}
	return total, nil
}

// Close compresses what is left, writes the final block and flushes. It
// does not close the underlying writer.
func (e *Writer) Close() error {
	if e.err != nil || e.done {
		return e.err
	}
	e.done = true
	return e.compress(endFinal)
}

// Flush compresses everything written so far and ends the output with an
// empty stored block (a sync flush, as zlib's Z_SYNC_FLUSH): it then ends
// on a byte boundary and decodes to all the input so far. The stream goes
// on with the next Write; its matches still reach back across the flush
// at the fast levels 1 to 4, and at levels 5 to 9 only to the flush.
func (e *Writer) Flush() error {
	if e.err != nil {
		return e.err
	}
	if e.done {
		return ErrClosed
	}
	return e.compress(endSync)
}

// How compress ends what it codes.
const (
	endNone  = iota // more input follows
	endSync         // a sync flush: everything so far, then an empty stored block
	endFinal        // the final block
)

// compress codes the gathered chunk. Unless it ends a flush or the
// stream, the last maxMatch bytes stay pending: positions are only added
// to the match finder with their full lookahead, since a string cut short
// by the end of the buffer would be filed among the others by its prefix
// alone and break the order of the tree once the following bytes arrive
// (after a flush the trees start afresh for that reason). The input
// before the next chunk is kept as history, at least a window of it.
func (e *Writer) compress(mode int) error {
	end := len(e.buf)
	n := end - e.base
	if mode == endNone {
		n -= maxMatch
	}
	e.addDict(end)
	if n > 0 || mode == endFinal {
		if e.ch != nil {
			if e.p.lazy > 0 {
				e.best = e.lazy(n, end, e.best[:0])
			} else {
				e.best = e.greedy(n, end, e.best[:0])
			}
		} else {
			e.parseChunk(n, end)
		}
		e.emit(e.best, e.buf[e.base:e.base+n], mode == endFinal)
	}
	if mode == endSync {
		e.bw.bits(0, 3) // not final, stored
		e.bw.align()
		e.bw.out = append(e.bw.out, 0, 0, 0xff, 0xff)
		if e.mf != nil {
			e.resetFinder()
		}
	}
	if _, err := e.w.Write(e.bw.out); err != nil {
		e.err = err
		return err
	}
	e.bw.out = e.bw.out[:0]
	e.base += n
	// Drop whole windows of old input, so that positions keep their
	// slots in the match finder's cyclic array.
	if drop := (e.base - windowSize) &^ (windowSize - 1); drop > 0 {
		copy(e.buf, e.buf[drop:end])
		e.buf = e.buf[:end-drop]
		e.base -= drop
		e.slid = true
		if e.ch != nil {
			e.ch.slide(int32(drop))
		} else {
			e.mf.slide(int32(drop))
		}
	}
	return nil
}

// resetFinder empties the match finder: the heads of the buffer's
// positions only, unless the buffer has slid.
func (e *Writer) resetFinder() {
	used := len(e.buf)
	if e.slid {
		used = -1
	}
	if e.ch != nil {
		e.ch.reset(e.win, used)
	} else {
		e.mf.reset(e.win, used)
	}
	e.slid = false
}

// addDict adds the positions of a preset dictionary to the match finder,
// before the first chunk is parsed (with lookahead up to end, into the
// chunk).
func (e *Writer) addDict(end int) {
	for p := range e.dict {
		if end-p < minMatch {
			break
		}
		if e.ch != nil {
			link(e.ch.head, e.ch.prev, chainHash(e.win, p), p)
		} else {
			e.mf.find(e.win, p, min(e.nice, end-p), &e.mf.found)
		}
	}
	e.dict = 0
}

// parseChunk finds the matches of the n positions from buf[base] and
// leaves in e.best the smallest of the level's parses.
func (e *Writer) parseChunk(n, end int) {
	e.findMatches(n, end)
	// Parse the chunk passes times, each pass priced by the statistics of
	// the one before, and keep the smallest.
	passes := e.p.passes
	if !e.seen {
		e.pr.setFixed()
		if e.p.warmup {
			passes++
		}
	}
	bestBits := -1
	var c code
	for pass := range passes {
		e.syms = e.parse(0, n, &e.pr, e.syms[:0])
		var h histogram
		h.add(e.syms)
		bits, _ := e.blockCost(&h, n, &c)
		if bestBits < 0 || bits < bestBits {
			bestBits = bits
			e.best, e.syms = e.syms, e.best
		}
		e.pr.setFrom(&h, &e.hb, e.p.passes > 1 && pass%2 == 0)
	}
	e.seen = true
}

// findMatches runs the match finder over the n positions from buf[base],
// with lookahead up to end, and stores every position's matches.
func (e *Writer) findMatches(n, end int) {
	win, mf, nice, skip, edge := e.win, e.mf, e.nice, e.p.skip, e.p.edge
	midx := e.midx[:n+1]
	mbuf := e.mbuf[:0]
	for i := 0; i < n; {
		pos := e.base + i
		limit := min(maxMatch, end-pos)
		midx[i] = int32(len(mbuf))
		i++
		if limit < minMatch {
			continue
		}
		if cap(mbuf)-len(mbuf) < 256 {
			mbuf = slices.Grow(mbuf, chunkSize)
		}
		k := mf.find(win, pos, min(limit, nice), (*[256]uint32)(mbuf[len(mbuf):][:256]))
		if k == 0 {
			continue
		}
		mbuf = mbuf[:len(mbuf)+k]
		last := &mbuf[len(mbuf)-1]
		l := int(*last >> 16)
		if l < nice {
			continue
		}
		// The trees compare at most nice bytes; a match that long is
		// extended at its distance as far as it goes.
		if l < limit {
			d := int(*last & 0xffff)
			l = matchLenAt(win, pos-d, pos, l, limit)
			*last = uint32(l)<<16 | uint32(d)
		}
		// A long match is taken whole: the positions inside it are only
		// added to the trees, at -mx5 only the first and the last edge
		// of them, at -mx6 none (the same strings are in the trees where
		// the match copies from), and the last period of one that overlaps its
		// own copy.
		// A match that overlaps its own copy (distance below its length:
		// periodic data) copies from positions inside itself, so its
		// last period goes into the trees too, for the next match.
		all, first, tail := edge == 0 && !skip, edge, edge
		if skip {
			first, tail = 0, 0
		}
		if d := int(*last & 0xffff); d < l {
			tail = max(tail, d)
		}
		for j := 1; j < l && i < n; j++ {
			midx[i] = int32(len(mbuf))
			p := pos + j
			if lim := min(nice, end-p); lim >= minMatch && (all || j <= first || j >= l-tail) {
				mf.insert(win, p, lim)
			}
			i++
		}
	}
	midx[n] = int32(len(mbuf))
	e.mbuf = mbuf
}

// Block splitting cuts the chunk's symbols at multiples of segSyms
// (at -mx9 of half as many: 20 MB of executables came out 9 KB smaller).
// A segment holds the symbol counts and input bytes of the chunk up to
// such a cut, so that those of any run between two cuts are one
// subtraction.
type segment struct {
	h histogram
	n int // input bytes
}

const (
	segSyms    = 1 << 10
	splitDepth = 7
)

// emit writes the symbols of the chunk raw as blocks, split where that
// makes the output smaller.
func (e *Writer) emit(syms []uint32, raw []byte, final bool) {
	e.segs = append(e.segs[:0], segment{})
	seg := cmp.Or(e.p.seg, segSyms)
	for a := 0; a < len(syms) || a == 0; a += seg {
		part := syms[a:min(a+seg, len(syms))]
		sg := e.segs[len(e.segs)-1]
		sg.h.add(part)
		sg.n += inputLen(part)
		e.segs = append(e.segs, sg)
	}
	cuts := len(e.segs) - 1
	e.split = e.split[:0]
	e.splitAt(0, cuts, 0)
	e.split = append(e.split, cuts)
	var c code
	in, start := 0, 0
	for k, stop := range e.split {
		h, n := e.sum(start, stop)
		bits, kind := e.blockCost(&h, n, &c)
		part := syms[start*seg : min(stop*seg, len(syms))]
		// Parse the block again priced by its own statistics.
		for range e.p.blocks {
			var pr prices
			pr.setFrom(&h, &e.hb, false)
			e.blk = e.parse(in, in+n, &pr, e.blk[:0])
			var h2 histogram
			h2.add(e.blk)
			var c2 code
			bits2, kind2 := e.blockCost(&h2, n, &c2)
			if bits2 >= bits {
				break
			}
			bits, kind, c, h = bits2, kind2, c2, h2
			part, e.blk, e.blkBest = e.blk, e.blkBest, e.blk
		}
		e.bw.writeBlock(part, raw[in:in+n], kind, &c, final && k == len(e.split)-1)
		in += n
		start = stop
	}
	if final {
		e.bw.align()
	}
}

// sum returns the histogram and input size of the symbols between cuts
// a and b.
func (e *Writer) sum(a, b int) (histogram, int) {
	lo, hi := &e.segs[a], &e.segs[b]
	var h histogram
	for i, f := range hi.h.lit {
		h.lit[i] = f - lo.h.lit[i]
	}
	for i, f := range hi.h.dist {
		h.dist[i] = f - lo.h.dist[i]
	}
	return h, hi.n - lo.n
}

// inputLen is the number of input bytes syms stand for.
func inputLen(syms []uint32) int {
	n := 0
	for _, s := range syms {
		if s < 1<<16 {
			n++
		} else {
			n += int(s >> 16)
		}
	}
	return n
}

// splitAt appends to e.split the inner block boundaries chosen for
// segments a…b: the run is cut in two where the halves cost least as two
// blocks, if that beats one block, recursively.
func (e *Writer) splitAt(a, b, depth int) {
	if depth >= splitDepth || b-a < 2 {
		return
	}
	var c code
	h, n := e.sum(a, b)
	whole, _ := e.blockCost(&h, n, &c)
	mid, best := 0, whole
	steps := min(e.p.tries, b-a)
	for k := 1; k < steps; k++ {
		m := a + (b-a)*k/steps
		hl, nl := e.sum(a, m)
		left, _ := e.blockCost(&hl, nl, &c)
		hr, nr := e.sum(m, b)
		right, _ := e.blockCost(&hr, nr, &c)
		if left+right < best {
			mid, best = m, left+right
		}
	}
	if mid == 0 {
		return
	}
	e.splitAt(a, mid, depth+1)
	e.split = append(e.split, mid)
	e.splitAt(mid, b, depth+1)
}
