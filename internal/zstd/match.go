package zstd

import (
	"math/bits"
	"unsafe"
)

// The match finder's tables, shaped as zstd's double fast match finder at
// level 3: a long table of 2^longLog positions hashed by their 8 next
// bytes and a short one of 2^shortLog by their 5 next bytes.
const (
	longLog  = 17
	shortLog = 15

	// stepIncr is how many positions without a match the search passes
	// before it moves on by one more at a time.
	stepIncr = 128
)

// load64 and load32 read the little-endian word at b[i:] without checking
// its bounds: the match finder reads only within its buffer, which
// TestRoundTrip and FuzzEncode exercise (the checks cost a tenth of its
// time). Little-endian machines only (amd64, arm64, ...): see le.go.
func load64(b []byte, i int) uint64 {
	return leU64(*(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)))
}

func load32(b []byte, i int) uint32 {
	return leU32(*(*uint32)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), i)))
}

func hashLong(v uint64) uint32 { return uint32((v * 0xCF1BBCDCB7A56463) >> (64 - longLog)) }
func hashShort(v uint64) uint32 {
	return uint32(((v << 24) * 0xCF1BBCDCB7A56463) >> (64 - shortLog))
}

// matchLen is how many bytes at a and b are equal, up to end - a (b < a).
func matchLen(src []byte, a, b, end int) int {
	n := 0
	for a+n+8 <= end {
		if x := load64(src, a+n) ^ load64(src, b+n); x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for a+n < end && src[a+n] == src[b+n] {
		n++
	}
	return n
}

// matcher finds the sequences of a block.
type matcher struct {
	long       *[1 << longLog]uint64
	short      *[1 << shortLog]uint64
	shift      int // an entry is a position in the buffer plus shift, and above its next 4 bytes
	window     int
	off1, off2 int // the last offsets matched
	seqs       []seq
	lits       []byte
}

// emptyEntry is a table entry that is no candidate: its position is
// farther back than any window.
const (
	emptyPos   = -1 << 30
	emptyEntry = uint64(1<<32 + emptyPos)
)

// newMatcher makes a match finder whose tables are b, 8 bytes aligned
// and 8<<longLog + 8<<shortLog long.
func newMatcher(b []byte) *matcher {
	const longBytes = 8 << longLog
	return &matcher{
		long:  (*[1 << longLog]uint64)(unsafe.Pointer(&b[0])),
		short: (*[1 << shortLog]uint64)(unsafe.Pointer(&b[longBytes])),
	}
}

func (m *matcher) reset(window int) {
	for i := range m.long {
		m.long[i] = emptyEntry
	}
	for i := range m.short {
		m.short[i] = emptyEntry
	}
	m.shift, m.window, m.off1, m.off2 = 0, window, 0, 0
}

// entry is the table entry of position i of src.
func (m *matcher) entry(src []byte, i int) uint64 {
	return uint64(uint32(i+m.shift)) | uint64(load32(src, i))<<32
}

// find finds the sequences of src[start:end]; src before start is the
// history (the frame's first byte at index -shift).
func (m *matcher) find(src []byte, start, end int) {
	m.seqs, m.lits = m.seqs[:0], m.lits[:0]
	if end-start < 16 {
		m.lits = append(m.lits, src[start:end]...)
		return
	}
	long, short := m.long, m.short
	shift, window := m.shift, m.window
	off1, off2 := m.off1, m.off2
	anchor, ip := start, start
	if start+shift == 0 {
		ip++
	}
	limit := end - 8
	src = src[:end]
outer:
	for ip < limit {
		step := 1
		nextStep := ip + stepIncr
		ip1 := ip + 1
		v := load64(src, ip)
		hl0 := hashLong(v)
		cl0 := long[hl0]
		var mlen, off, cur int
		var hl1 uint32
		for {
			// The loads of both tables together: they wait for memory.
			v1 := load64(src, ip1)
			hs0 := hashShort(v)
			hl1 = hashLong(v1)
			cs0 := short[hs0]
			cl1 := long[hl1]
			cur = ip
			e := uint64(uint32(ip+shift)) | v<<32
			long[hl0] = e
			short[hs0] = e
			if off1 > 0 && load32(src, ip+1-off1) == uint32(v>>8) {
				mlen = 4 + matchLen(src, ip+5, ip+5-off1, end)
				ip++
				off = off1
				break
			}
			if c := int(int32(uint32(cl0))) - shift; ip-c <= window && uint32(cl0>>32) == uint32(v) {
				mlen = 4 + matchLen(src, ip+4, c+4, end)
				off = ip - c
				break
			}
			if c := int(int32(uint32(cs0))) - shift; ip-c <= window && uint32(cs0>>32) == uint32(v) {
				if c1 := int(int32(uint32(cl1))) - shift; ip1-c1 <= window && uint32(cl1>>32) == uint32(v1) {
					ip = ip1
					mlen = 4 + matchLen(src, ip+4, c1+4, end)
					off = ip - c1
				} else {
					mlen = 4 + matchLen(src, ip+4, c+4, end)
					off = ip - c
				}
				break
			}
			if ip1 >= nextStep {
				step++
				nextStep += stepIncr
			}
			ip = ip1
			ip1 += step
			if ip1 > limit {
				break outer
			}
			hl0, cl0, v = hl1, cl1, v1
		}
		if off != off1 {
			// Extend the match backwards.
			for ip > anchor && ip-off > 0 && src[ip-1] == src[ip-off-1] {
				ip--
				mlen++
			}
			off2, off1 = off1, off
			if step < 4 {
				long[hl1] = m.entry(src, cur+1)
			}
		}
		m.seqs = append(m.seqs, seq{litLen: uint32(ip - anchor), matchLen: uint32(mlen), offset: uint32(off)})
		m.lits = append(m.lits, src[anchor:ip]...)
		ip += mlen
		anchor = ip
		if ip <= limit {
			// Enter positions of the match.
			e2, eEnd := m.entry(src, cur+2), m.entry(src, ip-2)
			long[hashLong(load64(src, cur+2))] = e2
			long[hashLong(load64(src, ip-2))] = eEnd
			short[hashShort(load64(src, cur+2))] = e2
			short[hashShort(load64(src, ip-1))] = m.entry(src, ip-1)
			// The offset before the last may repeat at once.
			for ip <= limit && off2 > 0 && load32(src, ip) == load32(src, ip-off2) {
				n := 4 + matchLen(src, ip+4, ip+4-off2, end)
				off1, off2 = off2, off1
				v := load64(src, ip)
				e := uint64(uint32(ip+shift)) | v<<32
				short[hashShort(v)] = e
				long[hashLong(v)] = e
				m.seqs = append(m.seqs, seq{matchLen: uint32(n), offset: uint32(off1)})
				ip += n
				anchor = ip
			}
		}
	}
	m.lits = append(m.lits, src[anchor:end]...)
	m.off1, m.off2 = off1, off2
}
