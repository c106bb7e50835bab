// Package zstd is garc's Zstandard encoder and decoder (RFC 8878). The
// encoder writes one frame at a time, with a content checksum, in blocks
// of up to 128 KiB, and is what `garc a` uses for .zst, .tar.zst at the
// default levels (-mx3 to -mx5; internal/stream's zstdwriter runs one
// Encoder per thread, each on frames of its own). The Reader decodes
// (decode.go, decode_seq.go: frames, skippable frames, raw, RLE and
// compressed blocks, the literals through huff0, the sequences through FSE
// tables of its own, the content checksum); internal/stream decodes with
// it the files that are mostly RLE blocks and with klauspost/compress/zstd
// the others, whose sequences klauspost's assembly decodes in 0.6x the CPU
// time.
//
// The match finder is shaped as zstd's "double fast" one at level 3: at
// each position a table of positions hashed by their next 8 bytes (2^17
// entries) and one hashed by their next 5 (2^15, smaller than zstd's 2^16:
// it keeps the nearer candidates, whose offsets cost fewer bits, and on a
// CSV table of numbers that made the output 2 % smaller, on log lines
// 0.8 %), the last offset checked one byte on, the long candidate of the
// next position checked when only a short one matched, the offset before
// the last tried right after each match, and the search stepping faster
// the longer it finds nothing. Each table entry is 4 bytes: the low 24
// bits of the position (candidates are at most 16 MiB back, so in frames
// of up to 16 MiB every one is exact) and an 8-bit hash of its next four
// bytes, so that most candidates that do not match cost no read of the
// window, and the tables (640 KiB) stay mostly within a core's 1 MiB L2
// cache (with 8-byte entries holding the four bytes whole, the lookups'
// cache misses took 45 % of the match finder's time on a CSV table). The
// window is 4 MiB by default (the writer's choice).
//
// A block is written as the smallest of: a block of one byte repeated
// (RLE, but for a frame's first block, as zstd writes it), the block
// compressed, or the block stored raw. A compressed block's literals are
// Huffman-coded by github.com/klauspost/compress/huff0 (the literals
// section's Huffman tree description and streams are huff0's format),
// with the previous block's tree reused when huff0 finds that smaller, or
// stored raw or as one repeated byte. Its sequences' literal lengths,
// match lengths and offsets are coded with FSE, each with the cheapest of
// the predefined distribution, the previous block's table (repeat mode),
// a table normalized from the block's own counts (with its description),
// or a single symbol (RLE mode), the choice estimated from the counts.
// Offsets equal to one of the three repeat offsets are coded as such.
//
// The content checksum is the low 32 bits of XXH64, computed by the
// package's own xxh64.
//
// An Encoder's memory does not depend on its input: the tables (640 KiB),
// the window and at least 2 MiB of input in one allocation of whole
// transparent huge pages (internal/hugemem; 8 MiB at a window of 4 MiB),
// and the output of the blocks of one Write.
// The output is a function of the input and the window alone.
package zstd
