package lzma

// findMatches returns the matches at mf.pos, advancing the finder, or the
// ones found ahead of time by the previous parse step.
func (e *encoder) findMatches() []match {
	if e.haveNext {
		e.haveNext = false
		e.ms, e.next = e.next, e.ms
		return e.ms
	}
	switch {
	case e.mt != nil:
		e.ms = e.find(e.ms)
	case e.mf.bt:
		e.ms = e.mf.find(e.ms) // one call shorter
	default:
		e.ms = e.mf.hcGetMatches(e.ms) // the fast levels' path, one call shorter
	}
	return e.ms
}

// repLen returns the length of the match with 0-based distance r at pos,
// limited to limit, or 0 when the distance reaches before the stream.
func repLen(buf []byte, pos int, sp int64, r uint32, limit int) int {
	if int64(r) >= sp || int(r) >= pos {
		return 0
	}
	j := pos - int(r) - 1
	if buf[pos] != buf[j] || limit < 2 || buf[pos+1] != buf[j+1] {
		return 0
	}
	return 2 + matchLen(buf, pos+2, j+2, limit-2)
}

func (e *encoder) push(len, dist uint32) {
	e.pend = append(e.pend, symbol{len: len, dist: dist})
}

// extend lengthens a match found at the nice length up to limit.
func (e *encoder) extend(buf []byte, pos int, dist uint32, l, limit int) int {
	j := pos - int(dist) - 1
	return l + matchLen(buf, pos+l, j+l, limit-l)
}
