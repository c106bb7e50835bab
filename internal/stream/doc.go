// Package stream reads the single-stream compressed formats — gzip
// (RFC 1952), bzip2, xz (internal/xz), zstd (RFC 8878) and LZMA Utils'
// .lzma — both as decoders for other readers (a tar inside) and as a
// one-entry archive.Reader for a plain compressed file.
//
// Recognition is by content (Identify): the gzip, bzip2 ("BZh" and a block
// or end magic), xz and zstd magics (zstd also from a leading skippable
// frame), and for .lzma, which has no magic, the shape of its 13-byte
// header: a properties byte below 225, a dictionary size of the form 2^n
// or 2^n+2^(n-1), and an unpacked size that is unknown or plausible.
//
// Every concatenated member, stream or frame is decoded in order (gzip
// multi-member, bzip2 multi-stream, xz multi-stream with padding, zstd
// frames with skippable frames skipped). The entry is named as 7-Zip names
// it (StoredName): the name a gzip header records (FNAME, its bytes as
// stored, up to 4095 of them), cleaned as 7-Zip cleans it on extraction
// ("../x" and "/x" give "x", "a/b/c" stays a path; listings show it so,
// where 7-Zip lists the stored name), else the file's name with the
// extension 7-Zip registers for the format replaced (x.tar.gz → x.tar,
// x.tgz → x.tar, x.tbz2 of gzip → x, noext → noext~). Window and
// dictionary sizes are bounded by archive.Options.MaxDict before anything
// is allocated; corrupt data and check mismatches wrap archive.ErrFormat and
// archive.ErrChecksum.
//
// The entry's size is listed as 7-Zip lists it: for .xz the sum of the
// uncompressed sizes its indexes record (read from the end of the file
// with xz.UncompressedSize, none when they are inconsistent; decoding
// checks them again), for .gz the ISIZE of the trailer (the last member's
// size modulo 2^32: a hint that Extract replaces by the bytes decoded),
// for .lzma the header's size when it is known.
//
// A File's Info().Details is a *Details: what 7-Zip's technical listing
// shows of the format, read without decoding (gzip: the first header's
// size and OS byte, the last trailer's CRC; xz: streams, blocks, the
// largest block, check types and the first block's filters from the
// indexes and block header; .lzma: the header's properties; zstd: the
// first frame header, or every frame header, block header and checksum
// when a skippable frame comes first, as 7-Zip reads them).
//
// gzip members are framed here (gzip.go: header with FEXTRA, FNAME,
// FCOMMENT and FHCRC, trailer CRC-32 and ISIZE checked per member, the
// input required to end after a trailer) around internal/deflate64 in
// plain Deflate mode, the decoder ZIP uses: about 17 % less CPU than
// klauspost/compress's gzip on a 32 MiB .tar.gz (klauspost's flate is
// linked for writing, its init building 42 KB of encoder tables at every
// start). zstd uses github.com/klauspost/compress (the standard library has
// none), with its window bound raised from its default of 512 MiB to
// --max-dict (up to the 3.75 TiB a frame header can declare), and read
// beside it by zstdCheck (zstdcheck.go), which names the window of a
// frame over the limit and finds what klauspost's decoder lets through: a
// sequence of offset 0, corrupt by RFC 8878's errata and zstd since
// 1.5.6 (zstd's golden-decompression-errors/off0.bin.zst), which the
// decoder copies as offset 1. A file whose first 64 KiB hold mostly RLE
// blocks (zstdMostlyRuns: 16 times the bytes of the other blocks), or
// that starts with a raw block of the largest size and whose first 2 MiB
// hold mostly raw blocks (zstdMostlyRaw: incompressible data), is
// decoded by garc's own decoder (internal/zstd's Reader) instead, with
// no check beside it: it refuses offset 0 and names the window itself,
// it fills an RLE block by doubling copies where klauspost's decoder
// writes it a byte at a time (garc t of 100 MB of runs in 0.55x the CPU
// time), and it reads a raw block straight into its window where
// klauspost's decoder copies it three times. The check decodes each
// compressed block's FSE tables and sequence bit stream for the offsets,
// on its own goroutine once a stream passes 256 KiB, beside the decoder:
// it costs from a third of the decoder's CPU time (zstd -19 of text) to
// two thirds of it (zstd -3 of source code and binaries, a sequence every 17 bytes),
// which a second processor takes. bzip2, xz and .lzma use garc's own
// decoders. zstd decodes on one goroutine: klauspost's
// WithDecoderConcurrency(2) took as much CPU time or more (t of 177 MB:
// 0.70–0.77 s against 0.64–0.73 s) for no wall time gain that could be
// measured on the shared machine, whose second processor the check
// already uses. Nor are the frames of a stream decoded in parallel (zstd
// -T2 writes one frame; garc's writer frames of 16 MiB, pzstd frames of
// its own): a decoder per frame, each frame decoded whole into memory
// while the reader reads the one before, gave the same output and errors
// but took 1.46x the CPU time of `garc t` of a 300 MB stream and 1.21x
// of 1.2 GB, at no wall time gain on the loaded machine (load 20-30):
// on this machine touching fresh memory costs about 4 ms of CPU time per
// MiB, and the frames decoded ahead need a frame's output each. The
// decoder reads the file through a 64 KiB buffer (not two system calls a
// block), and it, the buffer and its window buffer go to the next zstd
// stream opened (a .tar.zst is opened twice: to see whether it holds a
// tar, then to read it).
//
// With threads > 1, NewDecoder's decoder runs ahead of its reader on a
// goroutine of its own (readahead.go: four 512 KiB buffers in one huge
// page kept for the next, the decoder's error passed after the data
// before it, stopped and waited for by Close), so that decoding a
// compressed tar overlaps creating its files. It starts only for a
// reader that takes the data by ReadChunk (an extractor) and is busy
// between its reads; until then, and for a reader of Read alone (t, a
// listing), the reader reads from the decoder itself.
//
// # Writing
//
// NewWriter compresses into each of the formats for `garc a` (single
// streams and compressed tars): gzip as pigz writes it, a Deflate stream
// cut into 512 KiB blocks that each take the 32 KiB before them as
// dictionary and end in a sync flush, compressed on several goroutines
// (from -mx6 by garc's own encoder, internal/deflate's lazy parse with
// settings near zlib's levels, below by klauspost/compress's flate:
// blocks.go); bzip2 with internal/bzip2's parallel block encoder;
// xz with internal/xz's Writer (independent blocks of four dictionaries,
// compressed on several goroutines); zstd as independent frames of
// 16 MiB, each compressed by its own encoder (garc's internal/zstd at the
// default levels -mx3 to -mx5, klauspost/compress's at the others), up to
// --threads at once (zstdwriter.go); .lzma with the header's size known or an end marker.
// The output never depends on the number of threads.
//
// The levels of .xz take xz's dictionaries, not 7-Zip's (xzOptions), with
// 7-Zip's match finder and parse of the level, and from -mx6 a nice
// length of 128 (xz's is 64):
//
//	level       1      2      3      4      5      6      7      8       9
//	dictionary  1 MiB  2 MiB  4 MiB  4 MiB  8 MiB  8 MiB  16 MiB 32 MiB  64 MiB
//	block       4 MiB  8 MiB  16 MiB 16 MiB 32 MiB 32 MiB 64 MiB 128 MiB 256 MiB
//	finder      hc5 (fast parse)            bt4 (optimal parse)
//	nice        32     32     32     32     32     128    128    128     128
//
// The encoder's memory follows the dictionary, not the input: -mx6 (the
// default) peaks at about 113 MB on 20 MiB as on 2 GiB, xz -T2 -6 at
// 212-226 MB, and the files are smaller than xz -T2's at -1, -6 and -9
// on source code, mixed data, logs and executables (a CSV table of
// numbers: 1.003× at -mx6).
// .lzma keeps 7-Zip's dictionaries (lzma.LevelOptions).
package stream
