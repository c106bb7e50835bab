// Package sevenzip reads and writes 7z archives. NewReader implements
// archive.Reader for every container feature 7-Zip writes; Write creates
// an archive, or updates one given as a Base (untouched folders are copied
// byte for byte); see the overview at the top of write.go for the writer's
// grouping of solid blocks, filters, encryption and threads.
//
// # Container (7-Zip DOC/7zFormat.txt)
//
// A 7z archive starts with a 32-byte signature header: the six signature
// bytes, a two-byte version, the CRC of the following 20 bytes, and the
// offset, size and CRC of the "next header", which sits at the end of the
// archive. Everything between the signature header and the next header is
// packed streams.
//
// The next header is either a plain Header (kHeader) or an encoded header
// (kEncodedHeader): a StreamsInfo describing folders whose decoded output is
// the real header, which may in turn be encoded again. Encoded headers are
// usually LZMA-compressed and, with -mhe, AES-encrypted.
//
// A Header holds archive properties, the MainStreamsInfo and the FilesInfo.
// StreamsInfo has three parts: PackInfo (position and sizes of packed
// streams), UnpackInfo (folders: small graphs of coders joined by bind pairs,
// with the unpacked size of every coder output) and SubStreamsInfo (how a
// folder's output is cut into files, with their CRCs). FilesInfo lists every
// entry with a set of optional property vectors: names (UTF-16LE, decoded
// with an unpaired surrogate in WTF-8, as 7-Zip writes it on Unix, so that
// names differing there stay distinct; written back the same way), empty
// streams (directories and empty files), empty files, anti-items, times
// (Windows FILETIME), attributes (Windows bits, plus a unix mode in the high
// 16 bits when bit 0x8000 is set) and a few rarely used ones.
//
// Files with data are assigned to the folders' substreams in order, so a
// folder's files are contiguous. A folder with more than one file is a solid
// block: reading a file means decoding every byte in front of it.
//
// # Decoding
//
// Each coder has one output and one or more inputs. The folder's main output
// is the coder output that no bind pair consumes; every coder input is either
// bound to another coder's output or fed by a packed stream. Decoders are
// built recursively from the main output and are looked up by method ID in a
// registry (coders.go). Every coder output is bounded by its declared unpack
// size, and a coder that ends early is reported as corrupt data.
//
// Coders (registry in coders.go, one file per family): Copy; LZMA and
// LZMA2 (internal/lzma; the tests compare it with
// github.com/ulikunitz/xz/lzma); PPMd var.H (internal/ppmd); BZip2 (internal/bzip2,
// which also reads concatenated streams); Deflate and Deflate64
// (internal/deflate64, one inflater for both); the branch
// filters BCJ, PPC, IA64, ARM, ARMT, SPARC, ARM64, RISCV and Delta, and the
// four-input BCJ2 (internal/filters); 7zAES (internal/aes); and the
// 7-Zip-zstd fork's Zstandard (github.com/klauspost/compress/zstd). Brotli,
// LZ4, LZ5, Lizard and unknown IDs are reported as unsupported by name.
//
// # Reading
//
// NewReader parses everything up front (Entries is complete). Extract walks
// the entries in archive order; a folder is opened when its first wanted
// entry is reached, entries in front of it are decoded and discarded, and
// decoding stops after the folder's last wanted entry, so a solid block is
// decoded at most once per call. Each content reader checks the file CRC
// at its end, or the folder CRC at the folder's end when files carry none.
// Symlinks (unix mode S_IFLNK, or Windows reparse data) get their target
// read from the data (at most 64 KiB) into Entry.LinkTarget. The first
// Entries call outside Extract fills the targets of links of at most
// 4 KiB in unencrypted folders, decoding at most 2 MiB per archive
// (the entries in front of a link in a solid block included) and never
// asking for a password; the others stay empty until extracted.
//
// Passwords are asked for once per Reader. An encrypted header that does
// not decode is a wrong password; in encrypted folders a CRC mismatch or a
// decoder error is reported as both ErrWrongPassword and ErrChecksum, and
// the first entry of an encrypted folder is verified before its reader
// yields a byte, so a wrong password shows before anything is written.
//
// With Options.Threads > 1, the wanted parts of upcoming folders are
// decoded in background goroutines into memory (bounded by a 128 MiB
// budget; larger folders are streamed in the foreground). So is a folder
// of 2 MiB or more whose LZMA2 stream resets the dictionary again within
// 32 MiB (7-Zip's multithreaded blocks): its decoder decodes those
// segments on the threads itself, holding a few of them.
//
// # Limits
//
// Every count read from a header is checked against the bytes left before
// anything is allocated. Dictionary sizes (LZMA, LZMA2: the window really
// allocated, i.e. never more than the output), PPMd model memory and the
// Zstandard window are checked against Options.Limit and refused with
// *archive.LimitError; the 7zAES key-derivation cost against
// Options.MaxKDFCost. No coder yields more than its declared size, and one
// that ends early is corrupt data.
//
// Memory: a Reader holds an archive.MemoryBudget of Options.Limit bytes
// (or shares Options.Memory). The parsed header's records (entries,
// folders, vectors, names) are charged to it before they are allocated,
// so the entry count is bounded by the limit, and stay charged until
// Close. Before a folder's decoders are built, their windows and models
// are reserved at once (coders.go, reserve): decoders of finished folders
// wait in a pool (pool.go) with their charge and are reused by the next
// folder of the same kind; when memory is short, idle ones are dropped,
// largest first, and the freed memory is returned to the system before
// the next allocation; a folder that still does not fit waits for the
// folders decoding in parallel, and one that alone exceeds the limit is
// refused. Every change of decoder memory (reserved, pooled, dropped) is
// made under the pool's lock, so that a folder deciding to wait or to be
// refused sees each byte held either by a folder decoding or by an idle
// decoder. The process's decoder and header memory therefore stays within
// the limit whatever the number of folders, entries or threads.
//
// Corrupt data is reported with its place: a plain header's parse failure
// at its archive offset, a decoding failure with its folder and, for a
// folder with one packed stream, the archive offset of the codec's packed
// offset (archive.Error.Offset).
//
// The format-neutral view (archive.Entry, archive.Reader) is in
// internal/archive; reader.go maps the parsed header onto it.
package sevenzip
