package lzma

// Pipelined binary-tree match finder
//
// With two or more threads, a binary-tree encoder runs its match finder
// on a goroutine of its own, the worker, while the parser and the range
// encoder run on the caller's, the consumer (7-Zip's layout, whose
// LzFindMt.c splits the finder the same way). The worker walks the block
// in order, hashing its positions into the main table and searching and
// inserting each one into its binary tree exactly as the single-threaded
// finder does, and writes their match lists into batches of a small ring.
//
// The consumer keeps the direct 2- and 3-byte tables (and, with 5-byte
// main hashing, the 4-byte one) itself. At each position it looks them up,
// takes the worker's next list and keeps the matches longer than the short
// ones, which is what the single-threaded finder returns: its tree walk
// does not depend on the short matches, only the choice of which lengths
// to report does. Positions the parser skips only update the direct tables
// and drop their lists; the worker inserted them into the tree as the
// single-threaded skip does (a search inserts a position exactly as an
// insert-only walk does). So the output equals the single-threaded one for
// any number of threads (TestThreadsIdentical).
//
// The worker is the only writer of the main table and the tree, and the
// consumer reads neither, so they share only the (read-only) buffer and
// the batches, which change hands through channels: a batch covers up to
// mtBatchPosition positions, so a hand-over (a channel operation and, when
// one side waits, a goroutine wake-up) costs little against the few
// milliseconds of work in a batch, and the ring of mtBatches lets either
// side run ahead of the other by several batches before it waits.
//
// Work and CPU: the tree walks and the main table are about 55–60 % of a
// binary-tree encoder's CPU time at mx5 and mx9 and the parser, coder and
// short matches the rest, so the block takes the worker's time, about
// 0.6 of one thread's, for the same CPU as one thread. (The finder used
// to be split by hash over two workers besides the consumer, which needs
// three threads' worth of scheduling on two cores, hashes every position
// three times and made the tree's cache lines move between cores: about
// 15 % more CPU for no shorter time on two cores.)
//
// A batch is a []match holding, for each position with room for hashing,
// a header entry whose len is the number of matches, followed by the
// matches. Batches are allocated once per encoder and recycled, so the
// memory is bounded and the steady state allocates only channels per
// block.

const (
	mtBatchLen      = 1 << 15 // entries per batch
	mtBatchPosition = 1 << 14 // positions a batch covers at most
	mtBatches       = 4
	// mtMaxPerPos bounds the entries one position adds: its header plus
	// matches of strictly increasing lengths 2..maxMatchLen.
	mtMaxPerPos = 1 + maxMatchLen
)

// mtFinder runs the worker of one block and hands its results to the
// consumer.
type mtFinder struct {
	batches [][]match
	full    chan []match // filled batches, in position order
	free    chan []match // batches to refill
	cur     []match      // batch being consumed
	i       int          // next header in cur
	quit    chan struct{}
	done    chan struct{}
	running bool
}

func newMTFinder() *mtFinder {
	t := &mtFinder{}
	t.batches = make([][]match, mtBatches)
	for i := range t.batches {
		t.batches[i] = make([]match, 0, mtBatchLen)
	}
	return t
}

// start runs the worker over mf (reset and preloaded; its position is the
// first of the block, and nothing at or after it is hashed yet).
func (t *mtFinder) start(mf *matchFinder) {
	t.quit = make(chan struct{})
	t.done = make(chan struct{})
	t.full = make(chan []match, mtBatches)
	t.free = make(chan []match, mtBatches)
	for _, b := range t.batches {
		t.free <- b[:0]
	}
	t.cur, t.i = nil, 0
	wf := *mf // the worker's own position; tables and buffer shared
	go t.produce(&wf, t.full, t.free)
	t.running = true
}

// mtHashAhead is how many positions the worker hashes ahead of its walks.
const mtHashAhead = 64

// aheadPos is a position hashed ahead of its tree walk: its buffer index,
// absolute position (plus one), first candidate and node slot.
type aheadPos struct {
	pos            int
	cur, cand, cyc uint32
}

// produce searches and inserts the positions of the block. It hashes the
// next positions ahead (the table lookups are independent, so their cache
// misses overlap), then walks their trees in order, prefetching the next
// one's first node while walking the current.
func (t *mtFinder) produce(mf *matchFinder, full, free chan []match) {
	defer close(t.done)
	defer close(full)
	buf, hash4, son, hb, end := mf.buf, mf.hash4, mf.son, mf.hb, mf.end
	var ahead [mtHashAhead]aheadPos
	var hs [mtHashAhead]uint32
	n, ai := 0, 0 // ahead[ai:n] are hashed, not yet walked
	scan, scanCyc := mf.pos, mf.cycPos
	// Positions too close to the end to hash have no matches and no list.
	last := end - hb + 1
	for scan < last || ai < n {
		var b []match
		select {
		case b = <-free:
		case <-t.quit:
			return
		}
		b = b[:0]
		for left := mtBatchPosition; left > 0 && cap(b)-len(b) >= mtMaxPerPos; left-- {
			if ai == n {
				if scan >= last {
					break
				}
				// Hash the next m positions and prefetch their table
				// slots, then look them up and insert in order.
				m := min(mtHashAhead, last-scan)
				for i := range m {
					h := mf.mainHash(buf[scan+i : scan+i+hb])
					hs[i] = h
					prefetch3(&hash4[h], &hash4[h], &buf[scan+i])
				}
				for i, h := range hs[:m] {
					cur := uint32(scan+i) + mf.delta
					c := scanCyc + uint32(i)
					if c >= mf.cyclic {
						c -= mf.cyclic
					}
					ahead[i] = aheadPos{scan + i, cur, hash4[h], c}
					hash4[h] = cur
				}
				n, ai = m, 0
				scan += m
				if scanCyc += uint32(m); scanCyc >= mf.cyclic {
					scanCyc -= mf.cyclic
				}
			}
			o := ahead[ai]
			if ai+1 < n {
				p := ahead[ai+1]
				if d := p.cur - p.cand; d-1 < mf.maxDist(p.cur) {
					s := p.cyc - d
					if d > p.cyc {
						s += mf.cyclic
					}
					prefetch3(&son[2*s], &son[2*s], &buf[p.pos-int(d)])
				}
			}
			mf.cycPos = o.cyc
			limit := min(end-o.pos, mf.nice)
			hdr := len(b)
			b = append(b, match{})
			ms := mf.btFind(b[hdr+1:hdr+1], o.pos, o.cur, o.cand, mf.maxDist(o.cur), limit, 1)
			b[hdr].len = uint32(len(ms))
			b = b[:hdr+1+len(ms)]
			ai++
		}
		select {
		case full <- b:
		case <-t.quit:
			return
		}
	}
}

// list returns the worker's matches for the next position with room for
// hashing (valid until the next list is taken).
func (t *mtFinder) list() []match {
	for t.i >= len(t.cur) {
		if t.cur != nil {
			t.free <- t.cur
			t.cur = nil
		}
		b, ok := <-t.full
		if !ok {
			return nil
		}
		t.cur, t.i = b, 0
	}
	n := int(t.cur[t.i].len)
	s := t.cur[t.i+1 : t.i+1+n]
	t.i += 1 + n
	return s
}

// shortTables looks up and updates the direct tables at pos (which has
// mf.hb bytes), returning their candidates.
func shortTables(mf *matchFinder, pos int, cur uint32) (c2, c3, c4b uint32) {
	b := mf.buf[pos : pos+mf.hb]
	h2 := uint32(b[0]) | uint32(b[1])<<8
	h3 := hash3of(b)
	c2, c3 = mf.hash2[h2], mf.hash3[h3]
	mf.hash2[h2], mf.hash3[h3] = cur, cur
	if mf.hb == 5 {
		h := hash4bOf(b)
		c4b = mf.hash4b[h]
		mf.hash4b[h] = cur
	}
	return c2, c3, c4b
}

// consume advances mf (the consumer's finder) over its current position:
// it looks up and updates the direct tables, and returns the short
// matches, the position's tree matches from the worker, and the longest
// short length. With no room for hashing it returns nothing.
func (t *mtFinder) consume(mf *matchFinder, ms []match) ([]match, []match, int) {
	pos := mf.pos
	if mf.end-pos < mf.hb {
		mf.advance()
		return ms, nil, 0
	}
	cur := uint32(pos) + mf.delta
	c2, c3, c4b := shortTables(mf, pos, cur)
	limit := min(mf.end-pos, mf.nice)
	ms, best := mf.shortMatches(ms, pos, cur, c2, c3, c4b, mf.maxDist(cur), limit)
	tree := t.list()
	mf.advance()
	return ms, tree, best
}

// skipOne advances mf over its current position without searching it: it
// updates the direct tables and drops the position's tree matches.
func (t *mtFinder) skipOne(mf *matchFinder) {
	pos := mf.pos
	if mf.end-pos >= mf.hb {
		shortTables(mf, pos, uint32(pos)+mf.delta)
		if t.i < len(t.cur) {
			t.i += 1 + int(t.cur[t.i].len)
		} else {
			t.list()
		}
	}
	mf.advance()
}

// stop ends the worker (if still running) and waits for it.
func (t *mtFinder) stop() {
	if !t.running {
		return
	}
	close(t.quit)
	<-t.done
	t.running = false
	t.cur = nil
	t.full, t.free = nil, nil
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
		e.mt.skipOne(e.mf)
	}
}
