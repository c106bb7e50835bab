package xz

import (
	"math/bits"

	"github.com/garc-dev/garc/internal/hugemem"
	"github.com/garc-dev/garc/internal/lzma"
)

// WriterMemory estimates the heap of a Writer with options o (zero fields
// from o.Level's preset) at its largest, on an input of many blocks, and
// 4 MiB for the rest of the process (the runtime, the archive's own
// buffers). Each coder holds, as package lzma allocates them (each of its
// large buffers in whole huge pages and one page more, hugemem.Aligned):
//
//   - its match finder's tables: a main hash table of 2^hbits slots
//     (hbits from the dictionary, 16 to 24; at least 2^18 for hc5) and
//     a chain of one, or a binary tree of two, 4-byte links per
//     dictionary position;
//   - its window: the dictionary, a chunk of up to 2 MiB, the parser's
//     lookahead twice and 1 MiB of slack (the blocks' input is coded as
//     it arrives);
//   - 1 MiB of smaller tables, the model and its output chunk, and on a
//     binary tree's two threads the parallel finder's batches (1.5 MiB,
//     in a huge page of their own);
//   - the block's compressed stream held: up to the header's keepOut
//     bytes and a piece.
//
// Several blocks at once also hold their input pool (inBudget), and each
// block coded beside the oldest holds its stream until that one is
// written: up to the whole stream (random data: the block's size). A short
// input takes less: its only block's encoder is sized to it, and the
// tables' pages that a short input does not reach are not resident.
// Against the peak heap of a Writer and the peak RSS of garc a -si (20
// MiB and 2 GiB of mixed data, two threads): at -mx6 109.5 MiB for 101 MiB
// of heap and 110-113 MB of RSS; at -mx3 113 MiB, a block's stream of
// random data held among it, for 85 MiB of heap and 87-95 MB of RSS.
func WriterMemory(o lzma.WriterOptions) int64 {
	p := lzma.LevelOptions(o.Level)
	if o.DictSize == 0 {
		o.DictSize = p.DictSize
	}
	if o.MatchFinder == "" {
		o.MatchFinder = p.MatchFinder
	}
	kind, err := lzma.ParseMatchFinder(o.MatchFinder)
	if err != nil {
		kind = lzma.BT4
	}
	bt := kind == lzma.BT4 || kind == lzma.BT5
	threads := max(o.Threads, 1)
	per, coders := 1, threads
	if bt {
		per, coders = min(threads, 2), (threads+1)/2
	}
	dict := int64(o.DictSize)
	block := BlockSize(o)
	dbits := bits.Len32(o.DictSize-1) - 1
	hbits, links := dbits, dict+1
	if bt {
		links *= 2
	} else {
		hbits = max(hbits, 18)
	}
	hbits = min(max(hbits, 16), 24)
	coder := aligned(4*(int64(1)<<hbits+links)) +
		aligned(dict+min(block, 2<<20)+2*lookahead+1<<20) +
		1<<20
	if per == 2 {
		coder += aligned(3 << 19)
	}
	// A block's whole stream in pieces (random data: the block, a chunk
	// header every 64 KiB), and what a leading block holds of it.
	whole := (block+block>>9+pieceSize-1)/pieceSize*pieceSize + pieceSize
	lead := min(int64(keepOut)+pieceSize, whole)
	mem := int64(coders)*(coder+lead) + 4<<20
	if coders > 1 {
		mem += int64(coders-1)*(whole-lead) + int64(inBudget(coders, block))*inPiece
	}
	return mem
}

// lookahead is the LZMA parser's lookahead, as package lzma sizes its
// window: 4096 positions of optimum parsing, the longest match and 8.
const lookahead = 1<<12 + 273 + 8

// aligned is the heap a buffer of n bytes that package lzma allocates for
// huge pages takes: whole huge pages and one more (hugemem.Aligned).
func aligned(n int64) int64 {
	const page = hugemem.PageSize
	return (n+page-1)/page*page + page
}
