// Package unpack5 decodes the LZ compression of RAR 5.0 archives (file
// format version 5, algorithm version 0) and of RAR 7 (algorithm version 1,
// which only extends the distance alphabet for dictionaries above 4 GiB).
//
// # Stream layout (RAR 5.0 technical note, "Compression" / unpack format)
//
// A file's packed data is a sequence of compressed blocks. Every block
// starts on a byte boundary with a small header:
//
//	flags    1 byte: bits 0-2 = number of bits used in the block's last byte
//	         minus one, bits 3-4 = number of block-size bytes minus one,
//	         bit 6 = last block of the file, bit 7 = Huffman tables follow
//	check    1 byte: 0x5A xor flags xor every block-size byte
//	size     1-3 bytes, little endian: block size in bytes
//
// Bits are read most significant first. When the table bit is set the
// block begins with the code lengths of four canonical Huffman codes: a
// 20-symbol "bit length" code is sent first (4 bits per length, the value
// 15 followed by a 4-bit count n>0 meaning n+2 zero lengths), and it codes
// the lengths of the main (306 symbols), distance (64, or 80 for RAR 7),
// low-distance (16) and length (44) alphabets, with symbols 16/17 repeating
// the previous length 3+3 bits / 11+7 bits times and 18/19 writing that
// many zeros.
//
// Main symbols 0-255 are literals; 256 starts a filter; 257 repeats the
// last match; 258-261 reuse one of the four most recent distances with a
// new length from the length code; 262 and above carry a length slot for a
// match with a new distance. Length slots below 8 mean 2+slot, larger ones
// have slot/4-1 extra bits. Distance slots below 4 mean 1+slot, larger ones
// slot/2-1 extra bits, of which the low four come from the low-distance
// code once there are at least four. Distances above 0x100, 0x2000 and
// 0x40000 each lengthen the match by one.
//
// Filters (delta, x86 E8, E8/E9, ARM BL) name a block of the output by its
// start (relative to the current position) and length, at most 4 MiB.
// They transform the output only: the window keeps the unfiltered bytes
// that later matches refer to. This package queues them and applies them
// once their whole block is decoded.
//
// Output is decoded 64 KiB at a time (or up to the end of a filter block
// that fits in the window), not until the window is full, so that the
// filters, the caller's checksum and its writer read it from the cache.
//
// # Memory
//
// The sliding window is min(dictionary, unpacked size), at least
// lzcore.MinWindow, for an entry that starts a new stream and the full
// dictionary for solid continuations; it is not rounded up, so it never
// exceeds what the container checked against the memory limit by more than
// that floor and the spare bytes below. It is taken from a pool of windows keyed by size and given
// back by Close, so consecutive entries and archives reuse it. The ring is
// 32 bytes longer than the dictionary (match copies move 8 or 16 bytes at
// a time and may write a few bytes past a match, which must never be
// history a later distance can reach) and is followed by a tail of one
// longest match, into which writes spill instead of wrapping; the tail is
// moved to the front of the ring between runs of symbols, so that the
// literal path needs no wrap check. Every size,
// distance and filter range taken from the input is checked; corrupt data
// yields an error wrapping archive.ErrFormat.
package unpack5
