package xz

import (
	"math/bits"

	"github.com/garc-dev/garc/internal/lzma"
)

// WriterMemory estimates the memory of a Writer with options o (zero
// fields from o.Level's preset) at its largest, on an input of many
// blocks, as the heap holds it between two collections. Per block being
// compressed: the match finder's tables (a hash table of up to 2^24
// slots and a chain of one, or a binary tree of two, 4-byte links per
// dictionary position), the dictionary's window, the block's input, its
// compressed output (counted as large as the input, with what growing it
// leaves behind), the encoder's output room (up to 16 MiB) and 8 MiB for
// the rest; with several blocks at once, their input buffers and one
// more being filled. A short input takes less: its only block is as
// long as the input and its encoder sized to it.
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
	coders := threads
	if bt {
		coders = (threads + 1) / 2
	}
	dict := int64(o.DictSize)
	hbits := bits.Len32(o.DictSize-1) - 1
	links := dict
	if bt {
		links *= 2
	} else {
		hbits++
	}
	tables := 4 * (int64(1)<<min(max(hbits, 16), 24) + links)
	block := BlockSize(o)
	coder := tables + dict + 2*block + min(block, 16<<20) + 8<<20
	if coders > 1 {
		return int64(coders)*coder + int64(coders+1)*block
	}
	return coder
}
