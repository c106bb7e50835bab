package deflate64

import "math/bits"

// Huffman decoding tables.
//
// Deflate codes are at most 15 bits long and sent least significant bit
// first, so a decoder indexes a table with the next bits of the input as
// they sit in the bit buffer. A primary table of 2^primaryBits entries
// resolves every code of at most primaryBits bits in one lookup (a code of
// length L fills every entry whose low L bits equal it). A longer code
// shares its low primaryBits bits with other long codes only; that primary
// entry links to a secondary table indexed by the following bits, sized for
// the longest code under the prefix.
//
// An entry is a uint32:
//
//	bits 0..3   code length in bits (0: no code; the input is invalid)
//	bits 4..19  value, or for a link the secondary table's offset in links
//	bit  20     link flag
//	bits 21..24 a link's secondary index width in bits
//	bits 26..30 extra bits that follow the code
//	bit  31     literal flag
//
// The value and the extra bits come from the symbol's entry in the vals
// table given to build (symbolVals), so that the decoder needs no second
// lookup: a literal's byte (with the literal flag), a length's or a
// distance's base, to which the extra bits are added, 0 with no extra
// bits for the end of a block, and for a symbol the stream's mode does not
// allow, 0 with one extra bit (Deflate's length codes 286 and 287) or a
// distance of 65535 beyond Deflate's window (distance codes 30 and 31).
// Without a vals table the value is the symbol.
//
// A literal/length table can also hold pair entries (pairLiterals): where
// the primary index bits hold two literal codes in a row, the entry gives
// both, so the decoder writes two bytes for one lookup:
//
//	bits 0..3   the first code's length
//	bits 4..11  the first literal
//	bits 12..19 the second literal
//	bits 21..24 the second code's length
//	bit  25     pair flag
//	bit  31     literal flag

const (
	maxCodeLen   = 15
	entryLink    = 1 << 20
	entryPair    = 1 << 25
	entryLenMask = 0xF
	entryLiteral = 1 << 31
	extraShift   = 26 // entry bits of the extra bit count
)

// huffman is one decoding table. primary and links are sized for the
// largest alphabet it is used with and reused for every block.
type huffman struct {
	bits    uint // primary index width
	maxLen  uint // longest code the table has room for
	primary []uint32
	links   []uint32
}

// newHuffman allocates a table for up to maxSyms symbols with codes of at
// most maxLen bits.
func newHuffman(primaryBits uint, maxSyms int, maxLen uint) huffman {
	h := huffman{bits: primaryBits, maxLen: maxLen, primary: make([]uint32, 1<<primaryBits)}
	if maxLen > primaryBits {
		// Each symbol longer than primaryBits sits under one prefix, so
		// at most maxSyms prefixes need a secondary table, each of at
		// most 2^(maxLen-primaryBits) entries.
		h.links = make([]uint32, maxSyms<<(maxLen-primaryBits))
	}
	return h
}

// reverseBits returns the low n bits of v in reverse order.
func reverseBits(v uint32, n uint) uint32 {
	return uint32(bits.Reverse16(uint16(v))) >> (16 - n)
}

// build fills the table for the code lengths lens (0: symbol unused),
// each symbol's entry holding vals[symbol], or the symbol when vals is
// nil. It returns false for an over-subscribed code, or an incomplete one other
// than a single code of length 1 (which deflate allows for distances). An
// all-zero lengths list builds an empty table on which every lookup fails.
func (h *huffman) build(lens []uint8, vals []uint32) bool {
	// Two counters per length, for even and odd symbols, so that runs
	// of equal lengths do not wait on one counter.
	var count, count2 [maxCodeLen + 1]int
	var longest uint8
	i := 0
	for ; i+1 < len(lens); i += 2 {
		l0, l1 := lens[i], lens[i+1]
		longest = max(longest, l0, l1)
		count[l0&maxCodeLen]++
		count2[l1&maxCodeLen]++
	}
	if i < len(lens) {
		longest = max(longest, lens[i])
		count[lens[i]&maxCodeLen]++
	}
	if uint(longest) > h.maxLen {
		return false
	}
	for l := range count {
		count[l] += count2[l]
	}
	count[0] = 0
	// Canonical first code of each length, checking the Kraft sum.
	var next [maxCodeLen + 2]uint32
	code := uint32(0)
	left := 1
	maxLen := 0
	for l := 1; l <= maxCodeLen; l++ {
		code = (code + uint32(count[l-1])) << 1
		next[l] = code
		left <<= 1
		left -= count[l]
		if left < 0 {
			return false // over-subscribed
		}
		if count[l] > 0 {
			maxLen = l
		}
	}
	for i := range h.primary {
		h.primary[i] = 0
	}
	if maxLen == 0 {
		return true
	}
	if left > 0 && !(maxLen == 1 && count[1] == 1) {
		return false // incomplete
	}

	pbits := h.bits
	pmask := uint32(1)<<pbits - 1
	// Secondary tables: width per prefix, then offsets.
	if maxLen > int(pbits) {
		codes := next
		for _, l := range lens {
			if int(l) <= int(pbits) {
				if l > 0 {
					codes[l]++
				}
				continue
			}
			rev := reverseBits(codes[l], uint(l))
			codes[l]++
			prefix := rev & pmask
			w := uint32(l) - uint32(pbits)
			e := h.primary[prefix]
			if e == 0 || (e>>21)&0xF < w {
				h.primary[prefix] = entryLink | w<<21
			}
		}
		off := uint32(0)
		for i, e := range h.primary {
			if e&entryLink == 0 {
				continue
			}
			w := (e >> 21) & 0xF
			h.primary[i] = entryLink | w<<21 | off<<4
			for j := off; j < off+1<<w; j++ {
				h.links[j] = 0
			}
			off += 1 << w
		}
	}
	primary := h.primary[:pmask+1]
	for sym, l := range lens {
		if l == 0 {
			continue
		}
		rev := reverseBits(next[l&maxCodeLen], uint(l))
		next[l&maxCodeLen]++
		val := uint32(sym) << 4
		if vals != nil {
			val = vals[sym]
		}
		entry := val | uint32(l)
		if uint(l) <= pbits {
			for i := rev; i <= pmask; i += 1 << l {
				primary[i] = entry
			}
			continue
		}
		link := primary[rev&pmask]
		w := (link >> 21) & 0xF
		base := (link >> 4) & 0xFFFF
		sub := l - uint8(pbits)
		// The secondary entry records only the remaining length.
		for i := rev >> pbits; i < 1<<w; i += 1 << sub {
			h.links[base+i] = val | uint32(sub)
		}
	}
	return true
}

// pairLiterals turns the primary entries of a literal/length table whose
// index bits hold a literal code followed by a second whole literal code
// into pair entries. Entry i's second code sits in the bits above the
// first, i>>L1, whose entry is exact when its code fits in the remaining
// pbits-L1 bits; indexes go downwards so that i>>L1 (<= i) is still a
// plain entry when it is read.
func (h *huffman) pairLiterals() {
	p := h.primary
	pbits := uint32(h.bits)
	for i := len(p) - 1; i >= 0; i-- {
		e := p[i]
		l1 := e & entryLenMask
		if e&entryLiteral == 0 || l1 == 0 {
			continue
		}
		e2 := p[uint32(i)>>l1]
		l2 := e2 & entryLenMask
		if e2&(entryLiteral|entryPair) != entryLiteral || l2 == 0 || l1+l2 > pbits {
			continue
		}
		p[i] = e | (e2>>4&0xFF)<<12 | l2<<21 | entryPair
	}
}

// symbolVals returns the entry values (see above) of the literal/length
// and the distance symbols of Deflate (deflate64 = false) or Deflate64.
func symbolVals(deflate64 bool) (lit [numLitLen]uint32, dist [numDist]uint32) {
	for s := range 256 {
		lit[s] = entryLiteral | uint32(s)<<4
	}
	lit[256] = 0 // end of block
	for s := range lit[257:] {
		switch {
		case s < 28 || (s == 28 && !deflate64):
			lit[257+s] = uint32(lengthBase[s])<<4 | uint32(lengthExtra[s])<<extraShift
		case s == 28:
			lit[257+s] = 3<<4 | 16<<extraShift // Deflate64's code 285
		default:
			lit[257+s] = 1 << extraShift // not allowed
		}
	}
	for s := range dist {
		if s >= 30 && !deflate64 {
			dist[s] = 0xFFFF << 4 // not allowed: beyond any window
			continue
		}
		dist[s] = distBase[s]<<4 | uint32(distExtra[s])<<extraShift
	}
	return lit, dist
}
