package lzma

import (
	"encoding/binary"
	"slices"
	"unsafe"
)

// The hash-chain finder of the fast levels
//
// A hash chain keeps, for every position, the previous position with the
// same main hash (of 4 or 5 bytes); finding the matches at a position
// walks that chain for at most mf.cycles steps. Beside the main table, a
// small table of 2-byte hashes and one of 3-byte hashes give the nearest
// short matches, which the chain (whose positions share 4 or 5 bytes)
// cannot. Everything a position needs is computed from one load of its
// first bytes, and the short tables are kept small (both fit the
// first-level cache), because at the fast levels the cost per position,
// not per chain step, dominates: at level 1 most chains are short.

// hc2Bits is the size of the hash-chain finder's 2-byte table.
const hc2Bits = 10

// hc3Bits is the size of the hash-chain finder's 3-byte table (the
// binary trees' has 1<<16 entries). A small table also gives smaller
// output: its candidates are recent, and a 3-byte
// match from far back, which the greedy parser would take, costs more
// than its literals. On 32 MiB of mixed-data, 16 bits to 10 made mx1's
// LZMA2 0.19 % smaller (6,051,662 to 6,040,077 bytes) and mx3's 0.26 %,
// with fewer cache misses (docs/PERFORMANCE.md).
const hc3Bits = 10

// At levels up to fastGiveUpLevel, a hash-chain walk that has found no
// match longer than the short tables' after fastGiveUp sixteenths of its
// steps stops there, and the walk of the parser's lookahead (the position
// after a match, which only decides whether to take that match) after
// fastAheadGiveUp sixteenths; once a walk finds a longer match, it may
// take all its steps. Walks that find nothing in their first steps
// rarely find anything later: the candidates left are hash collisions or
// copies no longer than the match at hand. 7-Zip walks every step. On 32
// MiB of mixed-data at mx1 (16 steps: 10 and 2) this takes 19 % of the
// chain steps (30.8 to 25.0 million) for 0.19 % in size, which stays
// below 7zz's; giving every walk up after 6 steps took 15 % for 0.24 %,
// and 12 chain steps in all (7-Zip's mc=12) 17 % for 0.32 %
// (docs/PERFORMANCE.md). The lookahead's walk looks only for matches at
// least as long as the match at hand (hcGetMatchesAhead's floor), so
// that the shorter ones it meets first, among them that match's own
// continuation, do not give it the rest of its steps; it gives up after
// 4 steps instead of 2 (see parseFast).
const (
	fastGiveUpLevel = 2
	fastGiveUp      = 10
	fastAheadGiveUp = 4
)

// At the same levels, a walk that has found a match of fastLongMatch
// bytes or more takes at most fastAfterLong more steps (instead of the
// rest of mf.cycles): the candidates further down a chain are older
// copies, which seldom beat a match this long by enough to pay for their
// distance. 7-Zip walks every step. At mx1 on 32 MiB slices this takes
// 20 % of utf16's chain steps (86.3 to 69.2 million; output 0.04 %
// smaller, CPU 0.909 +- 0.047 of before), 12 % of mixed-data's (0.29 %
// larger) and 5 % of exec's (0.06 % larger, CPU unchanged); every class
// at 4 MiB and mixed, srctree and utf16 at 100 MiB stay below 7zz's
// size. Capping at 4 steps cost mixed-data 0.76 %; from 12 bytes on, the
// rule took 14 % of utf16's steps.
const (
	fastLongMatch = 8
	fastAfterLong = 8
)

// hcLoad returns the eight bytes at buf[pos:] as a little-endian word,
// with zeros for the bytes past the end of buf.
func hcLoad(buf []byte, pos int) uint64 {
	if pos+8 <= len(buf) {
		return binary.LittleEndian.Uint64(buf[pos:])
	}
	var v uint64
	for i := len(buf) - 1; i >= pos; i-- {
		v = v<<8 | uint64(buf[i])
	}
	return v
}

// hcHashes returns the 2-byte, 3-byte and main-table hashes of the
// position whose first bytes are the little-endian word v (only its low
// mf.hb bytes count).
func (mf *matchFinder) hcHashes(v uint64) (h2, h3, hv uint32) {
	h2 = uint32(v&0xFFFF) * 0x9E3779B1 >> (32 - hc2Bits)
	h3 = uint32(v&0xFFFFFF) * 506832829 >> (32 - hc3Bits)
	return h2, h3, mf.hcMainHash(v)
}

// hcMainHash is the main-table hash of hcHashes.
func (mf *matchFinder) hcMainHash(v uint64) uint32 {
	if mf.hb == 5 {
		return hc5Hash(v, 32+mf.h4shift)
	}
	return hc4Hash(v, mf.h4shift)
}

// hc5Hash is the main hash of the five low bytes of v: the top 64-s bits
// of their product with a 64-bit odd constant (only the top bits of a
// product depend on all the bytes).
func hc5Hash(v uint64, s uint) uint32 {
	return uint32((v << 24) * 0x9E3779B97F4A7C15 >> (s & 63))
}

// hc4Hash is hc5Hash for the four low bytes of v (32-s bits).
func hc4Hash(v uint64, s uint) uint32 {
	return uint32(v) * 2654435761 >> (s & 31)
}

// hcGetMatches is find for the hash-chain finder.
func (mf *matchFinder) hcGetMatches(ms []match) []match { return mf.hcSearch(ms, mf.giveUp, 0) }

// hcGetMatchesAhead is hcGetMatches for the fast parser's lookahead: its
// walk gives up after mf.aheadGiveUp steps without a longer match, and
// looks only for matches of more than floor bytes (the short tables'
// matches are kept, whatever their length).
func (mf *matchFinder) hcGetMatchesAhead(ms []match, floor int) []match {
	return mf.hcSearch(ms, mf.aheadGiveUp, floor)
}

// hcSearch is hcGetMatches, its chain walk giving up as hcWalk says and
// looking for matches of more than floor bytes.
func (mf *matchFinder) hcSearch(ms []match, giveUp, floor int) []match {
	ms = ms[:0]
	pos := mf.pos
	limit := min(mf.end-pos, mf.nice)
	if limit < mf.hb {
		// Too close to the end for hashing.
		mf.advance()
		return ms
	}
	buf := mf.buf
	cur := uint32(pos) + mf.delta
	maxD := mf.maxDist(cur)
	h2, h3, hv := mf.hcHashes(hcLoad(buf, pos))
	hash2, hash3, hash4 := (*[1 << hc2Bits]uint32)(mf.hash2), (*[1 << hc3Bits]uint32)(mf.hash3), mf.hash4
	c2, c3, cv := hash2[h2], hash3[h3], hash4[hv]
	hash2[h2], hash3[h3], hash4[hv] = cur, cur, cur
	if pos+9 <= len(buf) {
		// The next position's main table slot, which the parser's
		// lookahead or skip needs next, is fetched while this one's
		// chain is walked (the short tables stay in the first-level
		// cache).
		prefetch1(&hash4[mf.hcMainHash(binary.LittleEndian.Uint64(buf[pos+1:]))])
	}
	mf.son[mf.cycPos] = cv
	best := 1
	d2 := cur - c2
	if d2-1 < maxD && buf[pos-int(d2)] == buf[pos] && buf[pos+1-int(d2)] == buf[pos+1] {
		l := 2 + matchLen(buf, pos+2, pos+2-int(d2), limit-2)
		ms = append(ms, match{uint32(l), d2 - 1})
		best = l
	}
	d3 := cur - c3
	if d3 != d2 && d3-1 < maxD && best < limit {
		j := pos - int(d3)
		if buf[j] == buf[pos] && buf[j+1] == buf[pos+1] && buf[j+2] == buf[pos+2] {
			l := 3 + matchLen(buf, pos+3, j+3, limit-3)
			if l > best {
				ms = append(ms, match{uint32(l), d3 - 1})
				best = l
			}
		}
	}
	if floor = max(best, mf.hb-1, floor); floor < limit {
		ms = mf.hcWalk(ms, pos, cur, cv, maxD, limit, floor, giveUp)
	}
	mf.advance()
	return ms
}

// hcWalk walks the chain from cand, appending the matches longer than best
// (lengths strictly increasing, at most limit). It stops after mf.cycles
// steps, past the dictionary, at a match of the full limit, or, with
// giveUp above 0, after giveUp steps that found no longer match, or
// fastAfterLong steps after a match of fastLongMatch bytes.
//
// It indexes the chain and the buffer without bounds checks, which are
// safe by construction and checked once per call: a link's slot is below
// cyclic (d is in [1, maxD] and maxD < cyclic), the bytes compared lie
// in buf[pos-maxD : pos+limit], and the matches go to ms's spare
// capacity (at most limit-best of them).
//
// The loop keeps few values live, so that they all stay in registers:
// a candidate is first tested by the four bytes ending at best (one load
// and compare; those of a longer match all agree), the chain slot is the
// candidate plus a constant (wrapped by cyclic when it lies before the
// slot of position 0), and the matches are written through a pointer.
func (mf *matchFinder) hcWalk(ms []match, pos int, cur, cand, maxD uint32, limit, best, giveUp int) []match {
	son, buf := mf.son, mf.buf
	cyc, cyclic := mf.cycPos, mf.cyclic
	if cap(ms)-len(ms) < limit-best {
		ms = slices.Grow(ms, limit-best) // the encoder's lists have room
	}
	if len(son) < int(cyclic) || cyc >= cyclic || maxD >= cyclic || int(maxD) > pos || pos+limit > len(buf) ||
		best >= limit || best < 3 || cap(ms)-len(ms) < limit-best {
		panic("lzma: match finder state out of range")
	}
	sb := unsafe.Pointer(unsafe.SliceData(son))
	p := unsafe.Pointer(unsafe.SliceData(buf[pos:]))
	first := unsafe.Pointer(unsafe.SliceData(ms[len(ms):cap(ms)]))
	out := first
	// The slot of a candidate at distance d is cyc-d, or cyc-d+cyclic
	// when d > cyc: cand+base, which then wraps below zero.
	base := cyc - cur
	want := load32(unsafe.Add(p, best-3))
	// steps is what the walk may take until it finds a longer match:
	// all mf.cycles, or giveUp of them, the rest (spare) being added once
	// it has found one.
	steps, spare := mf.cycles, 0
	if giveUp > 0 && giveUp < steps {
		steps, spare = giveUp, steps-giveUp
	}
	for {
		var d uint32
		d, cand, steps = hcScan(sb, unsafe.Add(p, best-3), want, cur, cand, base, cyclic, maxD, steps)
		if d == 0 {
			break
		}
		steps += spare
		spare = 0
		q := unsafe.Add(p, -int(d))
		l := matchLenAt(p, q, 0, limit)
		if l > best {
			*(*match)(out) = match{uint32(l), d - 1}
			out = unsafe.Add(out, unsafe.Sizeof(match{}))
			best = l
			if l >= limit {
				break
			}
			want = load32(unsafe.Add(p, best-3))
			if giveUp > 0 && l >= fastLongMatch {
				steps = min(steps, fastAfterLong)
			}
		}
	}
	return ms[:len(ms)+int((uintptr(out)-uintptr(first))/unsafe.Sizeof(match{}))]
}

// hcScan follows the chain from cand for at most steps links and returns
// the distance d of the first candidate within maxD whose four bytes
// before pw-d equal want, the link after it and the steps left; d is 0
// when there is none. It is hcWalk's inner loop, in a function of its
// own so that its values stay in registers.
//
//go:noinline
func hcScan(sb, pw unsafe.Pointer, want, cur, cand, base, cyclic, maxD uint32, steps int) (d, next uint32, left int) {
	for ; steps > 0; steps-- {
		d = cur - cand
		if d-1 >= maxD {
			break
		}
		s := cand + base
		if s >= cyclic {
			s += cyclic
		}
		// The next link is loaded before the bytes are compared, so
		// that its latency overlaps theirs.
		cand = *(*uint32)(unsafe.Add(sb, uintptr(s)*4))
		if load32(unsafe.Add(pw, -int(d))) == want {
			return d, cand, steps - 1
		}
	}
	return 0, cand, 0
}

// load32 is the little-endian word of the four bytes at p.
func load32(p unsafe.Pointer) uint32 { return binary.LittleEndian.Uint32((*[4]byte)(p)[:]) }

// hcSkip advances n positions of the hash-chain finder, inserting them
// into the tables and their chains.
//
// It runs in stretches of positions that have eight bytes in the buffer
// (one load hashes a position), mf.hb bytes before the end, and chain
// slots that do not wrap, with the position, the chain slot and the
// hashing in registers and without bounds checks: the slots lie in son
// (cycPos+k <= cyclic <= len(son)), the loads in buf (pos+k+7 <=
// len(buf)), and a main hash is below len(hash4) by its shift.
func (mf *matchFinder) hcSkip(n int) {
	buf, son, hash4 := mf.buf, mf.son, mf.hash4
	hash2, hash3 := (*[1 << hc2Bits]uint32)(mf.hash2), (*[1 << hc3Bits]uint32)(mf.hash3)
	if len(hash4) != 1<<(32-mf.h4shift) || len(son) < int(mf.cyclic) {
		panic("lzma: match finder state out of range")
	}
	h4 := unsafe.Pointer(unsafe.SliceData(hash4))
	if next := mf.pos + n; next+8 <= len(buf) {
		// The main table slot of the position after these, which the
		// parser searches next, is fetched while they are inserted.
		prefetch1(&hash4[mf.hcMainHash(binary.LittleEndian.Uint64(buf[next:]))])
	}
	for n > 0 {
		pos, cyc := mf.pos, mf.cycPos
		k := min(n, len(buf)-7-pos, mf.end-mf.hb+1-pos, int(mf.cyclic-cyc))
		if k <= 0 {
			// The last positions of the buffer (and of the input),
			// or the wrap of the chain slots.
			if mf.end-pos >= mf.hb {
				cur := uint32(pos) + mf.delta
				h2, h3, hv := mf.hcHashes(hcLoad(buf, pos))
				son[cyc] = hash4[hv]
				hash2[h2], hash3[h3], hash4[hv] = cur, cur, cur
			}
			mf.advance()
			n--
			continue
		}
		cur := uint32(pos) + mf.delta
		links := son[cyc : int(cyc)+k]
		bp := unsafe.Pointer(unsafe.SliceData(buf[pos : pos+k+7]))
		if mf.hb == 5 {
			hc5InsertRun(links, bp, h4, hash2, hash3, cur, 32+mf.h4shift)
		} else {
			hc4InsertRun(links, bp, h4, hash2, hash3, cur, mf.h4shift)
		}
		mf.pos += k
		mf.cycPos += uint32(k)
		if mf.cycPos == mf.cyclic {
			mf.cycPos = 0
		}
		n -= k
	}
}

// hc5InsertRun inserts the len(links) positions from cur, whose bytes
// start at bp, into the hash-chain tables (hash4 at h4, hashes shifted by s):
// their chain links go to links. It is hcSkip's loop, in a function of
// its own so that its few values stay in registers (a loop this short
// overlaps the cache misses of many positions).
func hc5InsertRun(links []uint32, bp, h4 unsafe.Pointer, hash2 *[1 << hc2Bits]uint32, hash3 *[1 << hc3Bits]uint32, cur uint32, s uint) {
	h2, h3 := unsafe.Pointer(hash2), unsafe.Pointer(hash3)
	for i := range links {
		v := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(bp, i))[:])
		slot := (*uint32)(unsafe.Add(h4, uintptr(hc5Hash(v, s))*4))
		links[i] = *slot
		*slot = cur
		*(*uint32)(unsafe.Add(h2, uintptr(uint32(v&0xFFFF)*0x9E3779B1>>(32-hc2Bits))*4)) = cur
		*(*uint32)(unsafe.Add(h3, uintptr(uint32(v&0xFFFFFF)*506832829>>(32-hc3Bits))*4)) = cur
		cur++
	}
}

// hc4InsertRun is hc5InsertRun for 4-byte main hashing.
func hc4InsertRun(links []uint32, bp, h4 unsafe.Pointer, hash2 *[1 << hc2Bits]uint32, hash3 *[1 << hc3Bits]uint32, cur uint32, s uint) {
	h2, h3 := unsafe.Pointer(hash2), unsafe.Pointer(hash3)
	for i := range links {
		v := binary.LittleEndian.Uint64((*[8]byte)(unsafe.Add(bp, i))[:])
		slot := (*uint32)(unsafe.Add(h4, uintptr(hc4Hash(v, s))*4))
		links[i] = *slot
		*slot = cur
		*(*uint32)(unsafe.Add(h2, uintptr(uint32(v&0xFFFF)*0x9E3779B1>>(32-hc2Bits))*4)) = cur
		*(*uint32)(unsafe.Add(h3, uintptr(uint32(v&0xFFFFFF)*506832829>>(32-hc3Bits))*4)) = cur
		cur++
	}
}
