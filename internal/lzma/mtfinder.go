package lzma

import (
	"runtime"
	"time"
	"unsafe"
)

// Pipelined binary-tree match finder
//
// With two or more threads, a binary-tree encoder runs its tree walks on
// a goroutine of their own, the worker, while the parser and the range
// encoder run on the caller's, the consumer (7-Zip's layout: LzFindMt.c
// splits its finder the same way, with a third thread for the hashing).
// The consumer hashes the positions into the main table a chunk ahead of
// the worker and hands it each position's candidate (the table's entry
// before the position was stored, as the single-threaded finder reads it);
// the worker walks the block in order, searching and inserting each
// position into its binary tree exactly as the single-threaded finder
// does, and writes their match lists into batches of a small ring.
//
// In a long match (runs of repeated bytes or strings) the worker does not
// walk: a position whose newest candidate is at the distance of the
// previous position's full-length match, and whose match goes on as far,
// would stop at that first node, so it takes the node's subtrees over and
// reports the match at once, as 7-Zip's LzFindOpt.c does (its
// USE_LONG_MATCH_OPT).
//
// The consumer also keeps the direct 2- and 3-byte tables (and, with
// 5-byte main hashing, the 4-byte one). At each position it looks them
// up (hashing them a stretch ahead, as the single-threaded finder does,
// so that their cache misses overlap), takes the worker's next list and keeps the matches longer than the
// short ones, which is what the single-threaded finder returns: its tree
// walk does not depend on the short matches, only the choice of which
// lengths to report does. Positions the parser skips only update the
// direct tables and drop their lists; the worker inserted them into the
// tree as the single-threaded skip does (a search inserts a position
// exactly as an insert-only walk does). So the output equals the
// single-threaded one for any number of threads (TestThreadsIdentical,
// TestMTFinderMatchesSingle).
//
// The worker alone reads and writes the tree, the consumer alone the hash
// tables; they share the (read-only) buffer, the chunks of candidates and
// the batches of matches, which change hands through channels. A batch
// covers up to mtBatchPosition positions, so a hand-over (a channel
// operation and, when one side waits, a goroutine wake-up) costs little
// against the few milliseconds of work in it. The consumer hashes when it
// takes a batch: as many chunks as are free, and at least up to the
// position it waits for; the worker, before it waits for a chunk, hands
// over the positions it has done, so neither can wait for the other at
// once.
//
// Work and CPU: the tree walks are about half of a binary-tree encoder's
// CPU time at mx5 and mx9, and the hashing, short matches, parser and
// coder the other half, so a block takes about half of one thread's time
// on two cores for the same CPU. (The finder used to be split by hash
// over two workers besides the consumer, which needs three threads' worth
// of scheduling on two cores and hashes every position three times: about
// 15 % more CPU for no shorter time on two cores.)
//
// A batch is a []match holding, for each position with room for hashing,
// a header entry whose len is the number of matches, followed by the
// matches. Batches and chunks are allocated once per encoder and
// recycled, so the memory is bounded and the steady state allocates only
// channels per block.

const (
	mtBatchLen      = 1 << 15 // entries per batch
	mtBatchPosition = 1 << 14 // positions a batch covers at most
	mtBatches       = 4
	// Chunks of main-table candidates (heads) the consumer hashes for
	// the worker: together they reach further ahead than the worker's
	// batches, so that the worker seldom waits for them.
	mtHeadChunk  = 1 << 13
	mtHeadChunks = 16
	// mtAhead is how many positions ahead the worker prefetches a
	// position's first tree node and its bytes: on data with short
	// walks (random data: one or two nodes) the misses of several
	// positions then overlap.
	mtAhead = 4
	// nearBytes is the distance up to which the consumer does not
	// prefetch a short candidate's bytes.
	nearBytes = 1 << 12
	// Each mtEpoch positions the worker times mtTrial positions walked
	// one at a time and as many side by side, and walks the rest of
	// the epoch the cheaper way (produce).
	mtEpoch = 1 << 17
	mtTrial = 1 << 11
	// mtSerialBetter is the ratio of the trials' times below which the
	// epoch walks one at a time; otherwise the walks go side by side,
	// switching to one at a time where they wait for each other
	// (btSerial), which on 100 MiB of mixed data, where the two trials
	// took about as long on average, beat keeping to one way.
	mtSerialBetter = 0.85
	// pfBatch is how many addresses feed prefetches with one call.
	pfBatch = 32
)

// The worker's trials (produce).
const (
	mtChosen = iota
	mtSerialTrial
	mtWalksTrial
)

// mtPerPos bounds the entries one position adds to a batch: its header
// plus matches of strictly increasing lengths from 2 up to the nice
// length (btFind also wants room for limit matches). With the bound of
// the longest match (274 entries) instead, at -mx5 (nice 32) the worker
// let fewer positions into its walks once a batch was half full, since
// the room left had to cover the worst case of every walk going: the
// walks went on fewer at a time, and their misses overlapped less.
func (mf *matchFinder) mtPerPos() int { return 1 + min(mf.nice, maxMatchLen) }

// mtFinder runs the worker of one block and hands its results to the
// consumer.
type mtFinder struct {
	batches  [][]match
	full     chan []match // filled batches, in position order
	free     chan []match // batches to refill
	cur      []match      // batch being consumed
	i        int          // next header in cur
	heads    [][]uint32
	headFull chan []uint32 // candidates for the worker, in position order
	headFree chan []uint32
	hashPos  int // buffer index of the next position to hash
	hashEnd  int // the positions from here have no room for hashing
	// last is the buffer index the worker stops before: the end of the
	// positions with room for hashing, or, while more input is to come
	// into a sliding window, the first position whose search could see
	// fewer bytes than a whole block's buffer would give it.
	last    int
	quit    chan struct{}
	done    chan struct{}
	running bool
	// A paused worker's state, taken up by resume: its next position
	// (buffer index) and tree slot, the batch it was filling (or nil)
	// and its chunk of candidates with the index of the next one.
	paused bool
	wpos   int
	wcyc   uint32
	wb     []match
	wchunk []uint32
	wci    int
	// walks are the worker's tree walks in progress.
	walks btWalks
}

// mtBufBytes is the size of an mtFinder's batches and chunks together
// (1.5 MiB).
const mtBufBytes = mtBatches*mtBatchLen*int(unsafe.Sizeof(match{})) + mtHeadChunks*mtHeadChunk*4

func newMTFinder() *mtFinder {
	t := &mtFinder{}
	// The batches and the chunks lie in one huge page (hugeBytes): in
	// pages of 4 KiB their first use took up to 384 page faults, at 10-15 us
	// each on a virtual machine about 5 ms of an encoder's start.
	mem := hugeBytes(mtBufBytes)
	batches := unsafe.Slice((*match)(unsafe.Pointer(unsafe.SliceData(mem))), mtBatches*mtBatchLen)
	heads := unsafe.Slice((*uint32)(unsafe.Pointer(&mem[len(batches)*int(unsafe.Sizeof(match{}))])), mtHeadChunks*mtHeadChunk)
	t.batches = make([][]match, mtBatches)
	for i := range t.batches {
		t.batches[i] = batches[i*mtBatchLen : i*mtBatchLen : (i+1)*mtBatchLen]
	}
	t.heads = make([][]uint32, mtHeadChunks)
	for i := range t.heads {
		t.heads[i] = heads[i*mtHeadChunk : i*mtHeadChunk : (i+1)*mtHeadChunk]
	}
	return t
}

// start runs the worker over mf (reset and preloaded; its position is the
// first of the block, and nothing at or after it is hashed yet), up to
// the buffer index last.
func (t *mtFinder) start(mf *matchFinder, last int) {
	if mf.walks.n != 0 {
		// The worker would insert the positions walked ahead again.
		panic("lzma: pipelined finder started with walks ahead")
	}
	t.full = make(chan []match, mtBatches)
	t.free = make(chan []match, mtBatches)
	for _, b := range t.batches {
		t.free <- b[:0]
	}
	t.cur, t.i = nil, 0
	t.headFull = make(chan []uint32, mtHeadChunks)
	t.headFree = make(chan []uint32, mtHeadChunks)
	for _, h := range t.heads {
		t.headFree <- h[:0]
	}
	t.hashPos, t.hashEnd = mf.pos, max(mf.pos, mf.end-mf.hb+1)
	t.wpos, t.wcyc, t.wb, t.wchunk, t.wci = mf.pos, mf.cycPos, nil, nil, 0
	t.run(mf, last)
}

// run starts the worker from its saved state over mf's buffer up to last.
func (t *mtFinder) run(mf *matchFinder, last int) {
	t.quit = make(chan struct{})
	t.done = make(chan struct{})
	t.last = last
	t.feed(mf, t.wpos+1)
	wf := *mf // the worker's own position; tables and buffer shared
	wf.pos, wf.cycPos = t.wpos, t.wcyc
	go t.produce(&wf, t.full, t.free, t.headFull, t.headFree)
	t.running = true
	t.paused = false
}

// pause ends the worker, keeping its state and its batches for resume,
// so that the buffer it reads can be slid.
func (t *mtFinder) pause() {
	if !t.running {
		return
	}
	close(t.quit)
	<-t.done
	t.running = false
	t.paused = true
}

// slide moves the paused finder's buffer indices cut bytes down, as the
// window moved its bytes, and rebases the candidates it holds by sub (what
// the finder's normalize subtracted, or 0).
func (t *mtFinder) slide(cut int, sub uint32) {
	t.hashPos -= cut
	t.hashEnd -= cut
	t.wpos -= cut
	if sub == 0 {
		return
	}
	rebase(t.wchunk, sub)
	for range len(t.headFull) {
		c := <-t.headFull
		rebase(c, sub)
		t.headFull <- c
	}
}

// resume restarts a paused worker over mf's buffer, whose end has moved,
// up to last. The batches the old worker filled stay in order before the
// new one's.
func (t *mtFinder) resume(mf *matchFinder, last int) {
	old := t.full
	t.full = make(chan []match, mtBatches)
	for b := range old {
		t.full <- b
	}
	t.hashEnd = max(t.hashPos, mf.end-mf.hb+1)
	t.run(mf, last)
}

// feed hashes the next positions into the main table for the worker, a
// chunk at a time: until need (a buffer index) is hashed, waiting for the
// worker to return a chunk if it must, then as long as a chunk is free.
// Each position's candidate is the table's entry before the position was
// stored there. The table's cache misses overlap: a chunk's hashes are
// computed and their slots prefetched before the lookups.
func (t *mtFinder) feed(mf *matchFinder, need int) {
	buf, hash4, hb := mf.buf, mf.hash4, mf.hb
	for t.hashPos < t.hashEnd {
		var c []uint32
		if t.hashPos < need {
			c = <-t.headFree
		} else {
			select {
			case c = <-t.headFree:
			default:
				return
			}
		}
		p := t.hashPos
		c = c[:min(mtHeadChunk, t.hashEnd-p)]
		prev := ^uint32(0)
		// The slots' addresses are prefetched a batch at a time (one
		// call of prefetchN for pfBatch positions instead of one
		// call each).
		var pf [pfBatch]uintptr
		npf := 0
		h4 := uintptr(unsafe.Pointer(unsafe.SliceData(hash4)))
		mask := uint32(len(hash4) - 1)
		for i := range c {
			h := mf.mainHash(buf[p+i : p+i+hb])
			c[i] = h
			if h != prev {
				// (A run of one repeated byte hashes to one slot.)
				pf[npf&(pfBatch-1)] = h4 + uintptr(h&mask)*4
				npf++
				prev = h
				if npf == pfBatch {
					prefetchN(&pf[0], pfBatch)
					npf = 0
				}
			}
		}
		prefetchN(&pf[0], npf)
		cur := uint32(p) + mf.delta
		for i, h := range c {
			h &= uint32(len(hash4) - 1)
			c[i] = hash4[h]
			hash4[h] = cur + uint32(i)
		}
		t.hashPos += len(c)
		t.headFull <- c // never blocks: the channel holds every chunk
	}
}

// produce searches and inserts the positions of the block in order, each
// from its candidate in the consumer's chunks, up to btLanes walks at a
// time (btWalks) or one at a time (btFind), and hands their match lists on
// in position order. Before it waits for a chunk or a batch, with no walk
// left going, it hands over the positions it has done, which the consumer
// may be waiting for before it hashes more.
//
// Which way is cheaper depends on the data: side by side, the walks'
// misses overlap, which pays where the nodes lie far apart (a table of
// numbers: one at a time took 1.4 times the CPU), but taking turns costs
// more than it saves where they are near (mixed data, logs, source code:
// side by side took 1.1 to 1.25 times the CPU of one at a time). So each
// stretch of mtEpoch positions starts with a trial of mtTrial positions
// each way, timed, and walks the rest the cheaper way (the output is the
// same either way: only the time depends on the choice).
func (t *mtFinder) produce(mf *matchFinder, full, free chan []match, headFull, headFree chan []uint32) {
	defer close(t.done)
	defer close(full)
	// The trials time the thread's CPU (threadClock).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	buf, end, last := mf.buf, mf.end, t.last
	pos, cyc := mf.pos, mf.cycPos
	b := t.wb // nil: no batch held
	chunk, ci, done := t.wchunk, t.wci, 0
	// run is the distance (1-based) of the previous position's match of
	// its full limit runLimit, 0 if it had none.
	run, runLimit := uint32(0), 0
	r := &t.walks
	r.begin(mf)
	seq := 0 // positions to walk one at a time (btSerial)
	// The trials (see above): phase, the end of the epoch, the start of
	// the trial going and the time per position of the serial one.
	phase, epochEnd, trialPos := mtChosen, pos, pos
	var trialStart time.Duration
	var serialNs float64
	admitEnd := last // positions from here wait for the ring to drain
	perPos := mf.mtPerPos()
	send := func() bool {
		select {
		case full <- b:
			b = nil
			return true
		case <-t.quit:
			return false
		}
	}
	for pos < last || r.n > 0 {
		if r.n == 0 {
			// No walk going: the trials change ways here.
			switch {
			case phase == mtChosen && pos >= epochEnd:
				phase, epochEnd, trialPos, trialStart = mtSerialTrial, pos+mtEpoch, pos, threadClock()
				seq = mtTrial
			case phase == mtSerialTrial && seq == 0:
				serialNs = float64(threadClock()-trialStart) / float64(max(pos-trialPos, 1))
				phase, trialPos, trialStart = mtWalksTrial, pos, threadClock()
				admitEnd = min(last, pos+mtTrial)
			case phase == mtWalksTrial && pos >= admitEnd:
				walksNs := float64(threadClock()-trialStart) / float64(max(pos-trialPos, 1))
				phase, admitEnd = mtChosen, last
				if serialNs < walksNs*mtSerialBetter {
					seq = max(epochEnd-pos, 1)
				}
			}
			// No walk going: the chunk and the batch may change.
			if ci == len(chunk) {
				if chunk != nil {
					headFree <- chunk // never blocks
					chunk = nil
				}
				select {
				case chunk = <-headFull:
				default:
					if len(b) > 0 && !send() {
						goto out
					}
					select {
					case chunk = <-headFull:
					case <-t.quit:
						goto out
					}
				}
				ci = 0
			}
			if b == nil {
				select {
				case b = <-free:
				case <-t.quit:
					goto out
				}
				b, done = b[:0], 0
			}
			cur := uint32(pos) + mf.delta
			limit := min(end-pos, mf.nice)
			if d := run; d != 0 && cur-chunk[ci] == d && (limit < runLimit || buf[pos+limit-1] == buf[pos+limit-1-int(d)]) {
				// A long match going on: the previous position
				// matched its full limit at distance d, this one's
				// newest candidate is at the same distance and the
				// match goes on for this one's limit. Its walk
				// would stop at that first node, report it and
				// take over its subtrees, so that is done without
				// the walk (a run of repeated bytes or strings
				// costs a copy per position). takeOver goes on over
				// the next positions as long as the match does, in
				// a loop of its own.
				rs := runState{pos: pos, cyc: cyc, ci: ci, done: done, limit: runLimit}
				b = mf.takeOver(b, chunk, &rs, d, last)
				pos, cyc, ci, done, runLimit = rs.pos, rs.cyc, rs.ci, rs.done, rs.limit
				if done == mtBatchPosition || cap(b)-len(b) < perPos {
					if !send() {
						goto out
					}
				}
				continue
			}
			if seq > 0 {
				// One walk at a time (btSerial), the first node and
				// bytes of a later position prefetched.
				seq--
				mf.aheadPrefetch(chunk, ci, pos, cyc)
				mf.cycPos = cyc
				hdr := len(b)
				b = append(b, match{})
				ms := mf.btFind(b[hdr+1:hdr+1], pos, cur, chunk[ci], mf.maxDist(cur), limit, 1)
				b[hdr].len = uint32(len(ms))
				b = b[:hdr+1+len(ms)]
				run = 0
				if n := len(ms); n > 0 && ms[n-1].len == uint32(limit) {
					run, runLimit = ms[n-1].dist+1, limit
				}
				ci++
				pos++
				if cyc++; cyc == mf.cyclic {
					cyc = 0
				}
				if done++; done == mtBatchPosition || cap(b)-len(b) < perPos {
					if !send() {
						goto out
					}
				}
				continue
			}
		}
		// Admit positions while the ring, the chunk and the batch have
		// room, and start those whose tree is not being walked.
		for seq == 0 && r.n < btRing && r.nwait < btWait && pos < admitEnd && ci < len(chunk) &&
			done+r.n < mtBatchPosition && cap(b)-len(b) >= (r.n+1)*perPos {
			cur := uint32(pos) + mf.delta
			mf.aheadPrefetch(chunk, ci, pos, cyc)
			r.admit(mf, pos, cur, cyc, chunk[ci], mf.maxDist(cur), min(end-pos, mf.nice))
			ci++
			pos++
			if cyc++; cyc == mf.cyclic {
				cyc = 0
			}
		}
		r.launch()
		if r.active > 0 {
			r.step()
			if btAdapt && seq == 0 && phase == mtChosen {
				if r.n < btRing && r.nwait < btWait {
					// Positions held back by the chunk's or the
					// batch's end: the ring drains there whatever
					// the data, so those steps do not count (they
					// sent a 4 MiB UTF-16 text's positions one at
					// a time after every batch, 1.8 of its 4.2
					// million, where one thread walks 12,000 so).
					r.steps, r.calls = 0, 0
				} else if r.serial(64) {
					// The walks wait for each other: the ring
					// drains, and the next positions go one at a
					// time.
					seq = btSeqRun
				}
			}
		}
		// Hand on the finished walks' lists in position order.
		for w := r.oldest(); w != nil; w = r.oldest() {
			b = append(b, match{len: uint32(w.n)})
			b = append(b, w.out[:w.n]...)
			run = 0
			if n := w.n; n > 0 && w.out[n-1].len == uint32(w.limit) {
				run, runLimit = w.out[n-1].dist+1, w.limit
			}
			r.pop()
			done++
		}
		if r.n == 0 && (done == mtBatchPosition || cap(b)-len(b) < perPos) {
			if !send() {
				goto out
			}
		}
	}
	if len(b) > 0 {
		send()
	}
out:
	// The state a resume starts from.
	t.wpos, t.wcyc, t.wb, t.wchunk, t.wci = pos, cyc, b, chunk, ci
}

// aheadPrefetch prefetches the first node and bytes of the position
// aheadPrefetch prefetches the first node and bytes of the position
// mtAhead after pos (buffer index; tree slot cyc), whose candidate is in
// chunk at ci+mtAhead, if it is.
func (mf *matchFinder) aheadPrefetch(chunk []uint32, ci, pos int, cyc uint32) {
	k := ci + mtAhead
	if k >= len(chunk) {
		return
	}
	cur := uint32(pos) + mf.delta
	nc, ncyc := chunk[k], cyc+mtAhead
	if ncyc >= mf.cyclic {
		ncyc -= mf.cyclic
	}
	// A candidate a few KiB back has its node and bytes in the cache
	// already (the worker has just written and read them).
	if d := cur + mtAhead - nc; d-1 < mf.maxDist(cur+mtAhead) && d > nearBytes {
		s := ncyc - d
		if d > ncyc {
			s += mf.cyclic
		}
		prefetch3(&mf.son[2*s], &mf.son[2*s], &mf.buf[pos+mtAhead-int(d)])
	}
}

// runState is the worker's place in its block: the position (buffer
// index), its tree slot, the index of its candidate in the chunk, the
// positions done in the batch being filled, and the limit of the match
// going on.
type runState struct {
	pos   int
	cyc   uint32
	ci    int
	done  int
	limit int
}

// takeOver does the worker's work for the positions of a long match going
// on at distance d (1-based), from r's position, whose take-over
// condition holds: each position takes over the subtrees of its newest
// candidate, d back, and reports the match of its full limit, as its walk
// would (produce). It goes on while the next position meets the same
// condition, before last, within the chunk, and while the batch b has
// room and positions left; it returns b.
func (mf *matchFinder) takeOver(b []match, chunk []uint32, r *runState, d uint32, last int) []match {
	son, buf := mf.son, mf.buf
	pos, cyc, ci, done := r.pos, r.cyc, r.ci, r.done
	var runLimit int // set for each position taken over
	end, nice, cyclic, delta := mf.end, mf.nice, mf.cyclic, mf.delta
	limit := min(end-pos, nice)
	perPos := mf.mtPerPos()
	for {
		s := cyc - d
		if d > cyc {
			s += cyclic
		}
		son[2*cyc], son[2*cyc+1] = son[2*s], son[2*s+1]
		b = append(b, match{len: 1}, match{uint32(limit), d - 1})
		runLimit = limit
		ci++
		pos++
		if cyc++; cyc == cyclic {
			cyc = 0
		}
		done++
		if done == mtBatchPosition || cap(b)-len(b) < perPos || pos >= last || ci == len(chunk) {
			break
		}
		limit = min(end-pos, nice)
		if uint32(pos)+delta-chunk[ci] != d || limit >= runLimit && buf[pos+limit-1] != buf[pos+limit-1-int(d)] {
			break
		}
	}
	r.pos, r.cyc, r.ci, r.done, r.limit = pos, cyc, ci, done, runLimit
	return b
}

// list returns the worker's matches for the next position with room for
// hashing, mf's current one (valid until the next list is taken). Before
// it waits for the worker, it hashes the positions the worker needs.
func (t *mtFinder) list(mf *matchFinder) []match {
	for t.i >= len(t.cur) {
		if t.cur != nil {
			t.free <- t.cur
			t.cur = nil
		}
		t.feed(mf, mf.pos+1)
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

// shortAhead looks up and updates the direct tables (2 and 3 bytes and,
// with 5-byte main hashing, 4) for the positions from the current one (or
// the first not yet done) up to hashAhead ahead, those with mf.hb bytes,
// keeping their candidates in mf.ph as hashNext does. The main table is
// feed's. Done a stretch at a time, the tables' cache misses overlap,
// where looking each position up as it comes stalls on every one.
func (mf *matchFinder) shortAhead() {
	p := int(mf.hcur - mf.delta)
	if mf.hcur < mf.delta || p < mf.pos {
		p = mf.pos
	}
	stop := min(mf.pos+hashAhead, mf.end-mf.hb+1)
	buf := mf.buf
	hash2, hash3 := mf.hash2, mf.hash3
	// The far candidates' bytes are prefetched together after the loop
	// (one call of prefetchN instead of one call each).
	var pf [2 * hashAhead]uintptr
	npf := 0
	bp := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	for ; p < stop; p++ {
		b := buf[p : p+mf.hb]
		cur := uint32(p) + mf.delta
		e := &mf.ph[cur&(hashAhead-1)]
		h2 := hash2of(b)
		h3 := mf.hash3of(b)
		e.c2, e.c3 = hash2[h2], hash3[h3]
		hash2[h2], hash3[h3] = cur, cur
		// The 3-byte candidate lies tens of KiB back on average, out
		// of the first-level cache: its byte, which shortMatches
		// compares first, is fetched ahead too.
		// A candidate a few KiB back is in the cache already (the
		// consumer has just read those bytes).
		if mf.hb == 5 {
			h := mf.hash4bOf(b)
			e.c4b = mf.hash4b[h]
			mf.hash4b[h] = cur
			if d := uint(cur - e.c4b); d > nearBytes && d <= uint(p) {
				pf[npf&(2*hashAhead-1)] = bp + uintptr(uint(p)-d)
				npf++
			}
		}
		if d := uint(cur - e.c3); d > nearBytes && d <= uint(p) {
			pf[npf&(2*hashAhead-1)] = bp + uintptr(uint(p)-d)
			npf++
		}
	}
	prefetchN(&pf[0], min(npf, len(pf)))
	if p > mf.pos {
		mf.hcur = uint32(p) + mf.delta
	}
}

// shortSkip stores the position at buffer index pos (absolute+1 cur, the
// first not hashed ahead, with mf.hb bytes) in the direct tables, as
// shortAhead does, for a position that is skipped: its candidates are
// never read, so they are not kept, and their bytes not prefetched. On
// long runs of skipped positions (runs of repeated bytes) shortAhead took
// about a third of the consumer's time (perf, 4 MiB of runs, -mx5 -mmt2).
func (mf *matchFinder) shortSkip(pos int, cur uint32) {
	b := mf.buf[pos : pos+mf.hb]
	mf.hash2[hash2of(b)] = cur
	mf.hash3[mf.hash3of(b)] = cur
	if mf.hb == 5 {
		mf.hash4b[mf.hash4bOf(b)] = cur
	}
	mf.hcur = cur + 1
}

// skipN advances mf over its next n positions without searching them: it
// updates the direct tables and drops the positions' tree matches. A
// position not hashed ahead yet only has its tables updated (shortSkip).
func (t *mtFinder) skipN(mf *matchFinder, n int) {
	for ; n > 0; n-- {
		pos := mf.pos
		if mf.end-pos >= mf.hb {
			if cur := uint32(pos) + mf.delta; mf.hcur <= cur {
				mf.shortSkip(pos, cur)
			}
			if t.i < len(t.cur) {
				t.i += 1 + int(t.cur[t.i].len)
			} else {
				t.list(mf)
			}
		}
		mf.advance()
	}
}

// stop ends the worker (if still running) and waits for it.
func (t *mtFinder) stop() {
	if !t.running && !t.paused {
		return
	}
	if t.running {
		close(t.quit)
		<-t.done
	}
	t.running, t.paused = false, false
	t.wb, t.wchunk = nil, nil
	t.cur = nil
	t.full, t.free = nil, nil
	t.headFull, t.headFree = nil, nil
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
	// The direct tables' matches and the worker's list, with no call
	// but shortMatches in the common case.
	mf, t := e.mf, e.mt
	pos := mf.pos
	if mf.end-pos < mf.hb {
		mf.advance()
		return dst[:0]
	}
	cur := uint32(pos) + mf.delta
	if mf.hcur <= cur {
		mf.shortAhead()
	}
	ph := &mf.ph[cur&(hashAhead-1)]
	ms, best := mf.shortMatches(dst[:0], pos, cur, ph.c2, ph.c3, ph.c4b, mf.maxDist(cur), min(mf.end-pos, mf.nice))
	var tree []match
	if i := t.i; i < len(t.cur) {
		n := int(t.cur[i].len)
		tree = t.cur[i+1 : i+1+n]
		t.i = i + 1 + n
	} else {
		tree = t.list(mf)
	}
	mf.advance()
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
	e.mt.skipN(e.mf, n)
}
