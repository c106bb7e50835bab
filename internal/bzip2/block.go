package bzip2

import (
	"encoding/binary"
)

// blockBuf holds one block's buffers, sized for the largest block size
// seen so far. The sequential Reader has one; in parallel mode each
// worker has its own (parallel.go).
type blockBuf struct {
	tt     []uint32 // BWT last column with successor links
	lf     []uint32 // the same with predecessor links
	pre    []byte   // the block's text before the RLE1 stage
	counts [256]int32

	n          int // bytes in the block
	origPtr    int
	randomised bool
	wantCRC    uint32
}

// ensure sizes the buffers for blocks of up to size bytes.
func (b *blockBuf) ensure(size int) {
	if cap(b.tt) < size {
		b.tt = make([]uint32, size)
		b.lf = make([]uint32, size)
		b.pre = make([]byte, size)
	}
	b.tt = b.tt[:cap(b.tt)]
}

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

	blk.ensure(z.blockSize)
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
	n, origPtr := blk.n, blk.origPtr

	// Inverse BWT: blk.counts holds the number of each byte value; turn it
	// into the start of each value's range in the sorted first column.
	// Then link every position i of the last column both ways: tt[j]
	// gets i as successor and lf[i] gets j as predecessor, where j is i's
	// row in the first column (the LF mapping). Both carry the byte in
	// their low 8 bits.
	tt, lf := blk.tt[:n], blk.lf[:n]
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
		lf[i] = uint32(j)<<8 | uint32(b)
	}

	// The links form one cycle through all n positions; the text starts
	// at tt[origPtr]'s successor and ends at origPtr. Walking forward
	// from the start and backward from the end at once gives two
	// independent chains of cache misses instead of one.
	pre := blk.pre[:n]
	fwd := tt[origPtr] >> 8
	bwd := uint32(origPtr)
	lo, hi := 0, n-1
	for lo < hi {
		t := tt[fwd]
		u := lf[bwd]
		fwd = t >> 8
		bwd = u >> 8
		pre[lo] = byte(t)
		pre[hi] = byte(u)
		lo++
		hi--
	}
	if lo == hi {
		pre[lo] = byte(tt[fwd])
	}
	if blk.randomised {
		derandomise(pre)
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
		return 0, formatError("Huffman code lengths oversubscribed")
	}
	left := groupSize
	for {
		if left == 0 {
			if sel++; sel >= numSelectors {
				return 0, formatError("more symbols than selectors")
			}
			t = &z.tables[z.selectors[sel]]
			if t.oversubscribed {
				return 0, formatError("Huffman code lengths oversubscribed")
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
				return 0, formatError("invalid Huffman code")
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
				return 0, formatError("run exceeds the block size")
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
			return 0, formatError("block exceeds the block size")
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
