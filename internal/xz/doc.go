// Package xz reads the .xz container format of XZ Utils (the "xz file
// format" specification, version 1.2.1, sections 2 to 5), decoding its
// blocks with internal/lzma's LZMA2 decoder and internal/filters' delta and
// branch converters.
//
// # Format
//
// A file is one or more streams, optionally separated and followed by
// stream padding (zero bytes in multiples of four). A stream is
//
//	header  | block … block | index | footer
//
// The 12-byte stream header holds a magic, two flag bytes naming the check
// type (none, CRC32, CRC64 or SHA-256 here) and a CRC32 of the flags. Each
// block starts with a block header (its size in multiples of four, the
// optional compressed and uncompressed sizes, one to four filters, zero
// padding, CRC32), then the compressed data, zero padding to a multiple of
// four and the check of the uncompressed data. The index repeats, per block,
// the "unpadded size" (header + compressed data + check) and the
// uncompressed size, and the footer gives the index size ("backward size")
// and repeats the flags. Variable-length integers are little-endian base-128
// with at most nine bytes and no redundant trailing zero byte.
//
// # What the Reader checks
//
// Everything the specification lets a decoder check: magic bytes, reserved
// bits, header CRCs, minimal integer encodings, declared block sizes against
// what the data used, the check of every block, every index record against
// the block it describes, the index CRC, the footer's backward size and
// flags, and that stream padding is zero and a multiple of four. Any
// mismatch is an error wrapping archive.ErrFormat, a check mismatch one
// wrapping archive.ErrChecksum, both carrying the file offset. Filter chains
// are LZMA2 last, preceded by up to three of delta and the branch converters
// (x86, PowerPC, IA-64, ARM, ARM-Thumb, SPARC, ARM64, RISC-V); other filter
// IDs and check types 2–3, 5–9 and 11–15 are reported with
// archive.ErrUnsupported. The LZMA2 dictionary is bounded by the caller's
// limit before it is allocated.
//
// The Reader is a streaming io.Reader: it reads its input once, front to
// back, and never seeks, so it can sit under a tar reader. With
// SetThreads(n > 1) it reads up to n+1 blocks of at most 32 MiB ahead,
// finding each one's end from its header and LZMA2 chunk headers (the
// sizes in the block header are not needed), decodes them on up to n
// goroutines and returns them in order (parallel.go); larger blocks, and
// any block whose decoding fails, are read again by the sequential path,
// so output and errors are those of one thread. To read no block ahead in
// vain, a Reader whose input is a sized io.ReaderAt (a file's section)
// first reads the indexes and decodes sequentially unless two blocks or
// more are small enough; from other inputs it walks no more blocks of a
// file once one was too large.
//
// The CRC-64 check is computed by carry-less multiplication (PCLMULQDQ)
// on amd64 CPUs that have it, folding 64 bytes a step (crc64_amd64.s), and
// with interleaved slicing-by-8 tables elsewhere (crc64.go).
// UncompressedSize reads a whole file's size from its indexes, backwards
// through an io.ReaderAt, for listings.
//
// Writer writes one stream of independent LZMA2 blocks with CRC-64
// checks, for `garc a` of .xz, .tar.xz and ZIP's XZ method: blocks of
// four dictionaries (from 2 MiB to 256 MiB, BlockSize), each starting with
// a fresh dictionary. A block of at most 4 MiB compressed has both sizes
// in its header, as `xz -T` writes them; a longer one has none there (the
// index has them), so that it is written as it is coded and the Writer
// holds no more than 4 MiB of its output. Blocks coded at once (a hash
// chain on several threads) take their input in pieces from a pool of a
// fixed size, so that the Writer's memory does not grow with the input.
// garc's Reader splits the stream
// into blocks by their LZMA2 chunk headers either way. The boundaries
// depend on the level, never on the threads, so the file is the same
// bytes for any thread count.
package xz
