package lzma

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

func changePair(small, big uint32) bool { return big>>7 > small }

// parseFast returns the next symbol as its length and distance (greedy
// with one step of lookahead); a literal is (1, litMarker).
func (e *encoder) parseFast() (uint32, uint32) {
	mf := e.mf
	buf := mf.buf
	pos := e.ep // mf.pos is one further when matches were found ahead
	avail := mf.end - pos
	var ms []match
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
	repBest, repIdx := 0, 0
	for i, r := range e.reps {
		// repLen, with its first test in line: most reps do not match.
		if int64(r) >= e.spos || int(r) >= pos {
			continue
		}
		j := pos - int(r) - 1
		if buf[pos] != buf[j] || buf[pos+1] != buf[j+1] {
			continue
		}
		if l := 2 + matchLen(buf, pos+2, j+2, limit-2); l > repBest {
			repBest, repIdx = l, i
		}
	}
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
	// Lazy step: look at the next position.
	if e.mt == nil && !mf.bt {
		e.next = mf.hcGetMatches(e.next)
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
		for _, r := range e.reps {
			// repLen, with its first test in line.
			if int64(r) >= e.spos+1 || int(r) >= pos+1 {
				continue
			}
			j := pos - int(r)
			if buf[pos+1] != buf[j] || buf[pos+2] != buf[j+1] {
				continue
			}
			if 2+matchLen(buf, pos+3, j+2, lim-2) >= lim {
				return 1, litMarker
			}
		}
	}
	e.haveNext = false
	e.skip(mainLen - 2)
	return uint32(mainLen), mainDist
}
