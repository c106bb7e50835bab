package bzip2

import (
	"encoding/binary"
	"slices"

	"github.com/garc-dev/garc/internal/hugemem"
)

// blockBuf holds one block's buffers, sized for the largest block size
// seen so far. The sequential Reader has one; in parallel mode each
// worker has its own (parallel.go).
type blockBuf struct {
	tt      []uint32 // BWT last column with successor links
	scratch []byte   // lanes regions of laneRegion(block size) for walkLanes
	pre     []byte   // the block's text before the RLE1 stage
	counts  [256]int32
	cuts    []uint32  // walkLanes' segment starts, in increasing order
	segs    []segment // walkLanes' segments, one per cut
	huge    bool      // tt, pre and scratch are on huge pages (ensure)
	// The mapping that owns tt, pre and scratch where they lie outside
	// the Go heap (blockMem).
	mem *mapping

	n          int    // bytes in the block
	walked     int    // bytes of pre written so far (unBWTHead, finish)
	cursor     uint32 // the position of tt holding the byte of pre[walked]
	origPtr    int
	randomised bool
	wantCRC    uint32
}

// ensure sizes the buffers for blocks of up to size bytes, in one
// allocation outside the Go heap (blockMem). A large block (one of more
// than hugeMinSelectors) of a stream whose tt fills a huge page (levels 6
// to 9) gets them on huge pages; a small one (a small stream's) in plain
// pages.
func (b *blockBuf) ensure(size int, large bool) {
	huge := large && 4*size >= hugemem.PageSize
	if huge && !b.huge || cap(b.tt) < size || cap(b.pre) < size || cap(b.scratch) < lanes*laneRegion(size) {
		b.mem, b.tt, b.pre, b.scratch = blockMem(size, huge)
		b.huge = huge
	}
	b.tt = b.tt[:cap(b.tt)]
}

// hugeMinSelectors is the number of selectors above which a block fills
// at least an eighth of a huge page (2 MiB) of tt: each selector is 50
// symbols, each of which stands for one byte or more (a 900 000-byte
// block of mixed data has 8 000, one of random data 18 000).
const hugeMinSelectors = (2 << 20) / 4 / 8 / groupSize

// readBlock reads one block after its magic and CRC into blk: the header,
// the tables and the symbols, leaving the BWT's last column in blk.tt.
func (z *Reader) readBlock(blk *blockBuf) error {
	br := &z.br
	v, err := br.readBits(25)
	if err != nil {
		return err
	}
	randomised := v>>24 != 0
	origPtr := int(v & (1<<24 - 1))

	// Symbol map: which byte values occur, as a 16×16 bitmap.
	ranges, err := br.readBits(16)
	if err != nil {
		return err
	}
	var mtf [256]byte
	numInUse := 0
	for r := range 16 {
		if ranges&(0x8000>>r) == 0 {
			continue
		}
		used, err := br.readBits(16)
		if err != nil {
			return err
		}
		for s := range 16 {
			if used&(0x8000>>s) != 0 {
				mtf[numInUse] = byte(r*16 + s)
				numInUse++
			}
		}
	}
	if numInUse == 0 {
		return formatError("block uses no byte values")
	}
	alphaSize := numInUse + 2

	// Tables and selectors.
	v, err = br.readBits(18)
	if err != nil {
		return err
	}
	numGroups := int(v >> 15)
	numSelectors := int(v & (1<<15 - 1))
	if numGroups < 2 || numGroups > maxGroups {
		return formatError("invalid number of Huffman tables")
	}
	if numSelectors == 0 {
		return formatError("no selectors")
	}
	groupMTF := [maxGroups]uint8{0, 1, 2, 3, 4, 5}
	for i := range numSelectors {
		j := 0
		for {
			bit, err := br.readBit()
			if err != nil {
				return err
			}
			if !bit {
				break
			}
			if j++; j >= numGroups {
				return formatError("selector out of range")
			}
		}
		if i >= maxSelectors {
			continue // read and ignored, as bzip2 1.0.8 does
		}
		g := groupMTF[j]
		copy(groupMTF[1:j+1], groupMTF[:j])
		groupMTF[0] = g
		z.selectors[i] = g
	}
	numSelectors = min(numSelectors, maxSelectors)

	var lens [maxAlphabet]uint8
	for g := range numGroups {
		l, err := br.readBits(5)
		if err != nil {
			return err
		}
		for s := range alphaSize {
			for {
				if l < 1 || l > maxCodeLen {
					return formatError("Huffman code length out of range")
				}
				bit, err := br.readBit()
				if err != nil {
					return err
				}
				if !bit {
					break
				}
				bit, err = br.readBit()
				if err != nil {
					return err
				}
				if bit {
					l--
				} else {
					l++
				}
			}
			lens[s] = uint8(l)
		}
		z.tables[g].build(lens[:alphaSize])
	}

	blk.ensure(z.blockSize, numSelectors > hugeMinSelectors)
	n, err := z.decodeSymbols(blk, &mtf, alphaSize, numSelectors)
	if err != nil {
		return err
	}
	if origPtr >= n {
		return formatError("BWT origin pointer out of range")
	}
	blk.n, blk.origPtr, blk.randomised = n, origPtr, randomised
	return nil
}

// unBWT undoes the BWT of the block read by readBlock, leaving its text
// (before the RLE1 stage) in blk.pre[:blk.n]. It touches nothing but blk,
// so blocks can be undone concurrently.
func (blk *blockBuf) unBWT() {
	blk.link()
	blk.finish()
}

// unBWTHead is unBWT for the first head bytes of the text only (all of it
// for a small or randomised block); finish writes the rest. A reader that
// looks only into the start of a stream (the opener's check for a tar
// inside) then costs no walk through the whole block, about a third of
// its decoding.
func (blk *blockBuf) unBWTHead(head int) {
	blk.link()
	if blk.randomised || blk.n < lanesMinBlock || head >= blk.n {
		blk.finish()
		return
	}
	blk.cursor = walk(blk.pre[:head], blk.tt[:blk.n], blk.cursor)
	blk.walked = head
}

// finish writes the text from pre[walked] to the end of the block.
func (blk *blockBuf) finish() {
	n, tt := blk.n, blk.tt[:blk.n]
	pre := blk.pre[blk.walked:n]
	if n < lanesMinBlock || !blk.walkLanes(blk.cursor, pre) {
		walk(pre, tt, blk.cursor)
	}
	if blk.randomised {
		derandomise(blk.pre[:n])
	}
	blk.walked = n
}

// link turns the last column in tt into the cycle of successor links and
// sets cursor to the position of the text's first byte.
func (blk *blockBuf) link() {
	n, origPtr := blk.n, blk.origPtr

	// Inverse BWT: blk.counts holds the number of each byte value; turn it
	// into the start of each value's range in the sorted first column.
	// Then link every position i of the last column to its successor:
	// tt[j] gets i in its bits 8 and up, where j is i's row in the first
	// column (the LF mapping); the byte stays in the low 8 bits.
	tt := blk.tt[:n]
	sum := int32(0)
	for i := range blk.counts {
		c := blk.counts[i]
		blk.counts[i] = sum
		sum += c
	}
	counts := &blk.counts
	for i := range tt {
		b := byte(tt[i])
		j := counts[b]
		counts[b]++
		tt[j] |= uint32(i) << 8
	}

	// The links form one cycle through all n positions (in a valid
	// block); the text starts at tt[origPtr]'s successor.
	blk.cursor = tt[origPtr] >> 8
	blk.walked = 0
}

// walk follows the cycle from start through len(pre) positions of tt,
// writing their bytes to pre, and returns the position it stopped at.
// Flag bits left by walkLanes are ignored.
func walk(pre []byte, tt []uint32, start uint32) uint32 {
	cur := start
	for k := range pre {
		t := tt[cur]
		pre[k] = byte(t)
		cur = t >> 8 & laneIndexMask
	}
	return cur
}

const (
	// lanes is the number of walks through the cycle that walkLanes
	// interleaves: each step of each is a cache miss, and independent
	// misses overlap. Sixteen rather than eight: t of a 4 MiB mixed
	// .tar.bz2 0.93x the CPU with one thread and 0.90x with two
	// (cpupairs, 40 rounds), numbers 1.00x and 0.99x.
	lanes = 16
	// laneSegment is the mean length of a segment of the cycle.
	laneSegment = 4096
	// lanesMinBlock is the smallest block walked in lanes; smaller ones
	// fit in the cache.
	lanesMinBlock = 1 << 15
	// laneFlag marks the positions of tt where a segment starts.
	laneFlag = 1 << 31
	// laneIndexMask keeps the position of a link shifted down by 8.
	laneIndexMask = 1<<23 - 1
	// laneIdle is the position of a lane that has nothing left to walk.
	laneIdle = ^uint32(0)
	// laneSlack is the room of a lane's region beyond an even share of
	// the block: the lanes walk in step, so each writes an even share
	// and then the rest of its last segment (a few KiB on real data;
	// segments are about exponentially distributed, so one longer than
	// 48 KiB beyond the share, which falls back to the plain walk, is
	// rarer than one in 100 000). At level 9 the sixteen regions take
	// 1.7 MB, so that tt, the text and the scratch fill three huge pages
	// (blockMem).
	laneSlack = 48 << 10
)

// laneRegion is the size of each lane's region of blk.scratch for a block
// of n bytes.
func laneRegion(n int) int { return n/lanes + laneSlack }

// segment is a part of the cycle walked by one lane: the bytes of the
// positions from a marked one up to the next marked one (excluded), stored
// at off in the lane's region of blk.scratch.
type segment struct {
	lane     int32
	off, len int32
	next     int32 // the segment that follows in the cycle
}

// walkLanes writes the text of a block whose tt links are built, from the
// byte at position start on, into pre (at most the block's length), by
// cutting the cycle at a number of positions — start and
// evenly spaced ones, marked with laneFlag in tt — and walking lanes of the
// resulting segments at once, each lane writing its segments one after
// the other into its own region of blk.scratch (laneRegion(n) bytes). The
// segments are then copied to pre in their order on the cycle, from the
// one at start. It reports false, leaving pre to walk, when the segments
// from start do not cover the block (the links form several cycles:
// corrupt input) or a lane's share outgrows its region (a segment longer
// than laneSlack at the end).
func (blk *blockBuf) walkLanes(start uint32, pre []byte) bool {
	n := blk.n
	tt := blk.tt[:n]
	cuts := blk.cuts[:0]
	segs := n / laneSegment
	for i := range segs {
		p := uint32(i * n / segs)
		if start > p && (i+1 == segs || start < uint32((i+1)*n/segs)) {
			cuts = append(cuts, p, start)
			continue
		}
		cuts = append(cuts, p)
	}
	blk.cuts = cuts
	for _, p := range cuts {
		tt[p] |= laneFlag
	}
	if cap(blk.segs) < len(cuts) {
		blk.segs = make([]segment, len(cuts))
	}
	seg := blk.segs[:len(cuts)]
	rn := laneRegion(n)
	scratch := blk.scratch[:lanes*rn]
	cutOf := func(p uint32) int32 {
		i, _ := slices.BinarySearch(cuts, p)
		return int32(i)
	}

	// Lane k walks from cur[k], writing at out[k] in region k, segment
	// id[k]; next is the next segment to hand out.
	var cur [lanes]uint32
	var out, id [lanes]int32
	next := int32(0)
	// begin starts lane k on the next segment: its first position is
	// marked, so it is stepped here rather than by the loops below.
	begin := func(k int) bool {
		if int(next) == len(cuts) {
			return false
		}
		s := next
		next++
		seg[s] = segment{lane: int32(k), off: out[k]}
		id[k] = s
		t := tt[cuts[s]]
		scratch[k*rn+int(out[k])] = byte(t)
		out[k]++
		cur[k] = t >> 8 & laneIndexMask
		return true
	}
	// end closes lane k's segment at the marked position cur[k].
	end := func(k int) {
		s := &seg[id[k]]
		s.len = out[k] - s.off
		s.next = cutOf(cur[k])
	}
	idle := false
	for k := range lanes {
		if !begin(k) {
			cur[k], idle = laneIdle, true
		}
	}
	// While no lane is idle, every step writes one byte in every region
	// (a lane that starts a segment writes its first), so all lanes are
	// at the same offset o of their regions.
	r0 := scratch[0*rn : 1*rn]
	r1 := scratch[1*rn : 2*rn]
	r2 := scratch[2*rn : 3*rn]
	r3 := scratch[3*rn : 4*rn]
	r4 := scratch[4*rn : 5*rn]
	r5 := scratch[5*rn : 6*rn]
	r6 := scratch[6*rn : 7*rn]
	r7 := scratch[7*rn : 8*rn]
	r8 := scratch[8*rn : 9*rn]
	r9 := scratch[9*rn : 10*rn]
	r10 := scratch[10*rn : 11*rn]
	r11 := scratch[11*rn : 12*rn]
	r12 := scratch[12*rn : 13*rn]
	r13 := scratch[13*rn : 14*rn]
	r14 := scratch[14*rn : 15*rn]
	r15 := scratch[15*rn : 16*rn]
	c0, c1, c2, c3 := cur[0], cur[1], cur[2], cur[3]
	c4, c5, c6, c7 := cur[4], cur[5], cur[6], cur[7]
	c8, c9, c10, c11 := cur[8], cur[9], cur[10], cur[11]
	c12, c13, c14, c15 := cur[12], cur[13], cur[14], cur[15]
	o := int(out[0])
	for !idle {
		t0, t1, t2, t3 := tt[c0], tt[c1], tt[c2], tt[c3]
		t4, t5, t6, t7 := tt[c4], tt[c5], tt[c6], tt[c7]
		t8, t9, t10, t11 := tt[c8], tt[c9], tt[c10], tt[c11]
		t12, t13, t14, t15 := tt[c12], tt[c13], tt[c14], tt[c15]
		if (t0|t1|t2|t3|t4|t5|t6|t7|t8|t9|t10|t11|t12|t13|t14|t15)&laneFlag == 0 && o < rn {
			r0[o], r1[o], r2[o], r3[o] = byte(t0), byte(t1), byte(t2), byte(t3)
			r4[o], r5[o], r6[o], r7[o] = byte(t4), byte(t5), byte(t6), byte(t7)
			r8[o], r9[o], r10[o], r11[o] = byte(t8), byte(t9), byte(t10), byte(t11)
			r12[o], r13[o], r14[o], r15[o] = byte(t12), byte(t13), byte(t14), byte(t15)
			o++
			c0, c1, c2, c3 = t0>>8, t1>>8, t2>>8, t3>>8
			c4, c5, c6, c7 = t4>>8, t5>>8, t6>>8, t7>>8
			c8, c9, c10, c11 = t8>>8, t9>>8, t10>>8, t11>>8
			c12, c13, c14, c15 = t12>>8, t13>>8, t14>>8, t15>>8
			continue
		}
		if o == rn {
			return false // a lane's share outgrew its region
		}
		cur = [lanes]uint32{c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, c12, c13, c14, c15}
		for k := range lanes {
			out[k] = int32(o)
			t := tt[cur[k]]
			if t&laneFlag == 0 {
				scratch[k*rn+o] = byte(t)
				out[k]++
				cur[k] = t >> 8
				continue
			}
			end(k)
			if !begin(k) {
				cur[k], idle = laneIdle, true
			}
		}
		o++
		c0, c1, c2, c3 = cur[0], cur[1], cur[2], cur[3]
		c4, c5, c6, c7 = cur[4], cur[5], cur[6], cur[7]
		c8, c9, c10, c11 = cur[8], cur[9], cur[10], cur[11]
		c12, c13, c14, c15 = cur[12], cur[13], cur[14], cur[15]
	}
	// No segment is left to hand out: finish the lanes still walking one
	// after the other.
	for k := range lanes {
		if cur[k] == laneIdle {
			continue
		}
		for {
			t := tt[cur[k]]
			if t&laneFlag != 0 {
				end(k)
				break
			}
			if int(out[k]) == rn {
				return false
			}
			scratch[k*rn+int(out[k])] = byte(t)
			out[k]++
			cur[k] = t >> 8
		}
	}

	// Copy the segments in cycle order, as far as pre goes, and check
	// that they cover the block.
	first := cutOf(start)
	w, covered := 0, 0
	for s := first; ; {
		g := seg[s]
		if w < len(pre) {
			base := int(g.lane) * rn
			w += copy(pre[w:], scratch[base+int(g.off):base+int(g.off+g.len)])
		}
		covered += int(g.len)
		if s = g.next; s == first || covered >= n {
			return s == first && covered == n
		}
	}
}

// derandomise flips back the lowest bit of the bytes at the positions the
// format's table gives, for blocks marked randomised.
func derandomise(pre []byte) {
	gap, idx := 0, 0
	for k := range pre {
		if gap == 0 {
			gap = int(randomGaps[idx])
			idx = (idx + 1) % len(randomGaps)
		}
		gap--
		if gap == 1 {
			pre[k] ^= 1
		}
	}
}

// decodeSymbols decodes the Huffman-coded symbols of a block, undoing the
// zero-run coding and move-to-front, and stores the BWT's last column in
// the low bytes of blk.tt (upper bits zero) and the byte counts in
// blk.counts.
// It returns the number of bytes.
func (z *Reader) decodeSymbols(blk *blockBuf, mtf *[256]byte, alphaSize, numSelectors int) (int, error) {
	br := &z.br
	tt := blk.tt[:z.blockSize]
	counts := &blk.counts
	clear(counts[:])
	eob := uint16(alphaSize - 1)

	bits, nb := br.bits, br.n
	buf, pos := br.buf, br.pos
	fastEnd := br.end - 8

	n := 0
	run, runShift := 0, uint(0)
	sel := 0
	t := &z.tables[z.selectors[0]]
	if t.oversubscribed {
		return 0, br.stopAt(bits, nb, pos, "Huffman code lengths oversubscribed")
	}
	left := groupSize
	for {
		if left == 0 {
			if sel++; sel >= numSelectors {
				return 0, br.stopAt(bits, nb, pos, "more symbols than selectors")
			}
			t = &z.tables[z.selectors[sel]]
			if t.oversubscribed {
				return 0, br.stopAt(bits, nb, pos, "Huffman code lengths oversubscribed")
			}
			left = groupSize
		}
		left--
		if nb < maxCodeLen {
			if pos <= fastEnd {
				bits |= binary.BigEndian.Uint64(buf[pos:]) >> nb
				pos += int(63-nb) >> 3
				nb |= 56
			} else {
				br.bits, br.n, br.pos = bits, nb, pos
				br.refill()
				bits, nb = br.bits, br.n
				buf, pos = br.buf, br.pos
				fastEnd = br.end - 8
			}
		}
		e := t.primary[bits>>(64-primaryBits)]
		l := uint(e & 31)
		sym := e >> 5
		if l == 0 {
			var ok bool
			sym, l, ok = t.decodeLong(bits)
			if !ok {
				return 0, br.stopAt(bits, nb, pos, "invalid Huffman code")
			}
		}
		if l > nb {
			br.bits, br.n, br.pos = bits, nb, pos
			return 0, br.missing()
		}
		bits <<= l
		nb -= l

		if sym <= 1 {
			// RUNA (1) or RUNB (2) times the current weight, in
			// bijective base 2.
			run += int(sym+1) << runShift
			runShift++
			if run > len(tt)-n {
				return 0, br.stopAt(bits, nb, pos, "run exceeds the block size")
			}
			continue
		}
		if run > 0 {
			b := mtf[0]
			counts[b] += int32(run)
			fill := tt[n : n+run]
			if len(fill) < 16 {
				for i := range fill {
					fill[i] = uint32(b)
				}
			} else {
				fill[0] = uint32(b)
				for k := 1; k < len(fill); k *= 2 {
					copy(fill[k:], fill[:k])
				}
			}
			n += run
			run, runShift = 0, 0
		}
		if sym == eob {
			break
		}
		if n >= len(tt) {
			return 0, br.stopAt(bits, nb, pos, "block exceeds the block size")
		}
		// Move-to-front index sym-1 (index 0 is always coded as a run).
		k := uint(sym-1) & 0xff
		b := moveToFront(mtf, k)
		tt[n] = uint32(b)
		counts[b]++
		n++
	}
	br.bits, br.n, br.pos = bits, nb, pos
	return n, nil
}

// moveToFront returns mtf[k] and moves it to the front, shifting
// mtf[0:k] up by one. Small k (the common case) work on 64-bit words
// (little-endian, so a shift left by 8 moves every byte one place up);
// larger ones use copy.
func moveToFront(mtf *[256]byte, k uint) byte {
	b := mtf[k]
	top := k >> 3
	m := uint64(1)<<(8*(k&7)+8) - 1 // bytes 0..k&7 of the top word
	if top == 0 {
		w := binary.LittleEndian.Uint64(mtf[0:8])
		w = w&^m | (w<<8)&m | uint64(b)
		binary.LittleEndian.PutUint64(mtf[0:8], w)
		return b
	}
	if top > 1 {
		copy(mtf[1:k+1], mtf[:k])
		mtf[0] = b
		return b
	}
	w := binary.LittleEndian.Uint64(mtf[top*8 : top*8+8])
	low := binary.LittleEndian.Uint64(mtf[top*8-8 : top*8])
	w = w&^m | (w<<8)&m | low>>56
	binary.LittleEndian.PutUint64(mtf[top*8:top*8+8], w)
	for i := top - 1; i > 0; i-- {
		w := low
		low = binary.LittleEndian.Uint64(mtf[i*8-8 : i*8])
		binary.LittleEndian.PutUint64(mtf[i*8:i*8+8], w<<8|low>>56)
	}
	binary.LittleEndian.PutUint64(mtf[0:8], low<<8|uint64(b))
	return b
}
