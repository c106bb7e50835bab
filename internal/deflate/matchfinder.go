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
}

func newFinder(depth int) *finder {
	f := &finder{
		head:  new([1 << hashBits]int32),
		tree:  new([2 * windowSize]int32),
		depth: depth,
	}
	f.reset()
	return f
}

func (f *finder) reset() {
	for i := range f.head {
		f.head[i] = emptyPos
	}
	for i := range f.tree {
		f.tree[i] = emptyPos
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

// matchLen returns how many bytes a and b (of the same length) share at
// the start, knowing that the first l are equal.
func matchLen(a, b []byte, l int) int {
	for l+8 <= len(b) {
		x := binary.LittleEndian.Uint64(a[l:]) ^ binary.LittleEndian.Uint64(b[l:])
		if x != 0 {
			return l + bits.TrailingZeros64(x)>>3
		}
		l += 8
	}
	for l < len(b) && a[l] == b[l] {
		l++
	}
	return l
}

func hash3(b []byte) uint32 {
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16
	return (v * 2654435761) >> (32 - hashBits)
}

// find inserts position cur of buf (which holds at least limit ≥ 3 bytes
// from cur) and appends to out its matches as packed pairs
// (length<<16 | distance), lengths strictly increasing, the longest
// at most limit. With record false it only inserts (a skipped position).
func (f *finder) find(buf []byte, cur int32, limit int, out []uint32, record bool) []uint32 {
	const slotMask = 2*windowSize - 1
	tree := f.tree
	src := buf[cur : int(cur)+limit]
	h := hash3(src)
	cand := f.head[h]
	f.head[h] = cur
	ptrLess := uint32(cur) * 2 & slotMask // where the next smaller node goes
	ptrMore := ptrLess + 1                // and the next larger one
	lenLess, lenMore := 0, 0
	best := minMatch - 1
	for n := f.depth; ; n-- {
		delta := cur - cand
		if n == 0 || delta >= windowSize {
			tree[ptrLess&slotMask], tree[ptrMore&slotMask] = emptyPos, emptyPos
			return out
		}
		pair := uint32(cand) * 2 & slotMask
		l := min(lenLess, lenMore)
		old := buf[cand:][:len(src)]
		if old[l] == src[l] {
			l = matchLen(old, src, l+1)
			if l > best {
				best = l
				if record {
					out = append(out, uint32(l)<<16|uint32(delta))
				}
				if l == len(src) {
					tree[ptrLess&slotMask], tree[ptrMore&slotMask] = tree[pair], tree[(pair+1)&slotMask]
					return out
				}
			}
		}
		if old[l] < src[l] {
			tree[ptrLess&slotMask] = cand
			ptrLess = pair + 1
			cand = tree[ptrLess&slotMask]
			lenLess = l
		} else {
			tree[ptrMore&slotMask] = cand
			ptrMore = pair
			cand = tree[pair]
			lenMore = l
		}
	}
}
