package checksum

//go:generate go run gen_compress.go

import "encoding/binary"

// BLAKE2s initialisation vector (the SHA-256 IV, RFC 7693 §2.6).
const (
	iv0 uint32 = 0x6a09e667
	iv1 uint32 = 0xbb67ae85
	iv2 uint32 = 0x3c6ef372
	iv3 uint32 = 0xa54ff53a
	iv4 uint32 = 0x510e527f
	iv5 uint32 = 0x9b05688c
	iv6 uint32 = 0x1f83d9ab
	iv7 uint32 = 0x5be0cd19
)

// treeParams is the part of the BLAKE2s parameter block that the tree
// modes change (BLAKE2 paper §2.5; the key length is always 0 here).
type treeParams struct {
	digestLen  uint8  // bytes of output, 1..32
	fanout     uint8  // 0 = unlimited, 1 = sequential
	depth      uint8  // maximal depth, 1 = sequential
	leafLen    uint32 // maximal leaf byte length, 0 = unlimited
	nodeOffset uint64 // 48 bits
	nodeDepth  uint8  // 0 for leaves
	innerLen   uint8  // bytes of inner hashes
}

// sequentialParams are the parameters of plain BLAKE2s-256.
var sequentialParams = treeParams{digestLen: 32, fanout: 1, depth: 1}

// init sets h to the IV XORed with the parameter block.
func (p *treeParams) init(h *[8]uint32) {
	h[0] = iv0 ^ (uint32(p.digestLen) | uint32(p.fanout)<<16 | uint32(p.depth)<<24)
	h[1] = iv1 ^ p.leafLen
	h[2] = iv2 ^ uint32(p.nodeOffset)
	h[3] = iv3 ^ (uint32(p.nodeOffset>>32)&0xffff | uint32(p.nodeDepth)<<16 | uint32(p.innerLen)<<24)
	h[4] = iv4
	h[5] = iv5
	h[6] = iv6
	h[7] = iv7
}

// finalBlock compresses the last, possibly partial (0..64 bytes) block of
// a node whose earlier blocks accounted for t bytes, and returns the
// chain value's bytes. lastNode sets the last-node flag f1.
func finalBlock(h *[8]uint32, p []byte, t uint64, lastNode bool, out *[32]byte) {
	var block [64]byte
	copy(block[:], p)
	var f1 uint32
	if lastNode {
		f1 = 0xffffffff
	}
	compress(h, block[:], t+uint64(len(p)), 0xffffffff, f1)
	for i, v := range h {
		binary.LittleEndian.PutUint32(out[4*i:], v)
	}
}
