package unpack5

const (
	maxCodeLen = 15
	quickBits  = 10
	maxSyms    = 306
)

// huffman is a canonical Huffman decoder: a quickBits-bit lookup table for
// short codes and a search over the left-aligned per-length limits for the
// rest.
type huffman struct {
	quick [1 << quickBits]uint16 // sym<<4 | length; length 0: use slow path
	limit [maxCodeLen + 1]uint32 // left-aligned (15-bit) end of the codes of length <= L
	pos   [maxCodeLen + 2]uint16 // index in syms of the first code of length L
	syms  [maxSyms]uint16        // symbols sorted by (length, value)
	nsyms int
}

// init builds the decoder from code lengths (0 = unused symbol). Invalid
// (over- or under-subscribed) codes do not fail here; decoding them maps
// unassigned bit patterns to the first symbol, as RAR decoders do.
func (h *huffman) init(lengths []byte) {
	// two histograms, so that runs of equal lengths do not chain every
	// increment on the one before
	var count, count2 [maxCodeLen + 1]int
	i := 0
	for ; i+1 < len(lengths); i += 2 {
		count[lengths[i]&15]++
		count2[lengths[i+1]&15]++
	}
	if i < len(lengths) {
		count[lengths[i]&15]++
	}
	for l := range count {
		count[l] += count2[l]
	}
	count[0] = 0
	var code uint32
	n := 0
	for l := 1; l <= maxCodeLen; l++ {
		code += uint32(count[l]) << (maxCodeLen - l)
		h.limit[l] = code
		h.pos[l] = uint16(n)
		n += count[l]
	}
	h.pos[maxCodeLen+1] = uint16(n)
	h.nsyms = n
	var next [maxCodeLen + 1]uint16
	for l := 1; l <= maxCodeLen; l++ {
		next[l] = h.pos[l]
	}
	for s, l := range lengths {
		if l != 0 {
			l &= 15
			h.syms[next[l]] = uint16(s)
			next[l]++
		}
	}
	// quick table: codes are assigned in (length, symbol) order, so the
	// short ones fill the table from the start.
	c := 0
	end := int(h.pos[quickBits+1])
	for i := 0; i < end; i++ {
		s := h.syms[i]
		l := int(lengths[s] & 15)
		k := 1 << (quickBits - l)
		if c+k > len(h.quick) {
			break
		}
		e := s<<4 | uint16(l)
		q := h.quick[c : c+k]
		if k < 32 {
			for j := range q {
				q[j] = e
			}
		} else {
			// long runs: 16 entries, then doubling copies
			for j := range q[:16] {
				q[j] = e
			}
			for n := 16; n < k; n *= 2 {
				copy(q[n:], q[:n])
			}
		}
		c += k
	}
	clear(h.quick[c:])
}

// decode reads one symbol. The reader must hold at least 15 valid bits.
func (h *huffman) decode(r *bitReader) int {
	s, l := h.decodeV(r.v)
	r.v <<= l
	r.n -= l
	return s
}

// decodeV returns the symbol at the front of the left-aligned bits v and
// its code length.
func (h *huffman) decodeV(v uint64) (int, uint) {
	e := h.quick[v>>(64-quickBits)]
	if e&15 != 0 {
		return int(e >> 4), uint(e & 15)
	}
	return h.decodeSlow(v)
}

func (h *huffman) decodeSlow(v uint64) (int, uint) {
	code := uint32(v >> (64 - maxCodeLen))
	l := quickBits + 1
	for l < maxCodeLen && code >= h.limit[l] {
		l++
	}
	idx := int(h.pos[l]) + int((code-h.limit[l-1])>>(maxCodeLen-l))
	if idx >= h.nsyms || idx < 0 || code < h.limit[l-1] {
		idx = 0
		if h.nsyms == 0 {
			return 0, uint(l)
		}
	}
	return int(h.syms[idx]), uint(l)
}
