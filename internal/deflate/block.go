package deflate

// A symbol of the parse is a literal byte (below 1<<16) or a match packed
// as length<<16 | distance.

// histogram holds the symbol frequencies of a run of symbols.
type histogram struct {
	lit  [numLitLen]uint32
	dist [numDist]uint32
}

func (h *histogram) add(syms []uint32) {
	for _, s := range syms {
		if s < 1<<16 {
			h.lit[s]++
			continue
		}
		h.lit[257+int(lenCode[s>>16])]++
		h.dist[distCodeOf[(s&0xffff)-1]]++
	}
}

// code is a block's dynamic Huffman code and the code length code that
// sends it.
type code struct {
	lit      [numLitLen]uint8
	dist     [numDist]uint8
	litCode  [numLitLen]uint16
	distCode [numDist]uint16
	hlit     int
	hdist    int
	cl       [numCodeLen]uint8
	clCode   [numCodeLen]uint16
	hclen    int
	rle      [numLitLen + numDist]uint16 // code length symbols, extra bits value << 5 | symbol
	nrle     int
	header   int // bits of the header after BFINAL and BTYPE
}

// build computes the code of histogram h (whose EOB count the caller has
// set) and the size of its header.
func (c *code) build(hb *huffBuilder, h *histogram) {
	hb.lengths(h.lit[:], c.lit[:], maxCodeBits)
	hb.lengths(h.dist[:], c.dist[:], maxCodeBits)
	c.hlit = numLitLen
	for c.hlit > 257 && c.lit[c.hlit-1] == 0 {
		c.hlit--
	}
	c.hdist = numDist
	for c.hdist > 1 && c.dist[c.hdist-1] == 0 {
		c.hdist--
	}
	// Run-length code the two length lists as one (section 3.2.7).
	var all [numLitLen + numDist]uint8
	n := copy(all[:], c.lit[:c.hlit])
	n += copy(all[n:], c.dist[:c.hdist])
	c.nrle = 0
	var clFreq [numCodeLen]uint32
	emit := func(sym, extra uint16) {
		c.rle[c.nrle] = extra<<5 | sym
		c.nrle++
		clFreq[sym]++
	}
	for i := 0; i < n; {
		v := all[i]
		run := 1
		for i+run < n && all[i+run] == v {
			run++
		}
		i += run
		if v == 0 {
			for run >= 11 {
				r := min(run, 138)
				emit(18, uint16(r-11))
				run -= r
			}
			if run >= 3 {
				emit(17, uint16(run-3))
				run = 0
			}
		} else {
			emit(uint16(v), 0)
			run--
			for run >= 3 {
				r := min(run, 6)
				emit(16, uint16(r-3))
				run -= r
			}
		}
		for ; run > 0; run-- {
			emit(uint16(v), 0)
		}
	}
	hb.lengths(clFreq[:], c.cl[:], maxCLBits)
	c.hclen = numCodeLen
	for c.hclen > 4 && c.cl[codeLenOrder[c.hclen-1]] == 0 {
		c.hclen--
	}
	c.header = 5 + 5 + 4 + 3*c.hclen
	for _, r := range c.rle[:c.nrle] {
		sym := r & 31
		c.header += int(c.cl[sym])
		switch sym {
		case 16:
			c.header += 2
		case 17:
			c.header += 3
		case 18:
			c.header += 7
		}
	}
}

// dataBits is the size in bits of the symbols counted in h coded with
// the code lengths lit and dist, extra bits included.
func dataBits(h *histogram, lit, dist []uint8) int {
	n := 0
	for s, f := range h.lit[:257] {
		n += int(f) * int(lit[s])
	}
	for c, f := range h.lit[257:] {
		n += int(f) * (int(lit[257+c]) + int(lengthExtra[c]))
	}
	for c, f := range h.dist {
		n += int(f) * (int(dist[c]) + int(distExtra[c]))
	}
	return n
}

// fixedLit and fixedDist are the code lengths of the fixed code
// (section 3.2.6), fixedLitCode and fixedDistCode its codes; buildFixed
// fills them, with the other tables (buildTables).
var (
	fixedLit      [288]uint8
	fixedDist     [32]uint8
	fixedLitCode  [288]uint16
	fixedDistCode [32]uint16
)

func buildFixed() {
	for i := range fixedLit {
		switch {
		case i < 144:
			fixedLit[i] = 8
		case i < 256:
			fixedLit[i] = 9
		case i < 280:
			fixedLit[i] = 7
		default:
			fixedLit[i] = 8
		}
	}
	for i := range fixedDist {
		fixedDist[i] = 5
	}
	codes(fixedLit[:], fixedLitCode[:])
	codes(fixedDist[:], fixedDistCode[:])
}

// storedBits is the size of n input bytes sent as stored blocks, from a
// position bitPos bits into a byte.
func storedBits(n int) int {
	blocks := max(1, (n+0xffff-1)/0xffff)
	return blocks*(3+4+32) + 8*n // 3 header bits, about 4 of padding
}

// blockKind is how a block is best sent.
type blockKind int

const (
	kindDynamic blockKind = iota
	kindFixed
	kindStored
)

// blockCost returns the size in bits of the symbols counted in h
// (standing for n input bytes) sent as one block, its best kind, and
// leaves the dynamic code in c.
func (e *Writer) blockCost(h *histogram, n int, c *code) (int, blockKind) {
	h.lit[endOfBlock] = 1
	c.build(&e.hb, h)
	dyn := 3 + c.header + dataBits(h, c.lit[:], c.dist[:])
	fix := 3 + dataBits(h, fixedLit[:], fixedDist[:])
	sto := storedBits(n)
	switch {
	case sto < dyn && sto < fix:
		return sto, kindStored
	case fix <= dyn:
		return fix, kindFixed
	}
	return dyn, kindDynamic
}

// writeSyms writes the symbols and the end of block with the given codes.
func (b *bitWriter) writeSyms(syms []uint32, litLen []uint8, litCode []uint16, distLen []uint8, distCode []uint16) {
	for _, s := range syms {
		if s < 1<<16 {
			b.bits(uint32(litCode[s]), uint(litLen[s]))
			continue
		}
		l := int(s >> 16)
		lc := int(lenCode[l])
		b.bits(uint32(litCode[257+lc]), uint(litLen[257+lc]))
		if x := lengthExtra[lc]; x > 0 {
			b.bits(uint32(l-int(lengthBase[lc])), uint(x))
		}
		d := int(s & 0xffff)
		dc := int(distCodeOf[d-1])
		b.bits(uint32(distCode[dc]), uint(distLen[dc]))
		if x := distExtra[dc]; x > 0 {
			b.bits(uint32(d-int(distBase[dc])), uint(x))
		}
	}
	b.bits(uint32(litCode[endOfBlock]), uint(litLen[endOfBlock]))
}

// writeBlock writes syms, standing for the input bytes raw, as one block
// of the given kind; c is the dynamic code when kind is kindDynamic.
func (b *bitWriter) writeBlock(syms []uint32, raw []byte, kind blockKind, c *code, final bool) {
	fin := uint32(0)
	if final {
		fin = 1
	}
	switch kind {
	case kindStored:
		for {
			n := min(len(raw), 0xffff)
			last := n == len(raw)
			f := uint32(0)
			if last {
				f = fin
			}
			b.bits(f, 3)
			b.align()
			b.out = append(b.out, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
			b.out = append(b.out, raw[:n]...)
			raw = raw[n:]
			if last {
				return
			}
		}
	case kindFixed:
		b.bits(fin|1<<1, 3)
		b.writeSyms(syms, fixedLit[:], fixedLitCode[:], fixedDist[:], fixedDistCode[:])
	default:
		b.bits(fin|2<<1, 3)
		codes(c.lit[:], c.litCode[:])
		codes(c.dist[:], c.distCode[:])
		codes(c.cl[:], c.clCode[:])
		b.bits(uint32(c.hlit-257), 5)
		b.bits(uint32(c.hdist-1), 5)
		b.bits(uint32(c.hclen-4), 4)
		for _, s := range codeLenOrder[:c.hclen] {
			b.bits(uint32(c.cl[s]), 3)
		}
		for _, r := range c.rle[:c.nrle] {
			sym := r & 31
			b.bits(uint32(c.clCode[sym]), uint(c.cl[sym]))
			switch sym {
			case 16:
				b.bits(uint32(r>>5), 2)
			case 17:
				b.bits(uint32(r>>5), 3)
			case 18:
				b.bits(uint32(r>>5), 7)
			}
		}
		b.writeSyms(syms, c.lit[:], c.litCode[:], c.dist[:], c.distCode[:])
	}
}
