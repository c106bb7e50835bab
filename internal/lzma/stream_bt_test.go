package lzma

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"testing"
)

// TestBlockStreamBinaryTree checks that Writer2 with a binary-tree finder
// and one block at a time (one thread, or two with the parallel finder),
// which codes its blocks in a sliding window (blockStream) emptying and
// preloading the finder at each block start, writes the same stream as
// when it compresses each block in a buffer of its own, for one and two
// threads: blocks of several dictionaries, a lone block, stored chunks,
// 5-byte hashing and rebased finder positions (with the parallel finder
// paused across the rebase).
func TestBlockStreamBinaryTree(t *testing.T) {
	mixed := mixedInput(t, 1<<20+777)
	random := testData("random", 300000, 41)
	oldNormalize := normalizeAt
	defer func() { normalizeAt = oldNormalize }()
	cases := []streamCase{
		{name: "mixed", level: 5, data: mixed, block: 1 << 18, dict: 1 << 16},
		{name: "mx9-small-blocks", level: 9, data: mixed[:1<<19], block: 1 << 17, dict: 1 << 15},
		{name: "lone-block", level: 5, data: mixed[:200000]},
		{name: "random-stored", level: 5, data: random, block: 1 << 17, dict: 1 << 16},
		{name: "bt5", level: 7, finder: "bt5", data: mixed[:1<<19], block: 1 << 18, dict: 1 << 16},
		{name: "normalize", level: 5, data: mixed, block: 1 << 18, dict: 1 << 15, normalizeAt: 1 << 19},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("mx%d/%s", c.level, c.name), func(t *testing.T) {
			o := c.options(oldNormalize)
			ref := encodeLZMA2Pieces(t, c.data, o, false, 1<<20, 1)
			for threads := 1; threads <= 2; threads++ {
				o.Threads = threads
				got := encodeLZMA2Pieces(t, c.data, o, true, 300000, int64(threads))
				if !bytes.Equal(got, ref) {
					t.Fatalf("%d threads: streamed blocks: %d bytes, differ from buffered blocks (%d bytes)", threads, len(got), len(ref))
				}
			}
			w, _ := NewWriter2(io.Discard, o)
			checkLZMA2(t, c.name, ref, w.Props(), int64(len(c.data)), c.data)
		})
	}
}

// TestBlockStreamBinaryTreeRandom compares streamed and buffered blocks of
// the binary-tree levels, one and two threads, for random dictionary and
// block sizes, inputs and write sizes (fixed seeds), so that block ends,
// window slides and the parallel finder's pauses meet in many ways.
func TestBlockStreamBinaryTreeRandom(t *testing.T) {
	kinds := []string{"mixed", "text", "repeat", "random", "zero"}
	for seed := int64(0); seed < 12; seed++ {
		rng := rand.New(rand.NewSource(seed))
		o := LevelOptions([]int{5, 9}[rng.Intn(2)])
		o.DictSize = 1 << (12 + rng.Intn(5))
		o.BlockSize = int64(1<<16 + rng.Intn(1<<17))
		o.Threads = 1 + rng.Intn(2)
		kind := kinds[rng.Intn(len(kinds))]
		data := testData(kind, 1+rng.Intn(600000), seed)
		name := fmt.Sprintf("seed%d/mx%d/%s/%d/dict%d/block%d/mt%d", seed, o.Level, kind, len(data), o.DictSize, o.BlockSize, o.Threads)
		ref := encodeLZMA2Pieces(t, data, o, false, 1<<20, seed)
		got := encodeLZMA2Pieces(t, data, o, true, 1+rng.Intn(100000), seed+100)
		if !bytes.Equal(got, ref) {
			t.Fatalf("%s: streamed blocks: %d bytes, differ from buffered blocks (%d bytes)", name, len(got), len(ref))
		}
	}
}

// finderBytes is the memory of a streaming Writer2's encoder: its window
// and its match finder's tables.
func (z *Writer2) finderBytes() (window, tables int) {
	mf := z.stream.e.mf
	tables = 4 * (len(mf.hash2) + len(mf.hash3) + len(mf.hash4) + len(mf.hash4b) + len(mf.son))
	return len(z.stream.win), tables
}

// TestBlockStreamBinaryTreeMemory writes an input of many dictionaries
// (several blocks, the window sliding many times) at the binary-tree
// levels with one and two threads and checks that it round-trips and
// that the writer held no block buffer, only the stream's window of the
// dictionary, a chunk and slack, and that its finder's tables are those
// the dictionary implies: a tree of dictionary+1 pairs of links and
// hash tables of at most 2^24 slots, none of it depending on the input.
func TestBlockStreamBinaryTreeMemory(t *testing.T) {
	data := testData("mixed", 3<<19, 42)
	for _, level := range []int{5, 9} {
		for threads := 1; threads <= 2; threads++ {
			o := LevelOptions(level)
			o.DictSize, o.BlockSize, o.Threads = 1<<16, 1<<18, threads
			var buf bytes.Buffer
			w, err := NewWriter2(&buf, o)
			if err != nil {
				t.Fatal(err)
			}
			for p := data; len(p) > 0; {
				n := min(len(p), 100000)
				if _, err := w.Write(p[:n]); err != nil {
					t.Fatal(err)
				}
				p = p[n:]
			}
			if w.stream == nil || w.stream.e == nil {
				t.Fatalf("mx%d mt%d: Writer2 does not stream its blocks", level, threads)
			}
			window, tables := w.finderBytes()
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if want := streamWindow(&o); window != want || w.blockBytes != want {
				t.Errorf("mx%d mt%d: window %d bytes, block buffers %d, want a window of %d only", level, threads, window, w.blockBytes, want)
			}
			// 2^16 main-hash and 3-byte slots (as many as the
			// dictionary's positions, newMatchFinder's floor for a
			// small one), 2^10 2-byte ones, and the tree.
			want := 4 * (1<<16 + 1<<16 + 1<<hc2Bits + 2*(int(o.DictSize)+1))
			if tables != want {
				t.Errorf("mx%d mt%d: finder tables of %d bytes, want %d", level, threads, tables, want)
			}
			checkLZMA2(t, fmt.Sprintf("mx%d-mt%d", level, threads), buf.Bytes(), w.Props(), int64(len(data)), data)
		}
	}
}
