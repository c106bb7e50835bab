// Package bzip2 decodes and encodes bzip2 data: the .bz2 stream format and
// the 7z BZip2 coder (method 04 02 02), which stores the same streams.
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
// the same array; the chain is then followed to write the text before the
// run-length stage. Each step of that walk is a cache miss, so blocks of
// 32 KiB and more are cut into segments of about 4 096 positions (at
// evenly spaced positions, flagged in tt's top bit) that sixteen lanes
// walk at once, each writing its segments into its own region of a
// scratch buffer (a sixteenth of the block and 48 KiB: the lanes step
// together, so each writes an even share and the rest of its last
// segment), and the
// segments are then copied in cycle order (links that form several
// cycles, which only corrupt input gives, or a last segment that outgrows
// its region fall back to one plain walk). The first block after
// NewReader or Reset walks only its first 16 KiB plainly and the rest when that has been read, so a caller that
// reads only the start of a stream (the opener looking for a tar inside)
// saves the walk. Close keeps that block, with the input up to its end,
// and the next Reader whose input starts with those very bytes (it reads
// and compares them) takes it instead of decoding it again (first.go):
// the look then costs no second Huffman decoding of the first block. On
// Linux, tt starts on a 2 MiB boundary and, for a block of more than
// 1 300 selectors (65 000 symbols) at levels 6 to 9, is given transparent
// huge pages before its first touch (madvise, as 7-Zip does for its
// decoder): the links and the walk reach all over it, and with 4 KiB pages
// nearly every step also missed the TLB, and filling it took 900 page
// faults. The buffer of a block's text (0.9 MB) and the scratch buffer
// (1.4 MB) follow tt in the same allocation: three huge pages at level 9,
// mapped outside the Go heap so that they start no garbage collection
// (unmapped once nothing holds them). A small first block
// (a small stream) gets plain buffers. Finally
// the output loop undoes the initial run-length stage (four equal bytes
// followed by a repeat count 0..255) on the fly, and the CRC
// is computed over the produced bytes.
//
// # Hostile input
//
// Every count and index read from the input is checked before use: symbol
// map, number of tables and selectors (at most 18 002 are kept, as bzip2
// 1.0.8 does; more are read and ignored), code lengths, codes that match no
// symbol, run lengths against the block size, the block size itself and the
// origin pointer. Such faults are *CorruptInputError values with the input
// offset, wrapping archive.ErrFormat; CRC
// mismatches wrap archive.ErrChecksum. Buffers are allocated once per
// Reader (the largest are the 3.6 MB tt array and the 1.4 MB scratch
// buffer of the walk for level 9) and reused for
// every block and stream.
//
// # Concurrency
//
// NewReaderThreads decodes blocks in parallel, as lbzip2 and pbzip2 do
// (parallel.go): the goroutine calling Read searches a window of the
// input for the 48-bit block magic at every bit offset and starts a
// worker per candidate, up to the given number at once, that decodes the
// block there (Huffman stage, move-to-front, inverse BWT) into buffers of
// its own. A magic can occur by chance inside a block's data, so the
// reading goroutine follows the true chain itself: a block's end, as its
// worker found it, is where the next block magic or end-of-stream marker
// must be (it checks the combined CRC there and reads the next stream's
// header); candidates elsewhere are dropped. The output stage (RLE1 and
// the block CRC) runs in order on the reading goroutine. On anything
// unexpected at a true position (a worker's error, a block over its
// stream's level, a bad stream CRC or header, no candidate decodable
// within 3 MiB) the rest of the input goes to the sequential decoder,
// started at that bit position, so the output, and where and which error
// surfaces, are the same as with one thread. Memory: the workers' blocks
// (about 6 MB each at level 9) and a window of the input (a few MB).
//
// # Encoder
//
// Writer produces one stream: "BZh" and the level digit, the blocks, the
// end-of-stream marker and the combined CRC. Each block runs the decoder's
// stages backwards:
//
//   - Initial run-length coding (RLE1): runs of 4..255 equal bytes become
//     four copies and a count byte; a block is cut after a complete run
//     once it holds level × 100 000 − 19 bytes (bzip2's limit), so a block
//     never exceeds what the decoder accepts. The block CRC is taken over
//     the input before this stage.
//   - Burrows–Wheeler transform: the cyclic rotations of the block are
//     sorted with SA-IS (suffix sorting by induced sorting, linear time in
//     the worst case, so repetitive blocks cost no more than random ones).
//     Rotations are not suffixes, but the block is first rotated to its
//     least rotation (found in linear time); that is a Lyndon word u, or u
//     repeated k times, and a Lyndon word's rotations sort exactly as its
//     suffixes do. So one suffix sort of u plus a sentinel (at most n+1
//     characters, no doubling of the block) orders all rotations; each
//     character of u's last column is then repeated k times. The origin
//     pointer is the row of the unrotated block.
//   - Move-to-front over the used byte values, zero runs written in
//     bijective base 2 as RUNA/RUNB, then the end-of-block symbol.
//   - Huffman coding: 2..6 tables by the number of symbols (fewer than 200,
//     600, 1200, 2400: 2, 3, 4, 5; else 6), initially each cheap on a slice
//     of the alphabet holding an equal share of the symbols; then four
//     rounds of choosing for each 50-symbol group the table coding it in
//     the fewest bits (costs of all tables summed at once, packed 16 bits
//     per table) and rebuilding every table from the groups that chose
//     it. Code lengths are limited to 17 bits (the format allows 20) by
//     halving the frequencies until the tree is shallow enough; codes are
//     canonical. Selectors are written move-to-front and unary coded, code
//     lengths delta coded, as the decoder reads them.
//
// Each block is encoded into its own bit buffer by a blockEncoder, and the
// Writer appends those bits to the stream, so NewWriterThreads can encode
// several blocks on separate goroutines and still emit them in order:
// the output does not depend on the number of threads. The sorting and
// move-to-front buffers (about 11 MB at level 9) are lent to a block only
// while it is encoded, so there is one set per thread, not per block in
// flight; each block collected or waiting holds about 2 MB more. All
// buffers are kept across blocks and Reset.
//
// The description followed is the bzip2 file format as documented by Joe
// Tsai ("BZip2 format specification") and the behaviour of the reference
// decoder and encoder bzip2 1.0.8 (the table-count thresholds, the
// 17-bit build limit, four refinement rounds and the block size limit are
// bzip2's choices; the code is our own).
package bzip2
