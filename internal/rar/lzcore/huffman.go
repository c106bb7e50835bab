package lzcore

// MaxCodeLen is the longest Huffman code RAR uses.
const MaxCodeLen = 15

// QuickBits is the width of the lookup table for short codes.
const QuickBits = 10

// QuickTable is the lookup table for codes of up to QuickBits bits,
// indexed by the next QuickBits bits of the stream: each entry is
// symbol<<4 | code length, or has length 0 when the code is longer.
type QuickTable = [1 << QuickBits]uint16

// MaxSymbols bounds the alphabet of a Huffman decoder (RAR5's main table
// is the largest, 306 symbols).
const MaxSymbols = 306

// Huffman is a canonical Huffman decoder: a QuickBits-bit lookup table for
// short codes and a search over the left-aligned per-length limits for
// the rest. The zero value decodes every bit pattern as symbol 0.
type Huffman struct {
	quick QuickTable             // sym<<4 | length; length 0: use the slow path
	limit [MaxCodeLen + 1]uint32 // left-aligned (15-bit) end of the codes of length <= L
	pos   [MaxCodeLen + 2]uint16 // index in syms of the first code of length L
	syms  [MaxSymbols]uint16     // symbols sorted by (length, value)
	nsyms int
}

// Init builds the decoder from code lengths (0 = unused symbol; only the
// low four bits of each length count). At most MaxSymbols lengths are
// used. Invalid (over- or under-subscribed) codes do not fail here:
// decoding maps unassigned bit patterns to the first symbol, as RAR's own
// decoders do.
func (h *Huffman) Init(lengths []byte) {
	if len(lengths) > MaxSymbols {
		lengths = lengths[:MaxSymbols]
	}
	// two histograms, so that runs of equal lengths do not chain every
	// increment on the one before
	var count, count2 [MaxCodeLen + 1]int
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
	for l := 1; l <= MaxCodeLen; l++ {
		code += uint32(count[l]) << (MaxCodeLen - l)
		h.limit[l] = code
		h.pos[l] = uint16(n)
		n += count[l]
	}
	h.pos[MaxCodeLen+1] = uint16(n)
	h.nsyms = n
	var next [MaxCodeLen + 1]uint16
	for l := 1; l <= MaxCodeLen; l++ {
		next[l] = h.pos[l]
	}
	for s, l := range lengths {
		if l&15 != 0 {
			l &= 15
			h.syms[next[l]] = uint16(s)
			next[l]++
		}
	}
	// quick table: codes are assigned in (length, symbol) order, so the
	// short ones fill the table from the start.
	c := 0
	end := int(h.pos[QuickBits+1])
	for i := 0; i < end; i++ {
		s := h.syms[i]
		l := int(lengths[s] & 15)
		k := 1 << (QuickBits - l)
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

// Decode reads one symbol. The reader must hold at least MaxCodeLen valid
// bits (call Refill first).
func (h *Huffman) Decode(r *BitReader) int {
	e := h.quick[r.V>>(64-QuickBits)]
	if e&15 == 0 {
		e = h.slowEntry(r.V)
	}
	r.V <<= e & 15
	r.N -= uint(e & 15)
	return int(e >> 4)
}

// Quick returns the lookup-table entry for the left-aligned bits v:
// symbol<<4 | code length, or a zero length when the code is longer than
// the table, in which case Slow decodes it. Hot loops use the pair to
// keep the common case inlined:
//
//	e := h.Quick(r.V)
//	if e&15 == 0 {
//		e = h.Slow(r.V)
//	}
//	r.Skip(uint(e & 15))
//	sym := int(e >> 4)
func (h *Huffman) Quick(v uint64) uint16 { return h.quick[v>>(64-QuickBits)] }

// Table returns the lookup table itself, for hot loops that keep the
// bit reader's state in locals (see BitReader):
//
//	if e := h.Table()[v>>(64-QuickBits)]; e&15 != 0 { … } else { s, l := h.DecodeSlow(v) … }
func (h *Huffman) Table() *QuickTable { return &h.quick }

// Slow decodes a code longer than the lookup table, returning it packed
// like a table entry.
func (h *Huffman) Slow(v uint64) uint16 { return h.slowEntry(v) }

// slowEntry decodes a code longer than the lookup table, returning it
// packed like a table entry.
func (h *Huffman) slowEntry(v uint64) uint16 {
	s, l := h.decodeSlow(v)
	return uint16(s)<<4 | uint16(l)
}

// DecodeV returns the symbol at the front of the left-aligned bits v and
// its code length, without consuming anything.
func (h *Huffman) DecodeV(v uint64) (int, uint) {
	e := h.quick[v>>(64-QuickBits)]
	if e&15 != 0 {
		return int(e >> 4), uint(e & 15)
	}
	return h.decodeSlow(v)
}

// DecodeSlow returns the symbol and code length of a code longer than
// the lookup table at the front of the left-aligned bits v (the table
// entry had length 0).
func (h *Huffman) DecodeSlow(v uint64) (int, uint) { return h.decodeSlow(v) }

func (h *Huffman) decodeSlow(v uint64) (int, uint) {
	code := uint32(v >> (64 - MaxCodeLen))
	l := QuickBits + 1
	for l < MaxCodeLen && code >= h.limit[l] {
		l++
	}
	idx := int(h.pos[l]) + int((code-h.limit[l-1])>>(MaxCodeLen-l))
	if idx >= h.nsyms || idx < 0 || code < h.limit[l-1] {
		idx = 0
		if h.nsyms == 0 {
			return 0, uint(l)
		}
	}
	return int(h.syms[idx]), uint(l)
}
