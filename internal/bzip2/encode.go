package bzip2

import (
	"bytes"
	"slices"
)

const (
	encodeMaxLen = 17 // code length limit when building, as bzip2 does
	encodeIters  = 4  // table refinement passes
)

// blockEncoder compresses one block: the bytes left by the initial
// run-length stage go in block; encode leaves the block's bits (from the
// block magic to the last symbol) in out. All buffers are kept for the next
// block.
type blockEncoder struct {
	block []byte // input: the RLE1 output, at most the block size
	crc   uint32 // input: the block CRC (of the data before RLE1)
	inUse [256]bool

	// The sorting and move-to-front buffers, lent by the Writer for the
	// time of encode (a Writer has one per thread, not one per block in
	// flight).
	*encodeWork

	freq      [maxAlphabet]int32
	selectors []uint8
	lens      [maxGroups][maxAlphabet]uint8
	codes     [maxGroups][maxAlphabet]uint32
	rfreq     [maxGroups][maxAlphabet]int32
	hw        huffWork

	out  bitSink
	bits int // bits of out holding the block

	done chan struct{} // parallel mode: encode finished
}

// encodeWork holds the largest buffers of encode, about 12 bytes per byte
// of the block size, which a block needs only while it is being encoded.
type encodeWork struct {
	text []uint16 // the block rotated to its least rotation, each byte + 1, and a 0 sentinel
	sa   []int32
	ws   saisWork
	bwt  []byte
	mtfv []uint16
}

func newBlockEncoder(size int) *blockEncoder {
	return &blockEncoder{block: make([]byte, 0, size)}
}

// room returns the length to allocate a buffer for when a block of n
// bytes needs a larger one: the block size (cap(e.block)) once n is more
// than half of it, so that blocks of slightly different lengths do not
// replace the buffers again and again (each time leaving the old ones to
// the garbage collector, which let the heap grow with the input); n for
// smaller blocks, so that a short stream allocates little.
func (e *blockEncoder) room(n int) int {
	if size := cap(e.block); n > size/2 {
		return max(n, size)
	}
	return n
}

// encode compresses e.block into e.out.
func (e *blockEncoder) encode() {
	origPtr := e.sortBlock()
	nInUse := e.moveToFront()
	alphaSize := nInUse + 2
	nGroups, nSel := e.chooseTables(alphaSize)

	w := &e.out
	w.reset()
	// Room for the block's bits: about the block size for incompressible
	// data (the longest usual), so that the buffer is not replaced for
	// every larger block; appends grow it for anything longer.
	if want := e.room(len(e.block))*65/64 + 4096; cap(w.b) < want {
		w.b = make([]byte, 0, want)
	}
	w.write48(blockMagic)
	w.write(e.crc, 32)
	w.write(0, 1) // not randomised
	w.write(uint32(origPtr), 24)

	// Symbol map: a bit per 16-value range, then 16 bits per used range.
	var ranges uint32
	for r := range 16 {
		if slices.Contains(e.inUse[r*16:r*16+16], true) {
			ranges |= 0x8000 >> r
		}
	}
	w.write(ranges, 16)
	for r := range 16 {
		if ranges&(0x8000>>r) == 0 {
			continue
		}
		var used uint32
		for s := range 16 {
			if e.inUse[r*16+s] {
				used |= 0x8000 >> s
			}
		}
		w.write(used, 16)
	}

	// Selectors, move-to-front then unary coded.
	w.write(uint32(nGroups), 3)
	w.write(uint32(nSel), 15)
	order := [maxGroups]uint8{0, 1, 2, 3, 4, 5}
	for _, s := range e.selectors[:nSel] {
		j := 0
		for order[j] != s {
			j++
		}
		copy(order[1:j+1], order[:j])
		order[0] = s
		w.write(1<<(j+1)-2, uint(j+1))
	}

	// Code lengths, delta coded.
	for t := range nGroups {
		lens := e.lens[t][:alphaSize]
		cur := lens[0]
		w.write(uint32(cur), 5)
		for _, l := range lens {
			for cur < l {
				w.write(2, 2)
				cur++
			}
			for cur > l {
				w.write(3, 2)
				cur--
			}
			w.write(0, 1)
		}
	}

	// Symbols.
	mtfv := e.mtfv
	for g, t := range e.selectors[:nSel] {
		group := mtfv[g*groupSize : min(g*groupSize+groupSize, len(mtfv))]
		lens, codes := &e.lens[t], &e.codes[t]
		for _, s := range group {
			w.write(codes[s], uint(lens[s]))
		}
	}
	e.bits = w.bits()
	w.flushPartial()
}

// sortBlock computes the Burrows–Wheeler transform of the block (the last
// column of its sorted cyclic rotations), leaves it in e.bwt and returns
// the row of the unrotated block.
//
// Rotations are sorted as suffixes, by one linear-time suffix sort of n+1
// characters, thanks to a property of Lyndon words (words strictly smaller
// than each of their other rotations): a Lyndon word's rotations are in
// the same order as its suffixes, a suffix that is a proper prefix of
// another coming first. (When suffix j is a proper prefix of suffix i, the
// rotations continue with the whole word for j and with a proper suffix of
// it for i, and a proper suffix of a Lyndon word is greater than the word
// and not a prefix of it.) So the block is rotated to start at its least
// rotation; if that is u repeated k times with u primitive, u is a Lyndon
// word, the rotations of the block are those of u each repeated k times,
// and the last column is u's with every character repeated k times.
func (e *blockEncoder) sortBlock() int {
	block := e.block
	n := len(block)
	if cap(e.text) < n+1 {
		e.text = make([]uint16, e.room(n)+1)
		e.sa = make([]int32, e.room(n)+1)
	}
	if cap(e.bwt) < n {
		e.bwt = make([]byte, e.room(n))
	}
	e.bwt = e.bwt[:n]
	text, sa, bwt := e.text[:n+1], e.sa[:n+1], e.bwt

	// The least rotation r, and the block rotated there in text (each byte
	// plus one, leaving 0 for the sentinel).
	r := leastRotation(block)
	for i, c := range block[r:] {
		text[i] = uint16(c) + 1
	}
	for i, c := range block[:r] {
		text[n-r+i] = uint16(c) + 1
	}
	text[n] = 0

	// Its smallest period p (the prefix function of KMP, in sa).
	p := n
	if n > 1 {
		fail := sa[:n]
		fail[0] = 0
		k := int32(0)
		for i := 1; i < n; i++ {
			for k > 0 && text[i] != text[k] {
				k = fail[k-1]
			}
			if text[i] == text[k] {
				k++
			}
			fail[i] = k
		}
		if q := n - int(fail[n-1]); n%q == 0 {
			p = q
		}
	}
	reps := n / p

	// Sort the suffixes of u = text[:p] followed by the sentinel.
	u := text[:p+1]
	u[p] = 0
	usa := sa[:p+1]
	e.ws.prepare(p+1, 257, e.room(n)+1)
	saisSort(u, usa, 257, &e.ws)

	// The block itself is rotation (n-r) mod n of the rotated block, that
	// is rotation (n-r) mod p of u.
	self := int32((n - r) % n % p)
	origPtr, k := 0, 0
	for _, q := range usa[1:] { // usa[0] is the sentinel
		if q == self {
			origPtr = k
		}
		prev := int(q) - 1
		if prev < 0 {
			prev = p - 1
		}
		last := byte(u[prev] - 1)
		if reps == 1 {
			bwt[k] = last
			k++
			continue
		}
		for range reps {
			bwt[k] = last
			k++
		}
	}
	return origPtr
}

// leastRotation returns the start of the lexicographically least rotation
// of b (the first one if several are equal), in linear time: candidates i
// and j are compared character by character; on a difference at offset k
// the larger candidate and the k positions after it cannot start a least
// rotation and are skipped.
func leastRotation(b []byte) int {
	n := len(b)
	i, j, k := 0, 1, 0
	for i < n && j < n && k < n {
		x, y := i+k, j+k
		if x >= n {
			x -= n
		}
		if y >= n {
			y -= n
		}
		if b[x] == b[y] {
			k++
			continue
		}
		if b[x] > b[y] {
			i += k + 1
		} else {
			j += k + 1
		}
		if i == j {
			j++
		}
		k = 0
	}
	return min(i, j)
}

// moveToFront turns the last column into the symbols of the entropy
// stage: move-to-front indexes over the used byte values, zero runs coded
// in bijective base 2 with RUNA (0) and RUNB (1), other indexes j as j+1,
// and the end-of-block symbol. It counts the symbols in e.freq and returns
// the number of byte values used.
func (e *blockEncoder) moveToFront() int {
	var seqOf [256]uint8
	var order [256]uint8
	nInUse := 0
	for b, used := range e.inUse {
		if used {
			seqOf[b] = uint8(nInUse)
			order[nInUse] = uint8(nInUse)
			nInUse++
		}
	}
	if cap(e.mtfv) < len(e.bwt)+1 {
		e.mtfv = make([]uint16, 0, e.room(len(e.bwt))+1)
	}
	mtfv := e.mtfv[:0]
	freq := &e.freq
	clear(freq[:])
	zrun := 0
	flushRun := func() {
		for zrun > 0 {
			if zrun&1 != 0 {
				mtfv = append(mtfv, 0)
				freq[0]++
				zrun = (zrun - 1) >> 1
			} else {
				mtfv = append(mtfv, 1)
				freq[1]++
				zrun = (zrun - 2) >> 1
			}
		}
	}
	for _, c := range e.bwt {
		s := seqOf[c]
		if order[0] == s {
			zrun++
			continue
		}
		if zrun > 0 {
			flushRun()
		}
		// The decoder's moveToFront does the shifting a word at a
		// time.
		j := 1 + bytes.IndexByte(order[1:nInUse], s)
		moveToFront(&order, uint(j))
		mtfv = append(mtfv, uint16(j+1))
		freq[j+1]++
	}
	flushRun()
	mtfv = append(mtfv, uint16(nInUse+1))
	freq[nInUse+1]++
	e.mtfv = mtfv
	return nInUse
}

// chooseTables picks the number of code tables, assigns a table to each
// group of 50 symbols and builds the tables' code lengths and codes. It
// starts from tables that each cover a slice of the alphabet holding an
// equal share of the symbols, then repeats: give each group the table that
// codes it in the fewest bits, and rebuild each table from the symbols of
// its groups.
func (e *blockEncoder) chooseTables(alphaSize int) (nGroups, nSel int) {
	nMTF := len(e.mtfv)
	switch {
	case nMTF < 200:
		nGroups = 2
	case nMTF < 600:
		nGroups = 3
	case nMTF < 1200:
		nGroups = 4
	case nMTF < 2400:
		nGroups = 5
	default:
		nGroups = 6
	}
	nSel = (nMTF + groupSize - 1) / groupSize
	if cap(e.selectors) < nSel {
		e.selectors = make([]uint8, nSel, max(nSel, maxSelectors))
	}
	e.selectors = e.selectors[:nSel]

	// Initial tables: table t is cheap (length 0) on its share of the
	// alphabet and expensive (15) elsewhere.
	remaining := nMTF
	lo := 0
	for t := range nGroups {
		parts := nGroups - t
		target := remaining / parts
		hi, sum := lo, 0
		for hi < alphaSize && (sum < target || hi == lo) {
			sum += int(e.freq[hi])
			hi++
		}
		if parts == 1 {
			for hi < alphaSize {
				sum += int(e.freq[hi])
				hi++
			}
		} else if hi-lo > 1 && t%2 == 1 {
			// Alternate between overshooting and undershooting the
			// target so the shares stay balanced.
			hi--
			sum -= int(e.freq[hi])
		}
		for s := range alphaSize {
			if s >= lo && s < hi {
				e.lens[t][s] = 0
			} else {
				e.lens[t][s] = 15
			}
		}
		remaining -= sum
		lo = hi
	}

	// Costs of one symbol under every table, 16 bits per table, packed
	// three tables to a word (a group costs at most 50 × 17 bits).
	var cost [maxAlphabet][2]uint64
	mtfv := e.mtfv
	for range encodeIters {
		for s := range alphaSize {
			var c [2]uint64
			for t := range nGroups {
				c[t/3] |= uint64(e.lens[t][s]) << (16 * (t % 3))
			}
			cost[s] = c
		}
		for t := range nGroups {
			clear(e.rfreq[t][:alphaSize])
		}
		for g := range nSel {
			group := mtfv[g*groupSize : min(g*groupSize+groupSize, nMTF)]
			var c0, c1 uint64
			for _, s := range group {
				c0 += cost[s][0]
				c1 += cost[s][1]
			}
			best, bestCost := 0, uint64(1<<63)
			for t := range nGroups {
				var c uint64
				if t < 3 {
					c = c0 >> (16 * t) & 0xffff
				} else {
					c = c1 >> (16 * (t - 3)) & 0xffff
				}
				if c < bestCost {
					best, bestCost = t, c
				}
			}
			e.selectors[g] = uint8(best)
			rf := &e.rfreq[best]
			for _, s := range group {
				rf[s]++
			}
		}
		for t := range nGroups {
			e.hw.lengths(e.lens[t][:alphaSize], e.rfreq[t][:alphaSize], encodeMaxLen)
		}
	}
	for t := range nGroups {
		canonicalCodes(e.codes[t][:alphaSize], e.lens[t][:alphaSize])
	}
	return nGroups, nSel
}

// canonicalCodes assigns the codes the decoder expects for lens: codes of
// one length are consecutive in symbol order, shorter codes first.
func canonicalCodes(codes []uint32, lens []uint8) {
	minLen, maxLen := uint8(maxCodeLen), uint8(0)
	for _, l := range lens {
		minLen = min(minLen, l)
		maxLen = max(maxLen, l)
	}
	code := uint32(0)
	for l := minLen; l <= maxLen; l++ {
		for s, sl := range lens {
			if sl == l {
				codes[s] = code
				code++
			}
		}
		code <<= 1
	}
}

// huffWork is the scratch space of Huffman code length construction.
type huffWork struct {
	weight [maxAlphabet]int32
	leaves [maxAlphabet]uint16 // symbols by ascending weight
	nodeW  [maxAlphabet]int32  // weights of the internal nodes
	parent [2 * maxAlphabet]int32
	depth  [2 * maxAlphabet]int32
}

// lengths sets lens to Huffman code lengths for freq (every symbol gets a
// code, absent ones as if seen once), at most limit long: while the tree
// is too deep, the weights are halved (keeping them at least 1), which
// flattens it.
func (h *huffWork) lengths(lens []uint8, freq []int32, limit int) {
	m := len(lens)
	for s, f := range freq {
		h.weight[s] = max(f, 1)
	}
	for {
		leaves := h.leaves[:m]
		for s := range leaves {
			leaves[s] = uint16(s)
		}
		slices.SortFunc(leaves, func(a, b uint16) int {
			if d := h.weight[a] - h.weight[b]; d != 0 {
				return int(d)
			}
			return int(a) - int(b)
		})
		// Two queues: the sorted leaves (nodes 0..m-1) and the internal
		// nodes (m..2m-2) in order of creation, whose weights never
		// decrease. Each step joins the two lightest.
		li, ni, made := 0, 0, 0
		pick := func() int {
			if li < m && (ni >= made || h.weight[leaves[li]] <= h.nodeW[ni]) {
				li++
				return li - 1
			}
			ni++
			return m + ni - 1
		}
		weightOf := func(node int) int32 {
			if node < m {
				return h.weight[leaves[node]]
			}
			return h.nodeW[node-m]
		}
		for made < m-1 {
			a := pick()
			b := pick()
			h.nodeW[made] = weightOf(a) + weightOf(b)
			h.parent[a] = int32(m + made)
			h.parent[b] = int32(m + made)
			made++
		}
		root := m + made - 1
		h.depth[root] = 0
		maxDepth := 0
		for node := root - 1; node >= 0; node-- {
			d := h.depth[h.parent[node]] + 1
			h.depth[node] = d
			maxDepth = max(maxDepth, int(d))
		}
		if maxDepth <= limit {
			for i, s := range leaves {
				lens[s] = uint8(h.depth[i])
			}
			return
		}
		for s := range m {
			h.weight[s] = 1 + h.weight[s]/2
		}
	}
}
