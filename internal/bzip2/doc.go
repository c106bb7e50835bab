// Package bzip2 decodes bzip2 data: the .bz2 stream format and the 7z BZip2
// coder (method 04 02 02), which stores the same streams.
//
// # Format
//
// A stream starts with "BZh" and a level digit '1'..'9' giving the maximum
// block size (level × 100 000 bytes). Blocks follow, each introduced by the
// 48-bit magic 0x314159265359 (π) and a 32-bit CRC of the block's output;
// the stream ends with the 48-bit magic 0x177245385090 (√π) and the
// combined CRC (for each block, combined = rotl1(combined) ^ blockCRC), then
// padding to a byte boundary. Blocks are bit-aligned, not byte-aligned.
// Several streams may be concatenated (7-Zip's multi-threaded encoder and
// pbzip2 write one stream per chunk); Reader decodes them all until the end
// of its input.
//
// A block header holds a "randomised" flag (obsolete encoders perturbed
// highly repetitive blocks with a fixed pseudo-random table; the decoder
// undoes it), the origin pointer of the Burrows–Wheeler transform, and a
// 16×16 bitmap of the byte values used. The entropy stage follows: 2..6
// canonical Huffman code tables (lengths 1..20, delta-coded from a 5-bit
// start), and a list of selectors (move-to-front and unary coded) naming the
// table for each group of 50 symbols. Symbols are move-to-front indexes
// over the used byte values, with zero runs written in bijective base 2 by
// the two symbols RUNA and RUNB, and a final end-of-block symbol.
//
// Decoding a block therefore runs: Huffman decoding (a 10-bit primary
// lookup table per code table, with a canonical-code search for the rare
// longer codes), move-to-front and run expansion, which together leave the
// BWT's last column in the low bytes of one uint32 array ("tt"); a counting
// pass then links each position to its successor in the upper 24 bits of
// the same array; finally the output loop follows that chain and undoes the
// initial run-length stage (four equal bytes followed by a repeat count
// 0..255) on the fly, and the CRC is computed over the produced bytes.
//
// # Hostile input
//
// Every count and index read from the input is checked before use: symbol
// map, number of tables and selectors (at most 18 002 are kept, as bzip2
// 1.0.8 does; more are read and ignored), code lengths, codes that match no
// symbol, run lengths against the block size, the block size itself and the
// origin pointer. Such faults are errors wrapping archive.ErrFormat; CRC
// mismatches wrap archive.ErrChecksum. Buffers are allocated once per
// Reader (the largest is the 3.6 MB tt array for level 9) and reused for
// every block and stream.
//
// # Concurrency
//
// NewReaderThreads overlaps the two halves of the work: the goroutine
// calling Read parses blocks (bit reading, Huffman, move-to-front) in
// order and hands each to a new goroutine for the inverse BWT, keeping at
// most the given number of blocks in flight, each with its own buffers;
// the output stage (RLE1 and CRC) takes the blocks back in order, so the
// output, and where an error surfaces, are the same as with one thread.
//
// The description followed is the bzip2 file format as documented by Joe
// Tsai ("BZip2 format specification") and the behaviour of the reference
// decoder bzip2 1.0.8.
package bzip2
