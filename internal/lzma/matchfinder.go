package lzma

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// match is one match candidate: length and 0-based distance.
type match struct {
	len, dist uint32
}

// matchFinder finds, at each position of its buffer, the matches of
// increasing length that start within the dictionary. Positions stored in
// the tables are absolute stream positions plus one (0 means empty); a
// buffer index i corresponds to the absolute position i+delta-1.
//
// The hash-chain variant (hc4) keeps for every position the previous one
// with the same 4-byte hash; the binary-tree variant (bt4) keeps the
// positions with the same hash in a binary search tree ordered by the
// bytes that follow them, re-rooted at every insertion, which finds the
// longest matches with far fewer comparisons. Both look up 2- and 3-byte
// matches in small direct tables first.
type matchFinder struct {
	bt    bool
	buf   []byte // buf[:end] is valid data
	end   int
	pos   int    // buffer index of the next position to process
	delta uint32 // absolute+1 = index + delta
	// base is the buffer index of the first position since the tables
	// were emptied: no match reaches before it (0 once it is more than a
	// dictionary behind).
	base     uint32
	dictSize uint32
	cyclic   uint32 // dictSize+1
	cycPos   uint32 // (absolute position of pos, plus one) % cyclic
	nice     int    // stop searching at this length
	cycles   int    // chain/tree steps per position
	// giveUp and aheadGiveUp, when above 0, end a hash-chain walk that
	// has found no match longer than the short tables' after that many
	// steps: giveUp for searches, aheadGiveUp for the fast parser's
	// lookahead (fastGiveUp).
	giveUp, aheadGiveUp int

	hash2  []uint32 // 2-byte hash table, 1<<hc2Bits (hash2of)
	hash3  []uint32 // 3-byte hash: up to 1<<16 (binary trees), 1<<hc3Bits (hash chains)
	hash4  []uint32
	hash4b []uint32 // binary trees with 5-byte main hashing: one 4-byte candidate, up to 1<<18
	// tablesZero is set while the hash tables are known to hold only
	// zeros (newly made), so that reset need not clear them.
	tablesZero bool
	h4shift    uint
	// h3shift and h4bshift size the binary trees' 3-byte and 4-byte
	// hashes to their tables.
	h3shift, h4bshift uint
	hb                int      // bytes hashed for the main table: 4 or 5
	son               []uint32 // chain (hc) or tree pairs (bt), indexed by abs % cyclic
	// walks holds the binary tree's walks ahead (btwalk.go); for the
	// next seq positions the walks go one at a time.
	walks *btWalks
	seq   int

	// Hashing ahead: the hash tables do not depend on the tree, so the
	// candidates of the next positions are looked up (and the tables
	// updated) in one tight loop whose cache misses overlap, before the
	// tree walks that use them. ph holds them by absolute position
	// modulo hashAhead; positions before hcur (absolute+1) are done.
	ph     [hashAhead]preHash
	hcur   uint32
	hlimit int // if > 0, the buffer index hashing ahead stops at
}

// hashAhead is how many positions are hashed ahead of the tree walk.
const hashAhead = 64

// preHash is one position's hash-table candidates (absolute+1, 0 none).
type preHash struct {
	c2, c3, c4, c4b uint32
}

// normalizeAt is the position offset at which the streaming Writer
// rebases its tables, so that stored positions (uint32) never wrap however
// long the stream. A variable so that tests can make it happen often.
var normalizeAt uint32 = 1 << 30

// rebase subtracts sub from the stored positions of t, emptying those
// not above it.
func rebase(t []uint32, sub uint32) {
	for i, v := range t {
		if v > sub {
			t[i] = v - sub
		} else {
			t[i] = 0
		}
	}
}

// normalize rebases stored positions so that delta becomes small, and
// returns what it subtracted from them.
func (mf *matchFinder) normalize() uint32 {
	// Keep positions congruent modulo the cyclic size: the chain/tree
	// slots are indexed by them.
	sub := (mf.delta - 1) / mf.cyclic * mf.cyclic
	fix := func(t []uint32) { rebase(t, sub) }
	fix(mf.hash2)
	fix(mf.hash3)
	fix(mf.hash4)
	fix(mf.hash4b)
	fix(mf.son)
	// The hashed-ahead candidates are kept by absolute position modulo
	// hashAhead, which sub (a multiple of cyclic) need not preserve:
	// they move to their new positions' slots.
	old := mf.ph
	for i, e := range old {
		fix4 := [4]uint32{e.c2, e.c3, e.c4, e.c4b}
		fix(fix4[:])
		mf.ph[(uint32(i)-sub)&(hashAhead-1)] = preHash{fix4[0], fix4[1], fix4[2], fix4[3]}
	}
	if mf.hcur > sub {
		mf.hcur -= sub
	} else {
		mf.hcur = 0
	}
	mf.delta -= sub
	return sub
}

// hashNext looks up and inserts the positions from the current one (or
// the first not yet hashed) up to hashAhead ahead, those with mf.hb bytes
// available.
func (mf *matchFinder) hashNext() {
	p := int(mf.hcur - mf.delta)
	if mf.hcur < mf.delta || p < mf.pos {
		p = mf.pos
	}
	stop := min(mf.pos+hashAhead, mf.end-mf.hb+1)
	if mf.hlimit > 0 {
		stop = min(stop, mf.hlimit)
	}
	buf := mf.buf
	hash2, hash3, hash4 := mf.hash2, mf.hash3, mf.hash4
	for ; p < stop; p++ {
		b := buf[p : p+mf.hb]
		cur := uint32(p) + mf.delta
		e := &mf.ph[cur&(hashAhead-1)]
		h2 := hash2of(b)
		h3 := mf.hash3of(b)
		h4 := mf.mainHash(b)
		e.c2, e.c3, e.c4 = hash2[h2], hash3[h3], hash4[h4]
		hash2[h2], hash3[h3], hash4[h4] = cur, cur, cur
		if mf.hb == 5 {
			h := mf.hash4bOf(b)
			e.c4b = mf.hash4b[h]
			mf.hash4b[h] = cur
		}
	}
	if p > mf.pos {
		mf.hcur = uint32(p) + mf.delta
	}
}

// preHashed returns the candidates of the current position (which has
// mf.hb bytes available), hashing ahead when needed.
func (mf *matchFinder) preHashed(cur uint32) *preHash {
	if mf.hcur <= cur {
		mf.hashNext()
	}
	return &mf.ph[cur&(hashAhead-1)]
}

// newMatchFinder returns a finder for the given dictionary.
func newMatchFinder(bt bool, hashBytes int, dictSize uint32, nice, cycles int) *matchFinder {
	mf := &matchFinder{bt: bt, hb: hashBytes, dictSize: dictSize, cyclic: dictSize + 1, nice: nice, cycles: cycles}
	dbits := bits.Len32(dictSize-1) - 1
	hbits := dbits
	if !bt && hashBytes == 5 {
		// The hash chains' main table has half as many slots as
		// the dictionary has positions, as 7-Zip sizes it, and at
		// least 2^18 with 5-byte hashes. One slot a position kept
		// the chains' collisions down, but its table was twice
		// 7-Zip's (mx4: 64 MiB against 32 MiB), which put the peak
		// memory above 7zz's, for output 0.003 to 0.07 % smaller at
		// mx2 to mx4 (32 MiB of mixed data, logs, executables).
		hbits = max(hbits, 18)
	}
	// The tables of a small dictionary (a stream sized to its short
	// input, such as a 7z header) have about as many slots as it has
	// positions: 7-Zip's floor of 2^16 main and 3-byte slots made the
	// header of a one-file archive touch 180 pages of them
	// (smallTableBits).
	small := max(dbits+1, smallTableBits)
	hbits = min(max(hbits, min(small, 16)), 24)
	mf.h4shift = uint(32 - hbits)
	mf.hash2 = make([]uint32, 1<<hc2Bits)
	if bt {
		h3bits := min(small, 16)
		mf.h3shift = uint(32 - h3bits)
		mf.hash3 = make([]uint32, 1<<h3bits)
		if hashBytes == 5 {
			h4bbits := min(small, 18)
			mf.h4bshift = uint(32 - h4bbits)
			mf.hash4b = make([]uint32, 1<<h4bbits)
		}
	} else {
		// The hash-chain finder uses a small 3-byte table and no
		// 4-byte one beside 5-byte main hashing.
		mf.hash3 = make([]uint32, 1<<hc3Bits)
	}
	// The main table and the chain or tree share one allocation (at
	// level 1 exactly one huge page of 2 MiB, and 4 bytes).
	n := int(mf.cyclic)
	if bt {
		n *= 2
	}
	tables := hugeUint32s(1<<hbits + n)
	mf.hash4 = tables[: 1<<hbits : 1<<hbits]
	mf.son = tables[1<<hbits:]
	// The tables are new, so zero: the first reset need not clear them
	// (clearing touches every page, which the hash-chain finder's small
	// inputs and sparse tables otherwise never do).
	mf.tablesZero = true
	if bt {
		mf.walks = new(btWalks)
	}
	return mf
}

// reset empties the tables and sets the buffer to data (borrowed).
func (mf *matchFinder) reset(data []byte) {
	if !mf.tablesZero {
		mf.clearHashes()
	}
	mf.tablesZero = false
	// son entries are only reached through the hash tables, so they need
	// no clearing: every reachable entry was written after the reset.
	mf.buf = data
	mf.end = len(data)
	mf.pos = 0
	mf.base = 0
	mf.delta = 1
	mf.cycPos = 1 % mf.cyclic
	mf.hcur = 0
	mf.hlimit = 0
	if mf.walks != nil {
		mf.walks.reset()
		mf.seq = 0
	}
}

// clearHashes empties the hash tables (the son entries are reached only
// through them).
func (mf *matchFinder) clearHashes() {
	clear(mf.hash2)
	clear(mf.hash3)
	clear(mf.hash4)
	clear(mf.hash4b)
}

// restart empties the tables, as reset does, but keeps the buffer and the
// positions (a sliding window): the next position is the buffer index
// pos, and no match reaches before it.
func (mf *matchFinder) restart(pos int) {
	mf.clearHashes()
	mf.tablesZero = false
	mf.pos = pos
	mf.base = uint32(pos)
	mf.cycPos = (uint32(pos) + mf.delta) % mf.cyclic
	mf.hcur = 0
	mf.hlimit = 0
	if mf.walks != nil {
		mf.walks.reset()
		mf.seq = 0
	}
}

// advance moves to the next position.
func (mf *matchFinder) advance() {
	mf.pos++
	mf.cycPos++
	if mf.cycPos == mf.cyclic {
		mf.cycPos = 0
	}
}

// mainHash hashes the first 4 or 5 bytes of b (len(b) >= mf.hb).
func (mf *matchFinder) mainHash(b []byte) uint32 {
	if mf.hb == 5 {
		v := uint64(binary.LittleEndian.Uint32(b)) | uint64(b[4])<<32
		return uint32((v * 0x9E3779B97F4A7C15) >> (32 + mf.h4shift))
	}
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> mf.h4shift
}

// hash4bOf is the 4-byte hash (len(hash4b) entries) used beside 5-byte
// main hashing by the binary trees.
func (mf *matchFinder) hash4bOf(b []byte) uint32 {
	return (binary.LittleEndian.Uint32(b) * 2654435761) >> (mf.h4bshift & 31)
}

// hash2of hashes the first 2 bytes of b to 10 bits (as 7-Zip's 2-byte
// table: it stays in the first-level cache).
func hash2of(b []byte) uint32 {
	return (uint32(b[0]) | uint32(b[1])<<8) * 0x9E3779B1 >> (32 - hc2Bits)
}

// hash3of is the binary trees' 3-byte hash (len(hash3) entries).
func (mf *matchFinder) hash3of(b []byte) uint32 {
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	return (v * 506832829) >> (mf.h3shift & 31)
}

// matchLen returns how many bytes a[i:] and a[j:] share, up to limit
// (0 <= j < i, i+limit <= len(a)). The parser calls it at every position
// for every rep, so after checking the arguments once it compares
// without bounds checks, eight bytes at a time.
func matchLen(a []byte, i, j, limit int) int {
	if limit <= 0 {
		return 0
	}
	if uint(j) >= uint(i) || i+limit > len(a) {
		panic("lzma: matchLen out of range")
	}
	return matchLenAt(unsafe.Pointer(&a[i]), unsafe.Pointer(&a[j]), 0, limit)
}

// matchLenAt is matchLen for the bytes at p and q, which the caller
// has checked: limit bytes can be read from both. Their first n bytes are
// known to be equal; the comparison starts after them.
func matchLenAt(p, q unsafe.Pointer, n, limit int) int {
	for n+8 <= limit {
		if x := load64(unsafe.Add(p, n)) ^ load64(unsafe.Add(q, n)); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < limit && *(*byte)(unsafe.Add(p, n)) == *(*byte)(unsafe.Add(q, n)) {
		n++
	}
	return n
}

// maxDist returns the largest usable distance (1-based) at buffer index
// pos.
func (mf *matchFinder) maxDist(cur uint32) uint32 {
	// cur-delta = buffer index; history is all of buf before it from
	// base.
	h := cur - mf.delta - mf.base
	if h > mf.dictSize {
		h = mf.dictSize
	}
	return h
}

// find appends the matches at the current position to ms (lengths
// strictly increasing, at most limit = min(nice, avail)) and advances one
// position.
func (mf *matchFinder) find(ms []match) []match {
	if !mf.bt {
		return mf.hcGetMatches(ms)
	}
	ms = ms[:0]
	pos := mf.pos
	limit := mf.end - pos
	if limit > mf.nice {
		limit = mf.nice
	}
	if limit < mf.hb {
		// Too close to the end for hashing.
		mf.advance()
		return ms
	}
	buf := mf.buf
	cur := uint32(pos) + mf.delta
	maxD := mf.maxDist(cur)
	ph := mf.preHashed(cur)
	ms, best := mf.shortMatches(ms, pos, cur, ph.c2, ph.c3, ph.c4b, maxD, limit)
	if mf.walks.n == 0 && mf.seq > 0 {
		// One walk at a time (btwalk.go: where the walks would wait
		// for each other). The next position's first node and bytes
		// are prefetched, so that their misses overlap this search.
		mf.seq--
		if cur+1 < mf.hcur {
			nc := mf.ph[(cur+1)&(hashAhead-1)].c4
			if d := cur + 1 - nc; d-1 < maxD {
				s := mf.cycPos + 1
				if d > s {
					s += mf.cyclic
				}
				s -= d
				prefetch3(&mf.son[2*s], &mf.son[2*s], &buf[pos+1-int(d)])
			}
		}
		ms = mf.btFind(ms, pos, cur, ph.c4, maxD, limit, best)
	} else {
		// The tree's matches, from walks several positions at a
		// time (btwalk.go): those longer than the short ones, as a
		// walk that started from best would have reported them.
		w := mf.walkTo(1)
		for _, m := range w.out[:w.n] {
			if int(m.len) > best {
				ms = append(ms, m)
			}
		}
		mf.walks.pop()
	}
	if debugChecks {
		for _, m := range ms {
			for i := 0; i < int(m.len); i++ {
				if buf[pos+i] != buf[pos+i-int(m.dist)-1] {
					panic(fmt.Sprintf("mf bad match at %d: %v (byte %d)", pos, m, i))
				}
			}
		}
	}
	mf.advance()
	return ms
}

// shortMatches appends the matches of the direct 2- and 3-byte tables
// (and, with 5-byte main hashing, of the 4-byte one) at pos, given their
// candidates, and returns the longest length found (1 if none).
func (mf *matchFinder) shortMatches(ms []match, pos int, cur, c2, c3, c4b, maxD uint32, limit int) ([]match, int) {
	buf := mf.buf
	best := 1
	d2 := cur - c2
	if d2 <= maxD && d2 > 0 && buf[pos-int(d2)] == buf[pos] && buf[pos+1-int(d2)] == buf[pos+1] {
		l := 2 + matchLen(buf, pos+2, pos+2-int(d2), limit-2)
		ms = append(ms, match{uint32(l), d2 - 1})
		best = l
	}
	d3 := cur - c3
	if d3 != d2 && d3 <= maxD && d3 > 0 && buf[pos-int(d3)] == buf[pos] {
		l := matchLen(buf, pos, pos-int(d3), limit)
		if l >= 3 && l > best {
			ms = append(ms, match{uint32(l), d3 - 1})
			best = l
		}
	}
	if mf.hb == 5 {
		d4 := cur - c4b
		if d4 != d2 && d4 != d3 && d4 <= maxD && d4 > 0 && best < limit {
			j := pos - int(d4)
			if binary.LittleEndian.Uint32(buf[j:]) == binary.LittleEndian.Uint32(buf[pos:]) {
				l := 4 + matchLen(buf, pos+4, j+4, limit-4)
				if l > best {
					ms = append(ms, match{uint32(l), d4 - 1})
					best = l
				}
			}
		}
	}
	return ms, best
}

// btFind walks the binary tree of the current position's hash from its
// newest node cand, appending the matches longer than best it passes
// (lengths strictly increasing, at most limit), and re-roots the tree at
// the current position: nodes whose suffix is smaller hang to its left,
// greater ones to its right. The walk stops after mf.cycles nodes, past
// the dictionary, or at a match of the full limit, whose subtrees the
// current position takes over.
//
// This is the encoder's hottest loop, so it indexes the tree and the
// buffer without bounds checks. The indices are safe by construction and
// checked once per call: a node's slot is below cyclic (d is in
// [1, maxD] and maxD < cyclic), the tree holds 2*cyclic links, and the
// bytes compared lie in buf[pos-maxD : pos+limit].
func (mf *matchFinder) btFind(ms []match, pos int, cur, cand, maxD uint32, limit, best int) []match {
	son := mf.son
	buf := mf.buf
	cyc, cyclic := mf.cycPos, mf.cyclic
	if len(son) < 2*int(cyclic) || cyc >= cyclic || maxD >= cyclic || int(maxD) > pos || pos+limit > len(buf) || limit < 1 {
		panic("lzma: match finder state out of range")
	}
	if cap(ms)-len(ms) < limit {
		ms = append(make([]match, 0, len(ms)+limit), ms...)
	}
	// The walk works on pointers (the current position's bytes, the
	// links to fill, the next match to write) rather than indices, so
	// that its state fits the registers.
	n := len(ms)
	ms = ms[:cap(ms)]
	out := unsafe.Pointer(&ms[n]) // room for limit matches
	sb := unsafe.Pointer(unsafe.SliceData(son))
	cp := unsafe.Add(unsafe.Pointer(unsafe.SliceData(buf)), pos)
	p0 := unsafe.Add(sb, uintptr(cyc)*8+4) // right link: subtree of greater suffixes
	p1 := unsafe.Add(sb, uintptr(cyc)*8)   // left link: subtree of smaller suffixes
	len0, len1 := 0, 0
	for steps := mf.cycles; steps > 0; steps-- {
		d := cur - cand
		if d-1 >= maxD {
			break
		}
		s := cyc - d
		if d > cyc {
			s += cyclic
		}
		pair := unsafe.Add(sb, uintptr(s)*8)
		// Both links are loaded before the bytes are compared, so that
		// the node's cache miss overlaps the data's.
		left, right := *(*uint32)(pair), *(*uint32)(unsafe.Add(pair, 4))
		jp := unsafe.Add(cp, -int(d))
		l := min(len0, len1)
		a, b := *(*byte)(unsafe.Add(jp, l)), *(*byte)(unsafe.Add(cp, l))
		if a == b {
			l++
			l = matchLenAt(cp, jp, l, limit)
			if l > best {
				*(*match)(out) = match{uint32(l), d - 1}
				out = unsafe.Add(out, unsafe.Sizeof(match{}))
				best = l
			}
			if l >= limit {
				*(*uint32)(p1) = left
				*(*uint32)(p0) = right
				return ms[:n+int((uintptr(out)-uintptr(unsafe.Pointer(&ms[n])))/unsafe.Sizeof(match{}))]
			}
			a, b = *(*byte)(unsafe.Add(jp, l)), *(*byte)(unsafe.Add(cp, l))
		}
		if a < b {
			*(*uint32)(p1) = cand
			p1 = unsafe.Add(pair, 4)
			cand = right
			len1 = l
		} else {
			*(*uint32)(p0) = cand
			p0 = pair
			cand = left
			len0 = l
		}
	}
	*(*uint32)(p0) = 0
	*(*uint32)(p1) = 0
	return ms[:n+int((uintptr(out)-uintptr(unsafe.Pointer(&ms[n])))/unsafe.Sizeof(match{}))]
}

// load64 reads 8 bytes at p, little-endian (one load on amd64).
func load64(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) }

// skip advances n positions, inserting them into the tables.
func (mf *matchFinder) skip(n int) {
	if !mf.bt {
		mf.hcSkip(n)
		return
	}
	// run is the distance (1-based) of the previous position's match of
	// its full limit runLimit, 0 if it had none: in a long match the
	// next position is taken over without a walk, as the parallel
	// finder's worker does (produce).
	run, runLimit := uint32(0), 0
	buf, son := mf.buf, mf.son
	for ; n > 0; n-- {
		pos := mf.pos
		limit := mf.end - pos
		if limit > mf.nice {
			limit = mf.nice
		}
		if limit < mf.hb {
			mf.advance()
			continue
		}
		cur := uint32(pos) + mf.delta
		if d := run; d != 0 && mf.walks.n == 0 && cur-mf.preHashed(cur).c4 == d && (limit < runLimit || buf[pos+limit-1] == buf[pos+limit-1-int(d)]) {
			cyc := mf.cycPos
			s := cyc - d
			if d > cyc {
				s += mf.cyclic
			}
			son[2*cyc], son[2*cyc+1] = son[2*s], son[2*s+1]
			runLimit = limit
		} else if mf.walks.n == 0 && mf.seq > 0 {
			// One walk at a time (find). Reporting only a match of
			// the full limit (best limit-1) tells whether the walk
			// ended on one.
			mf.seq--
			ms := mf.btFind(mf.walks.w[0].out[:0], pos, cur, mf.preHashed(cur).c4, mf.maxDist(cur), limit, limit-1)
			run = 0
			if len(ms) > 0 {
				run, runLimit = ms[len(ms)-1].dist+1, limit
			}
		} else {
			// The walk ended on a match of the full limit if its
			// last match has that length.
			w := mf.walkTo(n)
			run = 0
			if k := w.n; k > 0 && w.out[k-1].len == uint32(limit) {
				run, runLimit = w.out[k-1].dist+1, limit
			}
			mf.walks.pop()
		}
		mf.advance()
	}
}

// preload inserts the positions from the current one up to the buffer
// index n, the history that precedes a block, so that the block's matches
// can reach back into it. A hash chain gets every position exactly (that is cheap). A binary tree
// gets its last full positions inserted as searching would; the earlier
// ones only enter the hash tables, as leaves of the trees (no subtrees),
// which costs a hash update per position instead of a tree walk: each
// such position can still be found as the newest of its hash, and every
// position the block inserts lands above it. It polls cancelled every
// cancelCheckInterval positions and stops with its error.
func (mf *matchFinder) preload(n, full int, cancelled func() error) error {
	// Hashing ahead must not insert positions of the block: the
	// pipelined finder inserts those itself.
	mf.hlimit = n
	defer func() { mf.hlimit = 0 }()
	if !mf.bt || full >= n-mf.pos {
		full = n - mf.pos
	}
	for stop := n - full; mf.pos < stop; {
		if err := cancelled(); err != nil {
			return err
		}
		for piece := min(stop, mf.pos+cancelCheckInterval); mf.pos < piece; {
			pos := mf.pos
			if mf.end-pos >= mf.hb {
				mf.preHashed(uint32(pos) + mf.delta)
				i := int(mf.cycPos) * 2
				mf.son[i], mf.son[i+1] = 0, 0
			}
			mf.advance()
		}
	}
	for mf.pos < n {
		if err := cancelled(); err != nil {
			return err
		}
		mf.skip(min(n-mf.pos, cancelCheckInterval))
	}
	return nil
}

// hugeUint32s is hugeBytes for n table entries.
func hugeUint32s(n int) []uint32 {
	b := hugeBytes(4 * n)
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// smallTableBits is the smallest hash table a finder makes (1 Ki
// entries, 4 KiB), for dictionaries of up to 1 KiB.
const smallTableBits = 10
