// Package tar reads tar archives as an archive.Reader: plain, or inside one
// of the single-stream compressions of internal/stream (.tar.gz, .tar.bz2,
// .tar.xz, .tar.zst, .tar.lzma), which it decodes while it reads.
//
// # Format
//
// A tar archive is a sequence of 512-byte header blocks, each followed by
// the entry's data rounded up to a multiple of 512, and ends with two zero
// blocks (which many writers omit). The header dialects garc meets are the
// original Unix v7 header, POSIX ustar (magic "ustar\x00" at offset 257, a
// 155-byte name prefix), GNU tar (long names and link targets in 'L' and
// 'K' pseudo-entries, base-256 numbers, the old sparse format 'S') and POSIX
// pax (extended headers 'x' and global headers 'g' carrying "key=value"
// records: path, linkpath, size, times, owner names, sparse maps of the GNU
// 0.0, 0.1 and 1.0 conventions). The header parsing, including sparse maps
// (holes read back as zeros) and its bounds on special entries, is the
// standard library's archive/tar, which handles every dialect above; this
// package maps its headers onto archive.Entry and adds what garc promises:
// errors that wrap archive.ErrFormat and carry the input offset, entry
// counts bounded by the memory limit, and character and block devices and
// FIFOs left out of extraction with a warning, never created.
//
// # Passes
//
// Data is read front to back only. Entries (for listings) reads headers
// once, skipping data by seeking when the tar is not compressed; Extract
// reads the archive again from the start and hands each selected entry's
// bytes to the callback as it passes. A compressed tar is therefore decoded
// once by `garc x`, `t` and `l` alike, and never written to a temporary
// file.
package tar
