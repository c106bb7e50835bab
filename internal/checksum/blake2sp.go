package checksum

import "hash"

// Size and block size of BLAKE2sp.
const (
	BLAKE2spSize      = 32
	BLAKE2spBlockSize = 64
)

const (
	leaves    = 8                          // BLAKE2sp parallelism degree
	stripeLen = leaves * BLAKE2spBlockSize // one block for each leaf
)

// Chain values after parameter initialisation, computed once.
var (
	leafInit [leaves][8]uint32
	rootInit [8]uint32
)

func init() {
	for i := range leafInit {
		p := treeParams{digestLen: 32, fanout: leaves, depth: 2, nodeOffset: uint64(i), innerLen: 32}
		p.init(&leafInit[i])
	}
	p := treeParams{digestLen: 32, fanout: leaves, depth: 2, nodeDepth: 1, innerLen: 32}
	p.init(&rootInit)
}

// blake2sp is the streaming BLAKE2sp state: eight leaf chain values and
// one 64-byte slot per leaf holding that leaf's newest block.
//
// A leaf's newest block is compressed only once more data for the same
// leaf arrives, because the final block of a node must be compressed with
// the last-block flag and we cannot know earlier that it is the last.
// pending has bit i set when slot i holds such an uncompressed block.
type blake2sp struct {
	h       [leaves][8]uint32
	t       [leaves]uint64 // bytes compressed into each leaf so far
	n       uint64         // total bytes written
	pending uint8
	slots   [stripeLen]byte
}

// NewBLAKE2sp returns a BLAKE2sp hash (BLAKE2s in the 8-way parallel tree
// mode, 32-byte digest), as used by RAR 5.0 file checksums. Write does not
// allocate.
func NewBLAKE2sp() hash.Hash {
	d := new(blake2sp)
	d.Reset()
	return d
}

func (d *blake2sp) Size() int      { return BLAKE2spSize }
func (d *blake2sp) BlockSize() int { return BLAKE2spBlockSize }

// Reset returns the hash to its initial state.
func (d *blake2sp) Reset() {
	d.h = leafInit
	d.t = [leaves]uint64{}
	d.n = 0
	d.pending = 0
}

// Write adds p to the hash. It never fails.
func (d *blake2sp) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		pos := int(d.n % BLAKE2spBlockSize)
		leaf := int(d.n/BLAKE2spBlockSize) % leaves
		slot := d.slots[leaf*BLAKE2spBlockSize : (leaf+1)*BLAKE2spBlockSize]
		if pos == 0 {
			bit := uint8(1) << leaf
			if d.pending&bit != 0 {
				// New data for this leaf: its held block was not the last.
				d.t[leaf] += BLAKE2spBlockSize
				compress(&d.h[leaf], slot, d.t[leaf], 0, 0)
				d.pending &^= bit
			}
			if len(p) > stripeLen {
				// The same leaf gets more data from p after this block, so
				// the block can be compressed straight from p.
				d.t[leaf] += BLAKE2spBlockSize
				compress(&d.h[leaf], p[:BLAKE2spBlockSize], d.t[leaf], 0, 0)
				p = p[BLAKE2spBlockSize:]
				d.n += BLAKE2spBlockSize
				continue
			}
			d.pending |= bit
		}
		c := copy(slot[pos:], p)
		p = p[c:]
		d.n += uint64(c)
	}
	return written, nil
}

// Sum appends the digest to b without changing the state.
func (d *blake2sp) Sum(b []byte) []byte {
	s := d.sum()
	return append(b, s[:]...)
}

// sum finishes a copy of the leaves and hashes their digests in the root.
func (d *blake2sp) sum() [32]byte {
	var inner [leaves * 32]byte
	// The block holding the newest byte may be partial; all other held
	// blocks are full.
	partialLeaf, partialLen := -1, 0
	if d.n > 0 {
		last := (d.n - 1) / BLAKE2spBlockSize
		partialLeaf = int(last % leaves)
		partialLen = int(d.n - last*BLAKE2spBlockSize)
	}
	for i := 0; i < leaves; i++ {
		h := d.h[i]
		var block []byte
		if d.pending&(1<<i) != 0 {
			n := BLAKE2spBlockSize
			if i == partialLeaf {
				n = partialLen
			}
			block = d.slots[i*BLAKE2spBlockSize : i*BLAKE2spBlockSize+n]
		}
		// A leaf that received nothing still finishes with one empty block.
		finalBlock(&h, block, d.t[i], i == leaves-1, (*[32]byte)(inner[i*32:]))
	}
	h := rootInit
	var t uint64
	for i := 0; i < 3; i++ {
		t += BLAKE2spBlockSize
		compress(&h, inner[i*64:(i+1)*64], t, 0, 0)
	}
	var out [32]byte
	finalBlock(&h, inner[192:], t, true, &out)
	return out
}

// Sum256 returns the digest as an array; it does not change the state or
// allocate.
func (d *blake2sp) Sum256() [32]byte { return d.sum() }
