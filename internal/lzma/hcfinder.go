package lzma

import (
	"encoding/binary"
	"math/bits"
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
// first bytes, and the tables are kept small (the 2-byte one fits the
// first-level cache), because at the fast levels the cost per position,
// not per chain step, dominates: at level 1 most chains are short.

// hc2Bits is the size of the hash-chain finder's 2-byte table.
const hc2Bits = 10

// hcHashes returns the 2-byte, 3-byte and main-table hashes of b (at least
// mf.hb bytes).
func (mf *matchFinder) hcHashes(b []byte) (h2, h3, hv uint32) {
	v := binary.LittleEndian.Uint32(b)
	h2 = (v & 0xFFFF) * 0x9E3779B1 >> (32 - hc2Bits)
	h3 = (v & 0xFFFFFF) * 506832829 >> 16
	if mf.hb == 5 {
		w := uint64(v) | uint64(b[4])<<32
		hv = uint32((w * 0x9E3779B97F4A7C15) >> (32 + mf.h4shift))
	} else {
		hv = (v * 2654435761) >> mf.h4shift
	}
	return
}

// hcGetMatches is find for the hash-chain finder.
func (mf *matchFinder) hcGetMatches(ms []match) []match {
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
	h2, h3, hv := mf.hcHashes(buf[pos:])
	hash2, hash3, hash4 := mf.hash2[:1<<hc2Bits], mf.hash3[:1<<16], mf.hash4
	c2, c3, cv := hash2[h2], hash3[h3&0xFFFF], hash4[hv]
	hash2[h2], hash3[h3&0xFFFF], hash4[hv] = cur, cur, cur
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
	if best < limit {
		ms = mf.hcWalk(ms, pos, cur, cv, maxD, limit, best)
	}
	mf.advance()
	return ms
}

// hcWalk walks the chain from cand, appending the matches longer than best
// (lengths strictly increasing, at most limit). It stops after mf.cycles
// steps, past the dictionary, or at a match of the full limit.
//
// It indexes the chain and the buffer without bounds checks, which are
// safe by construction and checked once per call: a link's slot is below
// cyclic (d is in [1, maxD] and maxD < cyclic), and the bytes compared lie
// in buf[pos-maxD : pos+limit].
func (mf *matchFinder) hcWalk(ms []match, pos int, cur, cand, maxD uint32, limit, best int) []match {
	son, buf := mf.son, mf.buf
	cyc, cyclic := mf.cycPos, mf.cyclic
	if len(son) < int(cyclic) || cyc >= cyclic || maxD >= cyclic || int(maxD) > pos || pos+limit > len(buf) || best >= limit {
		panic("lzma: match finder state out of range")
	}
	sb := unsafe.Pointer(unsafe.SliceData(son))
	bb := unsafe.Pointer(unsafe.SliceData(buf))
	link := func(i uint32) uint32 { return *(*uint32)(unsafe.Add(sb, uintptr(i)*4)) }
	at := func(i int) byte { return *(*byte)(unsafe.Add(bb, i)) }
	word := func(i int) uint64 { return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(bb, i)), 8)) }
	for steps := mf.cycles; steps > 0; steps-- {
		d := cur - cand
		if d-1 >= maxD {
			break
		}
		s := cyc - d
		if d > cyc {
			s += cyclic
		}
		// The next link is loaded before the bytes are compared, so
		// that its latency overlaps theirs.
		cand = link(s)
		j := pos - int(d)
		if at(j+best) != at(pos+best) || at(j) != at(pos) {
			continue
		}
		l := 1
		for l+8 <= limit {
			if x := word(pos+l) ^ word(j+l); x != 0 {
				l += bits.TrailingZeros64(x) >> 3
				goto found
			}
			l += 8
		}
		for l < limit && at(pos+l) == at(j+l) {
			l++
		}
	found:
		if l > best {
			ms = append(ms, match{uint32(l), d - 1})
			best = l
			if l >= limit {
				break
			}
		}
	}
	return ms
}

// hcSkip advances n positions of the hash-chain finder, inserting them
// into the tables and their chains.
func (mf *matchFinder) hcSkip(n int) {
	buf, son := mf.buf, mf.son
	hash2, hash3, hash4 := mf.hash2[:1<<hc2Bits], mf.hash3[:1<<16], mf.hash4
	for ; n > 0; n-- {
		pos := mf.pos
		if mf.end-pos >= mf.hb {
			cur := uint32(pos) + mf.delta
			h2, h3, hv := mf.hcHashes(buf[pos:])
			son[mf.cycPos] = hash4[hv]
			hash2[h2], hash3[h3&0xFFFF], hash4[hv] = cur, cur, cur
		}
		mf.advance()
	}
}
