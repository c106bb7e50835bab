package old

import (
	"encoding/binary"
)

// readBlock reads one block after its magic and CRC: the header, the
// tables, the symbols, and builds the inverse BWT chain in z.tt. On return
// z.tPos and z.left describe the chain to walk.
func (z *Reader) readBlock() error {
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

	n, err := z.decodeSymbols(&mtf, alphaSize, numSelectors)
	if err != nil {
		return err
	}
	if origPtr >= n {
		return formatError("BWT origin pointer out of range")
	}

	// Inverse BWT: z.counts holds the number of each byte value; turn it
	// into the start of each value's range in the sorted first column and
	// link every position of the last column to its successor.
	tt := z.tt[:n]
	sum := int32(0)
	for i := range z.counts {
		c := z.counts[i]
		z.counts[i] = sum
		sum += c
	}
	counts := &z.counts
	for i := range tt {
		b := byte(tt[i])
		tt[counts[b]] |= uint32(i) << 8
		counts[b]++
	}
	z.tPos = tt[origPtr] >> 8
	z.left = n
	z.randomised = randomised
	z.randGap, z.randIndex = 0, 0
	z.last, z.run, z.repeat = -1, 0, 0
	return nil
}

// decodeSymbols decodes the Huffman-coded symbols of a block, undoing the
// zero-run coding and move-to-front, and stores the BWT's last column in
// the low bytes of z.tt (upper bits zero) and the byte counts in z.counts.
// It returns the number of bytes.
func (z *Reader) decodeSymbols(mtf *[256]byte, alphaSize, numSelectors int) (int, error) {
	br := &z.br
	tt := z.tt[:z.blockSize]
	counts := &z.counts
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
			for i := range fill {
				fill[i] = uint32(b)
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
		k := int(sym - 1)
		b := mtf[k]
		if k < 16 {
			for ; k > 0; k-- {
				mtf[k] = mtf[k-1]
			}
		} else {
			copy(mtf[1:k+1], mtf[:k])
		}
		mtf[0] = b
		tt[n] = uint32(b)
		counts[b]++
		n++
	}
	br.bits, br.n, br.pos = bits, nb, pos
	return n, nil
}
