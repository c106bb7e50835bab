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

	// posBits is how many low bits of the frame's position an entry
	// holds: a candidate is posMask+1 (16 MiB) back at most, and in
	// frames of up to 16 MiB every position is exact.
	posBits = 24
	posMask = 1<<posBits - 1

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

// tag is the 8-bit hash of the 4 bytes v that an entry keeps above its
// position: a candidate whose tag differs is no match, without a read of
// the window.
func tag(v uint32) uint32 { return (v * 0x9E3779B1) >> 24 << posBits }
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
	long       *[1 << longLog]uint32
	short      *[1 << shortLog]uint32
	shift      int // a position in the buffer plus shift is its position in the frame
	window     int
	off1, off2 int // the last offsets matched
	seqs       []seq
	lits       []byte
}

// A table entry is the tag of a position's next 4 bytes above the low
// posBits bits of its position in the frame plus one: an empty entry, 0,
// is no candidate.

// tablesSize is the size of the match finder's tables.
const tablesSize = 4<<longLog + 4<<shortLog

// newMatcher makes a match finder whose tables are b, 4 bytes aligned
// and tablesSize long.
func newMatcher(b []byte) *matcher {
	const longBytes = 4 << longLog
	return &matcher{
		long:  (*[1 << longLog]uint32)(unsafe.Pointer(&b[0])),
		short: (*[1 << shortLog]uint32)(unsafe.Pointer(&b[longBytes])),
	}
}

func (m *matcher) reset(window int) {
	clear(m.long[:])
	clear(m.short[:])
	m.shift, m.window, m.off1, m.off2 = 0, window, 0, 0
}

// entry is the table entry of position i of src.
func (m *matcher) entry(src []byte, i int) uint32 {
	return uint32(i+m.shift+1)&posMask | tag(load32(src, i))
}

// candidate returns the position in src of the entry e, taken at position
// ip whose next 4 bytes are v, when it is one: not empty, within the
// window and its next 4 bytes v; else -1.
func candidate(src []byte, e uint32, ip, shift, window int, v uint32) int {
	if e&^posMask != tag(v) || e&posMask == 0 {
		return -1
	}
	d := int((uint32(ip+shift+1) - e) & posMask)
	if d == 0 || d > window || load32(src, ip-d) != v {
		return -1
	}
	return ip - d
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
			e := uint32(ip+shift+1)&posMask | tag(uint32(v))
			long[hl0] = e
			short[hs0] = e
			if off1 > 0 && load32(src, ip+1-off1) == uint32(v>>8) {
				mlen = 4 + matchLen(src, ip+5, ip+5-off1, end)
				ip++
				off = off1
				break
			}
			if c := candidate(src, cl0, ip, shift, window, uint32(v)); c >= 0 {
				mlen = 4 + matchLen(src, ip+4, c+4, end)
				off = ip - c
				break
			}
			if c := candidate(src, cs0, ip, shift, window, uint32(v)); c >= 0 {
				if c1 := candidate(src, cl1, ip1, shift, window, uint32(v1)); c1 >= 0 {
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
				e := uint32(ip+shift+1)&posMask | tag(uint32(v))
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
