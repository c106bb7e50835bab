package bzip2

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// linkedBlock returns a blockBuf whose tt holds links that follow the
// given cycles of positions (each position's successor in its cycle) with
// random bytes, as unBWT's first stage leaves them.
func linkedBlock(n int, cycles [][]uint32, rng *rand.Rand) *blockBuf {
	blk := new(blockBuf)
	blk.ensure(n, n > 1<<19)
	blk.n = n
	for _, c := range cycles {
		for i, p := range c {
			blk.tt[p] = c[(i+1)%len(c)]<<8 | uint32(rng.IntN(256))
		}
	}
	return blk
}

// TestWalkLanes checks that the interleaved walk of the cycle in segments
// gives the text of the plain walk for blocks of several sizes, starting
// at positions that are or are not cuts, and that it refuses links that
// form more than one cycle (corrupt input), which the plain walk then
// decodes.
func TestWalkLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{lanesMinBlock, 100003, 900000} {
		perm := make([]uint32, n)
		for i := range perm {
			perm[i] = uint32(i)
		}
		rng.Shuffle(n, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for _, start := range []uint32{0, perm[n/3], uint32(n - 1)} {
			blk := linkedBlock(n, [][]uint32{perm}, rng)
			want := make([]byte, n)
			walk(want, blk.tt[:n], start)
			if !blk.walkLanes(start, blk.pre[:n]) {
				t.Fatalf("n=%d start=%d: one cycle refused", n, start)
			}
			if !bytes.Equal(blk.pre[:n], want) {
				t.Fatalf("n=%d start=%d: text differs from the plain walk", n, start)
			}
		}

		// Two cycles: the segments from start cover only one.
		blk := linkedBlock(n, [][]uint32{perm[:n/2], perm[n/2:]}, rng)
		if blk.walkLanes(perm[0], blk.pre[:n]) {
			t.Fatalf("n=%d: two cycles accepted", n)
		}
	}
}

// TestWalkLanesLongSegment checks a cycle that visits all the cut
// positions first and then every other position in one segment: the lane
// walking that segment outgrows its region of the scratch buffer, so
// walkLanes refuses the block, and finish writes the plain walk's text.
func TestWalkLanesLongSegment(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{400000, 900000} {
		segs := n / laneSegment
		isCut := make([]bool, n)
		var cycle []uint32
		for i := range segs {
			p := uint32(i * n / segs)
			isCut[p] = true
			cycle = append(cycle, p)
		}
		for p := range n {
			if !isCut[p] {
				cycle = append(cycle, uint32(p))
			}
		}
		blk := linkedBlock(n, [][]uint32{cycle}, rng)
		want := make([]byte, n)
		walk(want, blk.tt[:n], 0)
		if blk.walkLanes(0, blk.pre[:n]) {
			t.Fatalf("n=%d: a segment of %d bytes fitted a lane's region of %d", n, n-segs, laneRegion(n))
		}
		blk.cursor, blk.walked = 0, 0
		clear(blk.pre[:n])
		blk.finish()
		if !bytes.Equal(blk.pre[:n], want) {
			t.Fatalf("n=%d: text differs from the plain walk", n)
		}
	}
}
