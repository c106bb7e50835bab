package lzma

import (
	"encoding/binary"
	"unsafe"
)

// A match of 2 bytes at a distance of fastFar2 or more, or of 3 bytes at
// fastFar3 or more, is coded as literals by the fast parser: coding its
// distance costs more than the literals. 7-Zip's fast mode drops 2-byte
// matches from 0x80 on and keeps all 3-byte ones; on 32 MiB of mixed-data
// these limits make mx1's output 0.27 % smaller (6,040,077 to 6,023,575
// bytes of LZMA2) and mx3's 0.12 % (docs/PERFORMANCE.md).
const (
	fastFar2 = 0x10
	fastFar3 = 1 << 10
)

// After fastSparseAfter literals in a row, the fast parser searches only
// one position in fastSparseEvery and inserts the others into the finder
// without searching them, until it finds a match (LZ4's and zstd's
// acceleration; 7-Zip searches every position). Long literal runs are
// data that does not compress, where a search rarely finds anything. At
// mx1, 16 MiB of random bytes take 26 % less CPU time for the same size,
// and 8 MiB of gzip output 28 % less, 0.045 % larger; 32 MiB of
// mixed-data, whose literal runs are short, 102 bytes larger, and the
// same time (docs/PERFORMANCE.md).
const (
	fastSparseAfter = 32
	fastSparseEvery = 4
)

func changePair(small, big uint32) bool { return big>>7 > small }

// parseFast returns the next symbol as its length and distance (greedy
// with one step of lookahead); a literal is (1, litMarker).
func (e *encoder) parseFast() (uint32, uint32) {
	mf := e.mf
	buf := mf.buf
	pos := e.ep // mf.pos is one further when matches were found ahead
	avail := mf.end - pos
	var ms []match
	if e.litRun >= fastSparseAfter && e.litRun%fastSparseEvery != 0 && !e.haveNext {
		// A long run of literals: this position is inserted, not
		// searched.
		e.skip(1)
		return 1, litMarker
	}
	switch {
	case e.haveNext:
		// Found ahead by the previous step's lookahead.
		e.haveNext = false
		e.ms, e.next = e.next, e.ms
		ms = e.ms
	case e.mt == nil && !mf.bt:
		e.ms = mf.hcGetMatches(e.ms)
		ms = e.ms
	default:
		ms = e.findMatches()
	}
	if avail < 2 {
		return 1, litMarker
	}
	limit := avail
	if limit > maxMatchLen {
		limit = maxMatchLen
	}
	repBest, repIdx := longestRep(buf, pos, &e.reps, uint64(min(e.spos, int64(pos))), limit)
	if repBest >= e.nice {
		e.skip(repBest - 1)
		return uint32(repBest), e.reps[repIdx]
	}
	mainLen, mainDist := 0, uint32(0)
	if len(ms) > 0 {
		m := ms[len(ms)-1]
		mainLen, mainDist = int(m.len), m.dist
		if mainLen >= e.nice {
			mainLen = e.extend(buf, pos, mainDist, mainLen, limit)
			e.skip(mainLen - 1)
			return uint32(mainLen), mainDist
		}
		for n := len(ms) - 1; n > 0; n-- {
			p := ms[n-1]
			if mainLen != int(p.len)+1 || !changePair(p.dist, mainDist) {
				break
			}
			mainLen, mainDist = int(p.len), p.dist
		}
		if mainLen == 2 && mainDist >= fastFar2 || mainLen == 3 && mainDist >= fastFar3 {
			mainLen = 1
		}
	}
	if repBest >= 2 && (repBest+1 >= mainLen || repBest+2 >= mainLen && mainDist >= 1<<9 ||
		repBest+3 >= mainLen && mainDist >= 1<<15) {
		e.skip(repBest - 1)
		return uint32(repBest), e.reps[repIdx]
	}
	if mainLen < 2 {
		return 1, litMarker
	}
	// Lazy step: look at the next position. Only a match there of
	// mainLen bytes or more can make this one a literal (7-Zip's rule
	// below also takes one of mainLen-1 bytes at a distance 128 times
	// shorter), so the chain walk looks for nothing shorter: the
	// continuation of this match, one byte shorter, which a walk meets
	// among its first steps, no longer gives it all its steps. At mx1 on
	// 32 MiB heads of the benchmark classes, with the walk giving up after
	// 4 steps instead of 2, this took 5 % of mixed-data's CPU time (0.945
	// +- 0.036 of before) and 27 % of utf16's (0.726 +- 0.068), for
	// output 0.03 % larger on mixed-data, 0.66 % on logs, 0.05 % on exec
	// and 0.5 % smaller on utf16, all below 7zz's; a floor of mainLen-2
	// kept the sizes but not the time, and 2 steps put mixed-data at
	// 7zz's size.
	if e.mt == nil && !mf.bt {
		e.next = mf.hcGetMatchesAhead(e.next, mainLen-1)
	} else {
		e.next = e.find(e.next)
	}
	e.haveNext = true
	if len(e.next) > 0 {
		n := e.next[len(e.next)-1]
		nl, nd := int(n.len), n.dist
		if nl >= mainLen && nd < mainDist || nl == mainLen+1 && !changePair(mainDist, nd) ||
			nl > mainLen+1 || nl+1 >= mainLen && mainLen >= 3 && changePair(nd, mainDist) {
			return 1, litMarker
		}
	}
	lim := mainLen - 1
	if lim < 2 {
		lim = 2
	}
	if avail > lim {
		if l, _ := longestRep(buf, pos+1, &e.reps, uint64(min(e.spos, int64(pos))+1), lim); l >= lim {
			return 1, litMarker
		}
	}
	e.haveNext = false
	e.skip(mainLen - 2)
	return uint32(mainLen), mainDist
}

// longestRep returns the longest match at buf[pos:] (at most limit bytes,
// at least 2) at one of the rep distances below valid (0-based), and the
// rep's index; 0 when none matches two bytes. It is the fast parser's
// rep test, in a function of its own so that its values stay in
// registers: most reps fail at their first two bytes.
func longestRep(buf []byte, pos int, reps *[4]uint32, valid uint64, limit int) (best, idx int) {
	if limit < 2 || pos < 0 || pos+limit > len(buf) || valid > uint64(pos) {
		panic("lzma: rep match out of range")
	}
	p := unsafe.Pointer(unsafe.SliceData(buf[pos:]))
	w := load16(p)
	for i, r := range reps {
		if uint64(r) >= valid {
			continue
		}
		q := unsafe.Add(p, -int(r)-1)
		if load16(q) != w {
			continue
		}
		l := matchLenAt(p, q, 2, limit)
		if l > best {
			best, idx = l, i
		}
	}
	return best, idx
}

// load16 is the little-endian word of the two bytes at p.
func load16(p unsafe.Pointer) uint16 { return binary.LittleEndian.Uint16((*[2]byte)(p)[:]) }
