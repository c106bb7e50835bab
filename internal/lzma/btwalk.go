package lzma

import (
	"unsafe"
)

// Interleaved tree walks
//
// A binary-tree walk is a chain of dependent loads: each node's links
// name the next node, so one walk waits for a cache miss at every step
// (on a table of numbers, where a walk takes its full mf.cycles nodes,
// the loads of the nodes are nearly all of the walk's time). Walks of
// positions whose hashes differ read and write disjoint trees, so they
// can run side by side: the two-thread finder's worker keeps up to
// btLanes walks going, steps each in turn by one node and prefetches
// that walk's next node and bytes, so that their misses overlap; the
// single-threaded finder does the same for the positions ahead of the
// parser (walkTo) and keeps their match lists until the parser gets
// there. On a 4 MiB table of numbers, a -mx5 -mmt1 took 0.60 times the
// CPU of walking one position at a time.
//
// Positions join the ring in order (admit) and start when the walk of
// their candidate (the newest earlier position of their hash, the root
// of their tree) has finished, later ones possibly first (launch): then
// every earlier position of its tree has finished, as each one started
// under the same rule. Each walk does exactly what a walk alone would do
// for its position (btFind), and the
// walks' match lists are handed on in position order, so the output is
// the same as one walk at a time (TestBtWalksMatchBtFind,
// TestMTFinderMatchesSingle, TestThreadsIdentical).
//
// One place is shared: a tree slot belongs to the position a whole
// cyclic buffer back until a new position claims it, and a walk may
// still reach the old position at the far end of its dictionary after a
// later walk, started since, has claimed (and begun to rewrite) its slot.
// So a walk's start keeps its slot's old links in old, and until that
// walk is handed on, the earlier walks read and write the old position's
// links there: the ones they visit later (pair) and the ones they were
// about to fill when it started (start redirects their p0 and p1).

const (
	// btLanes is how many walks go on at once.
	btLanes = 8
	// btRing is how many positions can be between the oldest whose
	// list is not handed on yet and the newest started: a long walk
	// holds the ring's head while shorter ones behind it finish.
	btRing = 64
	// btWait is how many positions may wait to start at once, their
	// tree's walk going on, while later ones start.
	btWait = 32
	// When the walks of a stretch went on fewer than btSerial at a time
	// on average (step), the next btSeqRun positions walk one at a time:
	// where positions wait for each other (the last positions of runs
	// of zeros, whose walks are long and each on the tree of the one
	// before), taking turns costs more than the misses it overlaps. On a
	// tar of Go's sources two walks went on at a time, and the finder
	// took 1.3-1.5 times the CPU of walking one at a time.
	btSerial = 3
	btSeqRun = 4096
)

// btWalk is one position's walk in progress. Its walk from the newest
// node cand lists the matches longer than best it passes (lengths
// strictly increasing, at most limit) and re-roots the tree at the
// position: nodes whose suffix is smaller hang to its left, greater ones
// to its right. It stops after cycles nodes, past the dictionary, or at a
// match of the full limit, whose subtrees the position takes over.
type btWalk struct {
	cand, cur uint32
	cyc, maxD uint32
	steps     int
	cp        unsafe.Pointer // the position's bytes
	p0, p1    unsafe.Pointer // the links to fill
	len0      int
	len1      int
	limit     int
	best      int
	n         int       // matches found, in out
	state     uint8     // btWaiting, btGoing or btDone
	old       [2]uint32 // the slot's links before the start: see above
	out       [maxMatchLen]match
}

// btAdapt lets the finders walk one position at a time where the walks
// would wait for each other (btSerial); the tests turn it off to check
// the walks side by side on every input.
var btAdapt = true

// A walk's states.
const (
	btWaiting = iota // admitted to the ring, not started
	btGoing
	btDone
)

// btWalks is a ring of walks in position order: head is the oldest, n
// how many there are; act[:active] are the ring indices of those still
// going.
type btWalks struct {
	w       [btRing]btWalk
	head, n int
	active  int
	act     [btLanes]int
	// wait[:nwait] are the ring indices of the walks waiting to start,
	// in position order.
	wait  [btWait]int
	nwait int
	// The first nblocked waiting walks could not start at the last
	// launch, and none has finished since (fin is false): they still
	// cannot.
	nblocked int
	fin      bool
	// pf[:npf] are the addresses to prefetch at the next step: of
	// walks started since the last one and of the walks' next nodes.
	pf  [3 * btLanes]uintptr
	npf int
	// steps and calls count the walks' steps and the step calls since
	// begin or the last count (serial).
	steps, calls int
	newest       uint32         // the cur of the newest walk started
	sb           unsafe.Pointer // mf.son's first pair
	cyclic       uint32
	cycles       int
}

// begin readies the ring for mf's tree and buffer.
func (r *btWalks) begin(mf *matchFinder) {
	r.head, r.n, r.active, r.npf, r.nwait, r.nblocked = 0, 0, 0, 0, 0, 0
	r.steps, r.calls = 0, 0
	if len(mf.son) < 2*int(mf.cyclic) || mf.cyclic <= btRing {
		panic("lzma: match finder state out of range")
	}
	r.sb = unsafe.Pointer(unsafe.SliceData(mf.son))
	r.cyclic, r.cycles = mf.cyclic, mf.cycles
}

// admit adds buffer index pos (absolute+1 cur, tree slot cyc, newest
// candidate cand, distances up to maxD, matches up to limit) to the ring,
// which has room for it and its waiting list for one more, as a walk
// waiting to start.
func (r *btWalks) admit(mf *matchFinder, pos int, cur, cyc, cand, maxD uint32, limit int) {
	if cyc >= r.cyclic || maxD >= r.cyclic || int(maxD) > pos || pos+limit > mf.end || limit < 1 || mf.end > len(mf.buf) {
		panic("lzma: match finder state out of range")
	}
	k := r.head + r.n
	if k >= btRing {
		k -= btRing
	}
	r.n++
	w := &r.w[k]
	w.cand, w.cur, w.cyc, w.maxD = cand, cur, cyc, maxD
	w.cp = unsafe.Pointer(&mf.buf[pos])
	w.limit, w.best, w.n = limit, 1, 0
	w.state = btWaiting
	r.newest = cur
	r.wait[r.nwait] = k
	r.nwait++
}

// launch starts, in position order, the waiting walks whose candidate's
// walk has finished (or lies before the ring), while lanes are free.
func (r *btWalks) launch() {
	headCur := r.w[r.head].cur
	i := r.nblocked
	if r.fin {
		i = 0
	}
	r.fin = false
	for i < r.nwait && r.active < btLanes {
		k := r.wait[i]
		if c := r.w[k].cand; c >= headCur && r.slot(c).state != btDone {
			i++
			continue
		}
		copy(r.wait[i:r.nwait], r.wait[i+1:r.nwait])
		r.nwait--
		r.start(k)
	}
	r.nblocked = i
}

// slot returns the walk of cur, which is in the ring.
func (r *btWalks) slot(cur uint32) *btWalk {
	i := r.n - 1 - int(r.newest-cur)
	if uint(i) >= uint(r.n) {
		panic("lzma: tree walk outside the ring")
	}
	k := r.head + i
	if k >= btRing {
		k -= btRing
	}
	return &r.w[k]
}

// pair returns where the links of the node of position cand (in the
// dictionary of a walk started) are: its tree slot s, or, when a walk
// started since has claimed that slot, that walk's copy.
func (r *btWalks) pair(cand, s uint32) unsafe.Pointer {
	if r.newest-cand >= r.cyclic {
		if w := r.slot(cand + r.cyclic); w.state != btWaiting {
			return unsafe.Pointer(&w.old)
		}
	}
	return unsafe.Add(r.sb, uintptr(s)*8)
}

// start starts the walk in ring slot k: it takes over a long match at
// once, ends at once when the candidate is out of reach, or goes on
// (step), its first node to be prefetched.
func (r *btWalks) start(k int) {
	w := &r.w[k]
	cyc, cur, cand := w.cyc, w.cur, w.cand
	own := unsafe.Add(r.sb, uintptr(cyc)*8)
	w.old = [2]uint32{*(*uint32)(own), *(*uint32)(unsafe.Add(own, 4))}
	for _, j := range r.act[:r.active] {
		// Walks going that are about to fill the old position's links
		// fill its copy instead.
		v := &r.w[j]
		if uintptr(v.p0)-uintptr(own) < 8 {
			v.p0 = unsafe.Add(unsafe.Pointer(&w.old), uintptr(v.p0)-uintptr(own))
		}
		if uintptr(v.p1)-uintptr(own) < 8 {
			v.p1 = unsafe.Add(unsafe.Pointer(&w.old), uintptr(v.p1)-uintptr(own))
		}
	}
	w.steps = r.cycles
	w.p0 = unsafe.Add(own, 4)
	w.p1 = own
	w.len0, w.len1 = 0, 0
	w.state = btDone
	d := cur - cand
	s := cyc - d
	if d > cyc {
		s += r.cyclic
	}
	if k != r.head {
		// A long match going on (see produce): the previous position
		// has finished on a match of its full limit at distance d,
		// this one's newest candidate is d back and the match goes on
		// for this one's limit, so its walk would stop at that first
		// node and take over its subtrees. (No walk going is on this
		// position's tree.)
		j := k - 1
		if j < 0 {
			j = btRing - 1
		}
		t := &r.w[j]
		limit := w.limit
		if t.state == btDone && t.n > 0 && t.out[t.n-1].len == uint32(t.limit) && t.out[t.n-1].dist+1 == d &&
			(limit < t.limit || *(*byte)(unsafe.Add(w.cp, limit-1)) == *(*byte)(unsafe.Add(w.cp, limit-1-int(d)))) {
			pair := r.pair(cand, s)
			*(*uint32)(own), *(*uint32)(unsafe.Add(own, 4)) = *(*uint32)(pair), *(*uint32)(unsafe.Add(pair, 4))
			w.out[0] = match{uint32(limit), d - 1}
			w.n = 1
			return
		}
	}
	if w.steps <= 0 || d-1 >= w.maxD {
		*(*uint32)(w.p0) = 0
		*(*uint32)(w.p1) = 0
		return
	}
	w.state = btGoing
	r.act[r.active] = k
	r.active++
	r.pf[r.npf] = uintptr(r.sb) + uintptr(s)*8
	r.pf[r.npf+1] = uintptr(w.cp) - uintptr(d)
	r.npf += 2
}

// retire ends the walk at act[i], whose links the caller has closed: it
// is done, and the last walk going takes its place in act.
func (r *btWalks) retire(i int) {
	r.w[r.act[i]].state = btDone
	r.fin = true
	r.active--
	r.act[i] = r.act[r.active]
}

// step moves every walk still going on by one node, prefetching each
// one's next node and the byte it compares first. It indexes the tree and
// the buffer without bounds checks (it is the encoder's hottest loop):
// start checked them once, a node's slot is below cyclic (d is in
// [1, maxD] and maxD < cyclic), the tree holds 2*cyclic links, and the
// bytes compared lie in buf[pos-maxD : pos+limit].
func (r *btWalks) step() {
	sb, cyclic := r.sb, r.cyclic
	r.calls++
	r.steps += r.active
	prefetchN(&r.pf[0], r.npf)
	npf := 0
	for i := 0; i < r.active; i++ {
		w := &r.w[r.act[i]]
		cand, cur, cyc := w.cand, w.cur, w.cyc
		d := cur - cand
		s := cyc - d
		if d > cyc {
			s += cyclic
		}
		pair := unsafe.Add(sb, uintptr(s)*8)
		if r.newest-cand >= cyclic {
			// The node's slot may be claimed by a later walk.
			pair = r.pair(cand, s)
		}
		left, right := *(*uint32)(pair), *(*uint32)(unsafe.Add(pair, 4))
		cp := w.cp
		jp := unsafe.Add(cp, -int(d))
		l := min(w.len0, w.len1)
		limit := w.limit
		a, b := *(*byte)(unsafe.Add(jp, l)), *(*byte)(unsafe.Add(cp, l))
		if a == b {
			l++
			l = matchLenAt(cp, jp, l, limit)
			if l > w.best {
				w.out[w.n] = match{uint32(l), d - 1}
				w.n++
				w.best = l
			}
			if l >= limit {
				*(*uint32)(w.p1) = left
				*(*uint32)(w.p0) = right
				r.retire(i)
				i--
				continue
			}
			a, b = *(*byte)(unsafe.Add(jp, l)), *(*byte)(unsafe.Add(cp, l))
		}
		if a < b {
			*(*uint32)(w.p1) = cand
			w.p1 = unsafe.Add(pair, 4)
			cand = right
			w.len1 = l
		} else {
			*(*uint32)(w.p0) = cand
			w.p0 = pair
			cand = left
			w.len0 = l
		}
		w.cand = cand
		d = cur - cand
		if w.steps--; w.steps == 0 || d-1 >= w.maxD {
			*(*uint32)(w.p0) = 0
			*(*uint32)(w.p1) = 0
			r.retire(i)
			i--
			continue
		}
		s = cyc - d
		if d > cyc {
			s += cyclic
		}
		r.pf[npf] = uintptr(sb) + uintptr(s)*8
		r.pf[npf+1] = uintptr(cp) + uintptr(min(w.len0, w.len1)) - uintptr(d)
		npf += 2
	}
	prefetchN(&r.pf[0], npf)
	r.npf = 0
}

// oldest returns the walk at the ring's head if it has finished, or nil.
func (r *btWalks) oldest() *btWalk {
	if r.n == 0 || r.w[r.head].state != btDone {
		return nil
	}
	return &r.w[r.head]
}

// pop drops the finished walk at the ring's head.
func (r *btWalks) pop() {
	if r.head++; r.head == btRing {
		r.head = 0
	}
	r.n--
}

// serial reports, when at least min step calls were counted, whether the
// walks went on fewer than btSerial at a time, and starts a new count.
func (r *btWalks) serial(min int) bool {
	if r.calls < min {
		return false
	}
	few := r.steps < btSerial*r.calls
	r.steps, r.calls = 0, 0
	return few
}

// reset empties the ring.
func (r *btWalks) reset() {
	r.head, r.n, r.active, r.npf, r.nwait, r.nblocked = 0, 0, 0, 0, 0, 0
}

// walkTo returns the finished walk of mf's current position (which has
// room for hashing), the ring's head, walking it now if the ring is empty
// (the single-threaded finder's walks ahead). With the position it walks
// the next ones, up to btRing: the next want-1 if they have room for
// hashing, and beyond those the ones whose limit is the nice length
// whatever comes after the buffer's end (a streaming Writer's end moves
// on between calls), and all of them with their candidates hashed
// already or within hashNext's reach. It finishes every walk it starts
// before it returns, so that the buffer may move between calls: the ring
// keeps only match lists.
func (mf *matchFinder) walkTo(want int) *btWalk {
	r := mf.walks
	if r.n > 0 {
		return &r.w[r.head]
	}
	r.begin(mf)
	cyc := mf.cycPos
	for {
		for r.n < btRing && r.nwait < btWait {
			q := mf.pos + r.n
			if r.n < want {
				if mf.end-q < mf.hb {
					break
				}
			} else if mf.end-q < mf.nice {
				break
			}
			cur := uint32(q) + mf.delta
			if mf.hcur <= cur {
				mf.hashNext()
				if mf.hcur <= cur {
					break
				}
			}
			r.admit(mf, q, cur, cyc, mf.ph[cur&(hashAhead-1)].c4, mf.maxDist(cur), min(mf.end-q, mf.nice))
			if cyc++; cyc == mf.cyclic {
				cyc = 0
			}
		}
		if r.n == 0 {
			break
		}
		r.launch()
		if r.active == 0 {
			break
		}
		r.step()
	}
	if r.n == 0 {
		panic("lzma: match finder walked no position")
	}
	if btAdapt && r.serial(1) {
		mf.seq = btSeqRun
	}
	return &r.w[r.head]
}
