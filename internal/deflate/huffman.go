package deflate

import (
	"math/bits"
	"slices"
)

// huffBuilder computes length-limited Huffman code lengths. It keeps its
// scratch slices between calls, so that building the codes of a block
// allocates nothing once warmed up.
type huffBuilder struct {
	syms   []int32  // symbols with a non-zero frequency, by frequency
	keys   []uint64 // sort keys of syms
	weight []uint64 // Huffman tree: leaves, then inner nodes
	parent []int32
	depth  []uint8
	nodes  []pmNode // package-merge arena
	cur    []int32
	prev   []int32
	pack   []int32
}

// pmNode is an item of the package-merge algorithm: a leaf (sym >= 0) or
// a package of two items of the level below.
type pmNode struct {
	w    uint64
	sym  int32
	a, b int32
}

// lengths sets lens[s] to the code length of symbol s for the frequencies
// freq, no length above limit: an optimal prefix code under that limit
// (package-merge). Symbols of frequency zero get length zero. At least
// two symbols always get a code (a zero-frequency one is added if need
// be), so that every code written is complete, which all decoders accept.
func (h *huffBuilder) lengths(freq []uint32, lens []uint8, limit int) {
	clear(lens)
	h.syms = h.syms[:0]
	for s, f := range freq {
		if f > 0 {
			h.syms = append(h.syms, int32(s))
		}
	}
	for s := 0; len(h.syms) < 2; s++ {
		if freq[s] == 0 {
			h.syms = append(h.syms, int32(s))
		}
	}
	// Sort by weight, then symbol: keys weight<<16 | symbol.
	h.keys = h.keys[:0]
	for _, s := range h.syms {
		h.keys = append(h.keys, max(uint64(freq[s]), 1)<<16|uint64(s))
	}
	slices.Sort(h.keys)
	for i, k := range h.keys {
		h.syms[i] = int32(k & 0xffff)
	}
	weight := func(s int32) uint64 { return max(uint64(freq[s]), 1) }
	n := len(h.syms)
	if n == 2 {
		lens[h.syms[0]], lens[h.syms[1]] = 1, 1
		return
	}
	if h.huffman(freq, lens, limit) {
		return
	}
	// The leaves are the first n nodes of the arena.
	h.nodes = h.nodes[:0]
	for _, s := range h.syms {
		h.nodes = append(h.nodes, pmNode{w: weight(s), sym: s, a: -1, b: -1})
	}
	h.prev = h.prev[:0]
	for range limit {
		// Package the previous list's items in pairs, then merge the
		// packages with the leaves by weight (leaves first on ties).
		h.pack = h.pack[:0]
		for j := 0; j+1 < len(h.prev); j += 2 {
			a, b := h.prev[j], h.prev[j+1]
			h.nodes = append(h.nodes, pmNode{w: h.nodes[a].w + h.nodes[b].w, sym: -1, a: a, b: b})
			h.pack = append(h.pack, int32(len(h.nodes)-1))
		}
		h.cur = h.cur[:0]
		i, j := 0, 0
		for i < n || j < len(h.pack) {
			if j >= len(h.pack) || (i < n && h.nodes[i].w <= h.nodes[h.pack[j]].w) {
				h.cur = append(h.cur, int32(i))
				i++
			} else {
				h.cur = append(h.cur, h.pack[j])
				j++
			}
		}
		h.prev, h.cur = h.cur, h.prev
	}
	// A leaf's code length is the number of times it occurs among the
	// first 2n-2 items of the last list, packages counted by content.
	var count func(i int32)
	count = func(i int32) {
		nd := &h.nodes[i]
		if nd.sym >= 0 {
			lens[nd.sym]++
			return
		}
		count(nd.a)
		count(nd.b)
	}
	for _, i := range h.prev[:2*n-2] {
		count(i)
	}
}

// huffman sets the plain Huffman code lengths of the sorted symbols and
// reports whether they fit the limit. Inner nodes are made in order of
// weight, so two queues (leaves, inner nodes) give the two lightest.
func (h *huffBuilder) huffman(freq []uint32, lens []uint8, limit int) bool {
	n := len(h.syms)
	h.weight = h.weight[:0]
	for _, s := range h.syms {
		h.weight = append(h.weight, max(uint64(freq[s]), 1))
	}
	h.parent = append(h.parent[:0], make([]int32, 2*n-1)...)
	leaf, inner := 0, n
	lightest := func() int {
		if leaf < n && (inner >= len(h.weight) || h.weight[leaf] <= h.weight[inner]) {
			leaf++
			return leaf - 1
		}
		inner++
		return inner - 1
	}
	for k := n; k < 2*n-1; k++ {
		a := lightest()
		b := lightest()
		h.weight = append(h.weight, h.weight[a]+h.weight[b])
		h.parent[a], h.parent[b] = int32(k), int32(k)
	}
	h.depth = append(h.depth[:0], make([]uint8, 2*n-1)...)
	for k := 2*n - 3; k >= 0; k-- {
		d := h.depth[h.parent[k]] + 1
		if int(d) > limit {
			return false
		}
		h.depth[k] = d
	}
	for i, s := range h.syms {
		lens[s] = h.depth[i]
	}
	return true
}

// codes returns the canonical codes (RFC 1951 section 3.2.2) of the code
// lengths lens, bit-reversed so that they can be written least significant
// bit first.
func codes(lens []uint8, out []uint16) {
	var count [maxCodeBits + 2]uint16
	for _, l := range lens {
		count[l]++
	}
	count[0] = 0
	var next [maxCodeBits + 2]uint16
	code := uint16(0)
	for b := 1; b <= maxCodeBits; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	for s, l := range lens {
		if l == 0 {
			out[s] = 0
			continue
		}
		out[s] = bits.Reverse16(next[l]) >> (16 - l)
		next[l]++
	}
}
