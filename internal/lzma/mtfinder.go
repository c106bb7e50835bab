package lzma

import "math/bits"

// Parallel binary-tree match finder
//
// With two or more threads, a binary-tree encoder splits its match finder
// over mtWorkers goroutines while the parser and the range encoder run on
// a third, the consumer. The split is by hash: the main hash table is cut
// into mtWorkers contiguous ranges, and worker k owns the positions whose
// main hash falls in range k. A position is only ever inserted into the
// tree of its own hash, and that tree's nodes are positions with the same
// hash, so worker k reads and writes only its own part of the hash table
// and only the tree nodes of its own positions: the workers share no
// mutable state. Each walks the whole block in order, searching and
// inserting its own positions exactly as the single-threaded finder does,
// and writes their match lists into batches of a small per-worker ring.
//
// The consumer keeps the direct 2- and 3-byte tables itself. At each
// position it looks them up, computes the position's owner from the main
// hash, takes that worker's next list and keeps the matches longer than
// the short ones, which is what the single-threaded finder returns: its
// tree walk does not depend on the short matches, only the choice of
// which lengths to report does. Positions the parser skips are consumed
// the same way and their lists discarded; skipping inserts a position
// into the tree exactly as searching it does. So the output equals the
// single-threaded one for any number of threads (TestThreadsIdentical).
//
// Workers may run ahead of each other by at most the positions of a full
// ring (mtLag), and the tree's cyclic node buffer of an encoder that may
// run this way is larger than the dictionary by that much, so that a
// worker ahead never reuses the node of a position the other can still
// reach.
//
// A batch is a []match holding, for each owned position, a header entry
// whose len is the number of matches, followed by the matches. Batches
// are allocated once per encoder and recycled, so the memory is bounded
// and the steady state allocates only channels per block.

const (
	mtWorkers       = 2
	mtBatchLen      = 1 << 14 // entries per batch
	mtBatchPosition = 1 << 13 // positions a batch covers at most
	mtBatches       = 6       // per worker
	// mtLag bounds how far one worker can be ahead of another.
	mtLag = (mtBatches + 2) * mtBatchPosition
	// mtMaxPerPos bounds the entries one position adds: its header plus
	// matches of strictly increasing lengths 2..maxMatchLen.
	mtMaxPerPos = 1 + maxMatchLen
)

// mtWorker is the consumer's view of one worker.
type mtWorker struct {
	batches [][]match
	full    chan []match // filled batches, in position order
	free    chan []match // batches to refill
	cur     []match      // batch being consumed
	i       int          // next header in cur
}

// mtFinder runs the workers of one block and hands their results to the
// consumer.
type mtFinder struct {
	w       [mtWorkers]mtWorker
	quit    chan struct{}
	done    chan struct{}
	shift   uint    // owner = main hash >> shift
	scratch []match // lists of skipped positions
	running bool
}

func newMTFinder() *mtFinder {
	t := &mtFinder{scratch: make([]match, 0, maxMatchLen+8)}
	for k := range t.w {
		t.w[k].batches = make([][]match, mtBatches)
		for i := range t.w[k].batches {
			t.w[k].batches[i] = make([]match, 0, mtBatchLen)
		}
	}
	return t
}

// start runs the workers over mf (reset and preloaded; its position is
// the first of the block, and nothing at or after it is hashed yet).
func (t *mtFinder) start(mf *matchFinder) {
	t.quit = make(chan struct{})
	t.done = make(chan struct{}, mtWorkers)
	t.shift = uint(bits.Len(uint(len(mf.hash4)))-1) - uint(bits.Len(mtWorkers)-1)
	for k := range t.w {
		w := &t.w[k]
		w.full = make(chan []match, mtBatches)
		w.free = make(chan []match, mtBatches)
		for _, b := range w.batches {
			w.free <- b[:0]
		}
		w.cur, w.i = nil, 0
		wf := *mf // the worker's own position; tables and buffer shared
		go t.produce(k, &wf, w.full, w.free)
	}
	t.running = true
}

// ownPos is a position of a worker, hashed ahead of its tree walk: its
// index, absolute position (plus one), first candidate and node slot.
type ownPos struct {
	pos            int
	cur, cand, cyc uint32
}

// mtHashAhead is how many positions a worker hashes ahead of its walks.
const mtHashAhead = 64

// produce searches and inserts worker k's positions of the block. It
// hashes the next positions ahead (the table lookups are independent, so
// their cache misses overlap), then walks the trees of its own ones in
// order, prefetching the next one's first node while walking the current.
func (t *mtFinder) produce(k int, mf *matchFinder, full, free chan []match) {
	defer func() { t.done <- struct{}{} }()
	defer close(full)
	buf, hash4, son, hb, end := mf.buf, mf.hash4, mf.son, mf.hb, mf.end
	shift := t.shift
	own := make([]ownPos, 0, mtHashAhead)
	var hs [mtHashAhead]uint32
	oi := 0
	scan, scanCyc := mf.pos, mf.cycPos
	for bs := mf.pos; bs < end; {
		var b []match
		select {
		case b = <-free:
		case <-t.quit:
			return
		}
		b = b[:0]
		stop := min(end, bs+mtBatchPosition)
		bs = stop
		for {
			if oi == len(own) {
				if scan >= end {
					break
				}
				own, oi = own[:0], 0
				// Positions too close to the end to hash have no matches.
				m := min(mtHashAhead, end-hb+1-scan)
				if m <= 0 {
					scan = end
					continue
				}
				// Hash the next m positions and prefetch this worker's
				// table slots, then look them up and insert in order.
				for i := range m {
					h := mf.mainHash(buf[scan+i : scan+i+hb])
					hs[i] = h
					if int(h>>shift) == k {
						prefetch3(&hash4[h], &hash4[h], &buf[scan+i])
					}
				}
				for i, h := range hs[:m] {
					if int(h>>shift) == k {
						cur := uint32(scan+i) + mf.delta
						c := scanCyc + uint32(i)
						if c >= mf.cyclic {
							c -= mf.cyclic
						}
						own = append(own, ownPos{scan + i, cur, hash4[h], c})
						hash4[h] = cur
					}
				}
				scan += m
				if scanCyc += uint32(m); scanCyc >= mf.cyclic {
					scanCyc -= mf.cyclic
				}
				continue
			}
			o := own[oi]
			if o.pos >= stop {
				break
			}
			if cap(b)-len(b) < mtMaxPerPos {
				bs = o.pos
				break
			}
			if oi+1 < len(own) {
				n := own[oi+1]
				if d := n.cur - n.cand; d-1 < mf.maxDist(n.cur) {
					s := n.cyc - d
					if d > n.cyc {
						s += mf.cyclic
					}
					prefetch3(&son[2*s], &son[2*s], &buf[n.pos-int(d)])
				}
			}
			mf.cycPos = o.cyc
			limit := min(end-o.pos, mf.nice)
			hdr := len(b)
			b = append(b, match{})
			ms := mf.btFind(b[hdr+1:hdr+1], o.pos, o.cur, o.cand, mf.maxDist(o.cur), limit, 1)
			b[hdr].len = uint32(len(ms))
			b = b[:hdr+1+len(ms)]
			oi++
		}
		select {
		case full <- b:
		case <-t.quit:
			return
		}
	}
}

// list returns worker k's matches for its next position (valid until the
// worker's next list is taken).
func (t *mtFinder) list(k int) []match {
	w := &t.w[k]
	if w.i >= len(w.cur) {
		for {
			if w.cur != nil {
				w.free <- w.cur
				w.cur = nil
			}
			b, ok := <-w.full
			if !ok {
				return nil
			}
			w.cur, w.i = b, 0
			if len(b) > 0 {
				break
			}
		}
	}
	n := int(w.cur[w.i].len)
	s := w.cur[w.i+1 : w.i+1+n]
	w.i += 1 + n
	return s
}

// consume advances mf (the consumer's finder) over its current position:
// it looks up and updates the direct tables, and returns the short
// matches, the position's tree matches from its worker, and the longest
// short length. With no room for hashing it returns nothing.
func (t *mtFinder) consume(mf *matchFinder, ms []match) ([]match, []match, int) {
	pos := mf.pos
	if mf.end-pos < mf.hb {
		mf.advance()
		return ms, nil, 0
	}
	buf := mf.buf
	b := buf[pos : pos+mf.hb]
	cur := uint32(pos) + mf.delta
	h2 := uint32(b[0]) | uint32(b[1])<<8
	h3 := hash3of(b)
	c2, c3 := mf.hash2[h2], mf.hash3[h3]
	mf.hash2[h2], mf.hash3[h3] = cur, cur
	var c4b uint32
	if mf.hb == 5 {
		h := hash4bOf(b)
		c4b = mf.hash4b[h]
		mf.hash4b[h] = cur
	}
	limit := min(mf.end-pos, mf.nice)
	ms, best := mf.shortMatches(ms, pos, cur, c2, c3, c4b, mf.maxDist(cur), limit)
	tree := t.list(int(mf.mainHash(b) >> t.shift))
	mf.advance()
	return ms, tree, best
}

// stop ends the workers (if still running) and waits for them.
func (t *mtFinder) stop() {
	if !t.running {
		return
	}
	close(t.quit)
	for range t.w {
		<-t.done
	}
	t.running = false
	for k := range t.w {
		w := &t.w[k]
		w.cur = nil
		w.full, w.free = nil, nil
	}
	t.quit, t.done = nil, nil
}

// find returns the matches at the next position (in dst) and advances,
// from the parallel finder when it runs.
func (e *encoder) find(dst []match) []match {
	if e.mt == nil || !e.mt.running {
		if !e.mf.bt {
			return e.mf.hcGetMatches(dst)
		}
		return e.mf.find(dst)
	}
	ms, tree, best := e.mt.consume(e.mf, dst[:0])
	for _, m := range tree {
		if int(m.len) > best {
			ms = append(ms, m)
		}
	}
	return ms
}

// skip advances n positions without using their matches.
func (e *encoder) skip(n int) {
	if e.mt == nil || !e.mt.running {
		if !e.mf.bt {
			e.mf.hcSkip(n)
			return
		}
		e.mf.skip(n)
		return
	}
	for ; n > 0; n-- {
		e.mt.consume(e.mf, e.mt.scratch[:0])
	}
}
