package old

const (
	maxCodeLen   = 20  // longest Huffman code the format allows
	maxAlphabet  = 258 // 256 byte values + RUNA/RUNB - 1 + end of block
	maxGroups    = 6   // code tables per block
	maxSelectors = 18002
	groupSize    = 50 // symbols coded with one table before the next selector
	primaryBits  = 10 // bits resolved by one lookup in huffTable.primary
)

// huffTable decodes one canonical Huffman code. Codes of up to primaryBits
// bits are resolved by a single lookup in primary (entries are
// symbol<<5 | length); a zero entry means a longer code (or none), resolved
// by decodeLong from the canonical layout: codes of one length are
// consecutive, starting at first[l], and perm lists the symbols by (length,
// symbol).
type huffTable struct {
	primary [1 << primaryBits]uint16
	first   [maxCodeLen + 1]int32 // first code of each length
	limit   [maxCodeLen + 1]int32 // first[l] + number of codes of length l
	offset  [maxCodeLen + 1]int32 // index in perm of the first code of length l
	perm    [maxAlphabet]uint16
	maxLen  uint
	// oversubscribed marks lengths that form no prefix code; such a
	// table is an error only when a selector picks it.
	oversubscribed bool
}

// build sets the table up for code lengths lens (each 1..maxCodeLen).
func (h *huffTable) build(lens []uint8) {
	var count [maxCodeLen + 1]int32
	for _, l := range lens {
		count[l]++
	}
	kraft := 0
	h.maxLen = 0
	for l := 1; l <= maxCodeLen; l++ {
		kraft += int(count[l]) << (maxCodeLen - l)
		if count[l] != 0 {
			h.maxLen = uint(l)
		}
	}
	h.oversubscribed = kraft > 1<<maxCodeLen
	if h.oversubscribed {
		return
	}
	var code, off int32
	for l := 1; l <= maxCodeLen; l++ {
		h.first[l] = code
		h.offset[l] = off
		code += count[l]
		off += count[l]
		h.limit[l] = code
		code <<= 1
	}
	next := h.offset
	for sym, l := range lens {
		h.perm[next[l]] = uint16(sym)
		next[l]++
	}
	clear(h.primary[:])
	for l := 1; l <= primaryBits && l <= int(h.maxLen); l++ {
		span := int32(1) << (primaryBits - l)
		for i := int32(0); i < count[l]; i++ {
			entry := h.perm[h.offset[l]+i]<<5 | uint16(l)
			start := (h.first[l] + i) * span
			fill := h.primary[start : start+span]
			for j := range fill {
				fill[j] = entry
			}
		}
	}
}

// decodeLong decodes a code longer than primaryBits from the top bits of
// bits. ok is false when the bits match no code.
func (h *huffTable) decodeLong(bits uint64) (sym uint16, length uint, ok bool) {
	c20 := int32(bits >> (64 - maxCodeLen))
	for l := uint(primaryBits + 1); l <= h.maxLen; l++ {
		c := c20 >> (maxCodeLen - l)
		if c < h.limit[l] {
			i := c - h.first[l]
			if i < 0 {
				return 0, 0, false
			}
			return h.perm[h.offset[l]+i], l, true
		}
	}
	return 0, 0, false
}
