// Package ppmd decodes PPMd, Dmitry Shkarin's "prediction by partial
// matching" compressor, in the three flavours garc meets, and encodes the
// 7z one. Variant H (2001) comes in two:
//
//   - 7z method 030401 ("PPMd7z"): the model coupled to 7-Zip's range coder
//     (the one LZMA uses). Reader7z is an io.Reader over such a stream;
//     ParseProps7z decodes its 5 property bytes (order, memory size).
//     Writer7z is the encoder (an io.WriteCloser); Props7z, LevelProps7z
//     and ReduceMem7z give the properties 7-Zip would choose.
//   - RAR 2.9–4.x PPM blocks: the same model coupled to the original
//     carry-less range coder of Dmitry Subbotin. RARDecoder decodes one
//     symbol at a time from a byte source shared with RAR's LZ decoder, with
//     a Model the caller keeps across blocks.
//
// Variant I revision 1 (PPMdI, 2002) is ZIP method 98:
//
//   - Reader8 is an io.Reader over such an entry: a 2-byte header (order,
//     memory in MiB, restoration method), then symbols coded with the
//     same Subbotin range coder as RAR's. Its model (ppmd8.go) differs
//     from variant H in its context flags, SEE and binary tables and,
//     when the arena is full, the restoration method the header names:
//     restart the model, or (method 1, "cut off") prune its deepest
//     contexts and keep the rest. Reader8 stops at the declared
//     size; an end marker after it is not required. Its errors are the
//     CorruptInputError described below.
//
// The model follows the published var.H algorithm and 7-Zip's Ppmd7
// implementation of it (bit-exact behaviour is required: encoder and
// decoder must evolve identical models). The code here is our own.
//
// # Contexts and escapes
//
// A context is the string of up to MaxOrder bytes preceding the current
// position. The model stores a tree of contexts: each context record
// lists the symbols seen after it, each with a frequency, and links to its
// suffix (the same context one byte shorter); the order-0 root holds all
// 256 byte values, so every symbol can eventually be coded. Each symbol
// state also carries a successor: the context one byte longer that follows
// it. To save memory a successor may first be a "raw" pointer into a copy
// of the recent input (the text area) and only become a real context
// record when it is used again.
//
// A symbol is coded in the longest context available. If that context
// never saw it, an escape is coded and the coder moves to the suffix
// context, excluding (masking) the symbols already ruled out; this repeats
// until the symbol is found. An escape out of the root is not a symbol:
// encoders use it as an end marker.
//
// After each symbol the model is updated: frequencies grow by 4 (a
// context's frequencies are halved — rescaled — once one exceeds 124, and
// maximum-order contexts then drop symbols that fell to 0), the symbol is
// added to every context that escaped, and new longer contexts are created
// along the successor chain.
//
// # Binary contexts and SEE
//
// Contexts with a single symbol are coded as a yes/no decision whose
// probability comes from a 128×64 table (BinSumm) indexed by the symbol's
// frequency and a few bits of history: whether the previous symbol was
// predicted, the run length of successes, the size of the suffix context
// and whether the current and previous bytes are above 0x3F. The table
// adapts after every use.
//
// The escape frequency of multi-symbol contexts after masking is not
// taken from the context itself but from secondary escape estimation
// (SEE): 25×16 adaptive cells selected by the number of unmasked symbols,
// how that compares with the suffix and the masked count, the context's
// total frequency and the high bit of the previous byte.
//
// # Memory: the sub-allocator
//
// All model memory is one arena of the size given in the stream header
// (Model.Init), addressed by uint32 offsets rather than pointers, which
// keeps the structure compact and invisible to the garbage collector.
// The low end holds the text area (growing up); the rest is cut into
// 12-byte units. Context records take one unit each, from the top down;
// symbol lists take 1..128 units, rounded to 38 size classes, from below.
// Freed lists go to per-class free lists, and when an allocation fails the
// allocator merges adjacent free blocks ("glue") before taking units from
// the top of the text area.
//
// When memory is exhausted (or the text area reaches the units) the model
// restarts: the arena is emptied and the initial order-0 model rebuilt,
// identically in encoder and decoder. The arena never grows while
// decoding, so memory use is exactly the size the caller accepted. On
// Linux the arena asks for transparent huge pages, as 7-Zip's does (its
// records are read at random across it), unless Reader7z's stream is
// under 1 MiB and under 1/16 of its size; an arena of 4 MiB or more is
// mapped outside the Go heap (so it starts no garbage collection; the
// mapping goes when its Model is unreachable, and Init reuses it) and
// starts on a 2 MiB boundary (taking up to 2 MiB more address space,
// never touched), so that all of it can have them. Like 7-Zip, nothing
// clears it: the system hands out zero pages as the model first touches
// them.
//
// # Range decoders
//
// Both flavours keep a code and a range register, map the code to a
// cumulative frequency (threshold), narrow to the symbol's interval and
// renormalise by shifting in bytes. The decoder divides the range by the
// context's total once per context visited; whether the code falls in
// the first symbol's interval (in a shorter context after an escape: in
// the escape's) is then a multiplication, and only a search through the
// symbols takes the code's exact position (a second division). The 7z flavour begins with a zero
// byte and renormalises while the range is below 2^24; at the end of a
// sized stream 7-Zip requires the code register to be 0, which Reader7z
// checks too. The RAR flavour also tracks the low end of the interval,
// renormalises when its top byte is settled or the range is below 2^15
// (then cutting the range to the next 2^15 boundary), and splits binary
// decisions in whole 2^-14 steps.
//
// # Hostile input
//
// Any byte sequence decodes to some symbol sequence, and the model stays
// consistent for every symbol sequence, so corrupt input can only produce
// wrong bytes or an error: a code outside the current total, an end marker
// in the middle of data, or input ending early. Totals are checked against
// the range before dividing, and output is bounded by the caller's size.
// As a last line of defence, an index or division fault inside the model
// is turned into ErrCorrupt at the API boundary instead of a crash.
//
// # Encoding (7z)
//
// The encoder drives the same model with the same decisions: for each
// byte it codes, in the current context, either the byte's interval of
// the cumulative frequencies or the escape interval, or the yes/no
// decision of a binary context, and moves through the masked suffix
// contexts until the byte is coded; then the model is updated exactly as
// in the decoder. The range encoder keeps a 33-bit low register: a carry
// out of 32 bits is pushed into the byte held back (cache) and the run of
// 0xFF bytes behind it, which are only counted until the carry is
// settled. Its first output byte is always 0, and closing shifts out five
// bytes. 7z stores the unpacked size, so 7-Zip writes no end marker (an
// escape out of the order-0 context); Writer7z.Close does the same and
// CloseWithEndMarker adds one. Given the same order and memory, the output
// is byte for byte 7-Zip's (tested against 7zz).
//
// 7-Zip's parameters by level (CPP/7zip/Compress/PpmdEncoder.cpp,
// CEncProps::Normalize; LevelProps7z):
//
//	-mx      1     2     3     4     5      6      7      8       9
//	order    4     4     5     5     6      8      16     24      32
//	memory   1M    2M    4M    8M    16M    32M    64M    128M    192M
//
// i.e. memory 2^(19+level) bytes except 192 MiB at level 9. For a stream
// of known size S (7z passes the folder size as ReduceSize) the memory is
// then cut, when it exceeds 16*S, to the smallest power of two from 64
// KiB up that is at least 16*S (ReduceMem7z): a small file gets a small
// arena and needs little memory to decode.
//
// # RAR specifics left to the caller
//
// The RAR decoder parses the PPM block header: a flags byte (0x20: reset
// the model, followed by MaxMB; 0x40: an escape character follows; low 5
// bits: MaxOrder-1). On reset it calls Model.Init(order, (MaxMB+1)<<20)
// with order = MaxOrder, raised to 16 + (order-16)*3 when above 16. It then
// interprets the escape character's follow-up codes (new LZ block, end of
// file, filter, matches) itself.
//
// # Errors
//
// Corrupt or truncated input gives a *CorruptInputError with the offset of
// the decoder's input at which decoding failed, wrapping ErrCorrupt,
// ErrEndMarker or ErrTruncated and so archive.ErrFormat. The model is an
// arena of records linked by offsets; every offset read from it is checked
// where a broken invariant could lead out of the arena, and the decoders'
// API methods recover, in one place (recoverFault), the runtime error an
// unchecked one would raise, reporting it as corrupt data and marking the
// model unusable. Hostile input is meant never to get there: the fuzz
// targets fail on such a fault.
package ppmd
