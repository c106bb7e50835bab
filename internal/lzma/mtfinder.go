package lzma

// Pipelined match finder
//
// With two or more threads, a binary-tree encoder runs its match finder on
// a goroutine of its own, one block at a time, while the parser and the
// range encoder consume its results (the idea of 7-Zip's "MT match
// finder"). The finder searches every position of the block in order and
// writes the matches into batches of a small ring; the parser takes the
// positions in the same order and discards those it skips (inside chosen
// matches).
//
// The output equals the single-threaded one because the match finder's
// results at a position never depend on the parser: skip inserts a
// position into the hash tables and the tree exactly as find does (the
// tree walk is the same; find only also records the matches it passes),
// so searching a skipped position fully leaves the same state behind.
// TestThreadsIdentical checks it.
//
// A batch is a []match holding, for each position, a header entry whose
// len is the number of matches, followed by the matches. Batches are
// allocated once per encoder and recycled through a free channel, so the
// memory is bounded (mtBatches × mtBatchLen × 8 bytes) and the steady
// state allocates nothing but two channels per block.

const (
	mtBatchLen = 1 << 15
	mtBatches  = 8
	// mtMaxPerPos bounds the entries one position adds: its header plus
	// matches of strictly increasing lengths 2..maxMatchLen.
	mtMaxPerPos = 1 + maxMatchLen
)

// mtFinder is the consumer side of the pipelined match finder.
type mtFinder struct {
	batches [][]match
	full    chan []match // filled batches, in position order
	free    chan []match // batches to refill
	quit    chan struct{}
	done    chan struct{}
	cur     []match // batch being consumed
	i       int     // next header in cur
	running bool
}

func newMTFinder() *mtFinder {
	t := &mtFinder{batches: make([][]match, mtBatches)}
	for i := range t.batches {
		t.batches[i] = make([]match, 0, mtBatchLen)
	}
	return t
}

// start runs mf (already reset over the whole block) on a new goroutine.
func (t *mtFinder) start(mf *matchFinder) {
	t.full = make(chan []match, mtBatches)
	t.free = make(chan []match, mtBatches)
	t.quit = make(chan struct{})
	t.done = make(chan struct{})
	for _, b := range t.batches {
		t.free <- b[:0]
	}
	t.cur = nil
	t.i = 0
	t.running = true
	go t.produce(mf, t.full, t.free, t.quit, t.done)
}

// produce searches every position of mf's buffer and sends the results.
func (t *mtFinder) produce(mf *matchFinder, full, free chan []match, quit, done chan struct{}) {
	defer close(done)
	defer close(full)
	for mf.pos < mf.end {
		var b []match
		select {
		case b = <-free:
		case <-quit:
			return
		}
		b = b[:0]
		for mf.pos < mf.end && cap(b)-len(b) >= mtMaxPerPos {
			h := len(b)
			b = append(b, match{})
			ms := mf.find(b[h+1 : h+1])
			b[h].len = uint32(len(ms))
			b = b[:h+1+len(ms)]
		}
		select {
		case full <- b:
		case <-quit:
			return
		}
	}
}

// next returns the matches at the next position (valid until the
// following call). Past the end of the block it returns nothing.
func (t *mtFinder) next() []match {
	if t.i >= len(t.cur) {
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

// stop ends the producer (if still running) and waits for it.
func (t *mtFinder) stop() {
	if !t.running {
		return
	}
	close(t.quit)
	<-t.done
	t.running = false
	t.cur = nil
	t.full, t.free, t.quit, t.done = nil, nil, nil, nil
}

// find returns the matches at the next position (copied into dst) and
// advances, from the pipelined finder when one runs.
func (e *encoder) find(dst []match) []match {
	if e.mt != nil && e.mt.running {
		return append(dst[:0], e.mt.next()...)
	}
	return e.mf.find(dst)
}

// skip advances n positions without using their matches.
func (e *encoder) skip(n int) {
	if e.mt != nil && e.mt.running {
		for ; n > 0; n-- {
			e.mt.next()
		}
		return
	}
	e.mf.skip(n)
}
