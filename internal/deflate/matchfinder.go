package deflate

import (
	"encoding/binary"
	"math/bits"
)

// The match finder keeps, for every 3-byte hash, a binary search tree of
// the window's earlier positions ordered by the bytes that follow them
// (the newest position at the root). Looking up a position walks the tree
// from the root, as an insertion would, and re-links it with the current
// position as the new root: every node passed is a candidate, and because
// the walk knows how many bytes the current string shares with the
// nearest smaller and larger strings seen so far, it compares from there
// on. The candidates met come closer and closer to the current string, so
// the matches found have increasing lengths; each reported length is the
// longest at its distance or a shorter one. Nodes live in a cyclic array
// indexed by position modulo the window, so a position drops out of every
// tree once it is a window away.

const (
	hashBits = 16
	emptyPos = -1 << 30 // a position far outside every window
)

// finder is the binary-tree match finder over the encoder's buffer.
type finder struct {
	head  *[1 << hashBits]int32  // hash → newest position with that hash
	tree  *[2 * windowSize]int32 // 2 per cyclic slot: the smaller and the larger subtree
	depth int                    // most candidates visited per position
	found [256]uint32            // scratch for the matches of a position inside a long match
	touch int32                  // sink of the load that brings the next head into the cache
}

func newFinder(depth int) *finder {
	f := &finder{
		head:  new([1 << hashBits]int32),
		tree:  new([2 * windowSize]int32),
		depth: depth,
	}
	f.reset(nil, -1)
	return f
}

// reset empties the trees. Only the heads need it: a node's two subtrees
// are written when its position is inserted, and a walk reaches no node
// but from a head, so nodes left from before are never read. With used ≥
// 0 the positions below used of w are the only ones the heads can hold
// (the buffer has not slid since the last reset), and only their heads
// are emptied: for a small input a fraction of the 64K heads, which
// emptied whole were most of the CPU time of a ZIP of 100-byte files.
func (f *finder) reset(w *window, used int) {
	emptyHeads(f.head[:], w, used, hash3)
}

// emptyHeads sets the heads of a match finder to emptyPos: all of them,
// or with used ≥ 0 and small beside the table those of the positions
// below used of w, whose hashes hash gives.
func emptyHeads(head []int32, w *window, used int, hash func(*window, int) uint32) {
	if used < 0 || used > len(head)/4 {
		for i := range head {
			head[i] = emptyPos
		}
		return
	}
	for p := range used {
		head[hash(w, p)] = emptyPos
	}
}

// slide moves every stored position delta bytes down, when the buffer
// drops its first delta bytes.
func (f *finder) slide(delta int32) {
	for i, p := range f.head {
		f.head[i] = max(p-delta, emptyPos)
	}
	for i, p := range f.tree {
		f.tree[i] = max(p-delta, emptyPos)
	}
}

// The encoder's buffer lives in a window array of a power of two bytes
// (and 8 more, so that a word can be read at any index): the match
// finder indexes it through a mask, which the compiler knows to be in
// bounds, instead of checking every access. Positions never reach the
// mask, since the buffer holds at most bufCap bytes.
const (
	winBits = 18
	winMask = 1<<winBits - 1
	bufCap  = 2*windowSize + chunkSize // history and the chunk
)

type window [1<<winBits + 8]byte

// load16 returns the 2 bytes of w at i, little endian.
func load16(w *window, i int) uint16 {
	j := i & winMask
	return binary.LittleEndian.Uint16(w[j : j+2])
}

// load64 returns the 8 bytes of w at i, little endian.
func load64(w *window, i int) uint64 {
	j := i & winMask
	return binary.LittleEndian.Uint64(w[j : j+8])
}

// matchLenAt returns how many bytes the strings of w at a and b share,
// at most limit, knowing that the first l < limit are equal. It reads
// whole words, at most 7 bytes past limit.
func matchLenAt(w *window, a, b, l, limit int) int {
	for {
		if x := load64(w, a+l) ^ load64(w, b+l); x != 0 {
			return min(l+bits.TrailingZeros64(x)>>3, limit)
		}
		l += 8
		if l >= limit {
			return limit
		}
	}
}

func hash3(w *window, i int) uint32 {
	v := uint32(load64(w, i)) & 0xffffff
	return (v * 2654435761) >> (32 - hashBits)
}

// find inserts position cur of the window (which holds at least
// limit ≥ 3 bytes from cur) and stores in out its matches as packed
// pairs (length<<16 | distance), lengths strictly increasing, the
// longest at most limit; it returns how many. There are at most 256:
// the lengths 3 to 258.
func (f *finder) find(w *window, cur, limit int, out *[256]uint32) int {
	const slotMask = 2*windowSize - 1
	tree := f.tree
	h := hash3(w, cur)
	cand := int(f.head[h])
	f.head[h] = int32(cur)
	// Touch the head of the next position, which the next call reads:
	// the table is larger than the first caches, and the load, issued
	// now, overlaps this walk instead of stalling the next one.
	f.touch ^= f.head[hash3(w, cur+1)]
	ptrLess := cur * 2 & slotMask // where the next smaller node goes
	ptrMore := ptrLess + 1        // and the next larger one
	lenLess, lenMore := 0, 0
	best, k := minMatch-1, 0
	for n := f.depth; n > 0 && cur-cand < windowSize; n-- {
		pair := cand * 2 & slotMask
		l := min(lenLess, lenMore)
		// Compare 8 bytes at a time from l; a, b end as the words whose
		// low bytes are the first that differ.
		a, b := load64(w, cand+l), load64(w, cur+l)
		if a == b {
			for {
				l += 8
				if l >= limit {
					break
				}
				a, b = load64(w, cand+l), load64(w, cur+l)
				if a != b {
					break
				}
			}
		}
		z := bits.TrailingZeros64(a^b) >> 3 // 8 if a == b
		l += z & 7
		if l >= limit {
			out[k&255] = uint32(limit)<<16 | uint32(cur-cand)
			k++
			tree[ptrLess&slotMask], tree[ptrMore&slotMask] = tree[pair], tree[(pair+1)&slotMask]
			return k
		}
		if l > best {
			best = l
			out[k&255] = uint32(l)<<16 | uint32(cur-cand)
			k++
		}
		if uint8(a>>(z*8)) < uint8(b>>(z*8)) {
			tree[ptrLess&slotMask] = int32(cand)
			ptrLess = pair + 1
			lenLess = l
			cand = int(tree[ptrLess&slotMask])
		} else {
			tree[ptrMore&slotMask] = int32(cand)
			ptrMore = pair
			lenMore = l
			cand = int(tree[pair])
		}
	}
	tree[ptrLess&slotMask], tree[ptrMore&slotMask] = emptyPos, emptyPos
	return k
}

// insert adds position cur to the trees as find does, walking the same
// candidates and leaving the same trees, without listing the matches:
// for the positions inside a long match, whose matches the parse does
// not look at.
func (f *finder) insert(w *window, cur, limit int) {
	const slotMask = 2*windowSize - 1
	tree := f.tree
	h := hash3(w, cur)
	cand := int(f.head[h])
	f.head[h] = int32(cur)
	f.touch ^= f.head[hash3(w, cur+1)]
	ptrLess := cur * 2 & slotMask
	ptrMore := ptrLess + 1
	lenLess, lenMore := 0, 0
	for n := f.depth; n > 0 && cur-cand < windowSize; n-- {
		pair := cand * 2 & slotMask
		l := min(lenLess, lenMore)
		a, b := load64(w, cand+l), load64(w, cur+l)
		if a == b {
			for {
				l += 8
				if l >= limit {
					break
				}
				a, b = load64(w, cand+l), load64(w, cur+l)
				if a != b {
					break
				}
			}
		}
		z := bits.TrailingZeros64(a^b) >> 3
		l += z & 7
		if l >= limit {
			tree[ptrLess&slotMask], tree[ptrMore&slotMask] = tree[pair], tree[(pair+1)&slotMask]
			return
		}
		if uint8(a>>(z*8)) < uint8(b>>(z*8)) {
			tree[ptrLess&slotMask] = int32(cand)
			ptrLess = pair + 1
			lenLess = l
			cand = int(tree[ptrLess&slotMask])
		} else {
			tree[ptrMore&slotMask] = int32(cand)
			ptrMore = pair
			lenMore = l
			cand = int(tree[pair])
		}
	}
	tree[ptrLess&slotMask], tree[ptrMore&slotMask] = emptyPos, emptyPos
}
