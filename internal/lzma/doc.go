// Package lzma implements LZMA and LZMA2 compression and decompression as
// used by 7z archives (methods 030101 and 21).
//
// # Format
//
// LZMA (lzma-specification.txt in 7-Zip's DOC directory) codes a byte
// stream as a sequence of literals and matches with an adaptive binary
// range coder. Every decision is a bit coded with an 11-bit probability
// that adapts by 1/32 of the distance to 0 or 1 after each use. The model
// keeps a 12-valued state summarising the last few symbol kinds, the four
// most recent match distances (rep0..rep3), and codes:
//
//   - literals with one of 2^(lc+lp) 0x300-entry bit-tree coders, chosen by
//     the low lp bits of the position and the high lc bits of the previous
//     byte; after a match the literal is coded "matched", against the byte
//     at distance rep0, until the first differing bit;
//   - match lengths 2..273 with a choice bit, two 3-bit trees per position
//     state (low pb bits of the position) and an 8-bit tree;
//   - distances with a 6-bit slot per length class, then reverse bit trees
//     for small distances or direct (fixed-probability) bits plus four
//     reverse-coded aligned bits for large ones;
//   - repeated distances (rep0..rep3) and the one-byte "short rep".
//
// The raw stream 7z stores has no header: the five property bytes
// (lc/lp/pb and the dictionary size) are the coder properties and the
// unpacked size is in the 7z header, so an end marker (distance
// 0xFFFFFFFF) is only needed when the size is unknown. When a declared
// size has been decoded, Reader checks the end as 7-Zip and XZ Utils do:
// the range decoder must be finished (code 0 after the final
// normalisation) or an end marker must follow; data going on past the
// size, or a match running over it, is corrupt.
//
// LZMA2 (Lzma2Dec.c) frames LZMA data in chunks of at most 2 MiB unpacked
// and 64 KiB packed. Each chunk starts with a control byte: 0x00 ends the
// stream, 0x01/0x02 introduce an uncompressed chunk with or without a
// dictionary reset, and 0x80|… an LZMA chunk whose bits 5–6 say whether
// it resets nothing, the state, the state and the properties, or
// everything including the dictionary. Each LZMA chunk restarts the range
// coder, so chunks can be located without decoding. Reader2.SetThreads
// uses that: the segments from one dictionary reset to the next (7-Zip's
// multithreaded encoder resets at each block) are read ahead, at most n+1
// of at most 32 MiB, and decoded on up to n goroutines
// (lzma2_parallel.go); anything else goes to the sequential decoder. A
// first segment above 1 MiB (firstWalk) is not read ahead: the sequential
// decoder takes it, and the walk resumes at the next dictionary reset. A
// segment of uncompressed chunks only (random data) is copied by the walk
// itself, with no goroutine, and only one such segment is held ahead.
// Segmented tells from the chunk headers alone whether a stream has such
// segments (internal/sevenzip decodes those folders as they stream rather
// than prefetching them whole).
//
// # Decoder
//
// The decoder keeps the dictionary as one flat window that wraps around
// (its size is rounded to a multiple of 16 so buffer positions give the
// same lp/pb position bits as stream positions); at its full size, where
// matches reach far back at random, it is asked for transparent huge pages
// (hugeBytes): fewer TLB misses and page faults, 1.13× → 1.03× 7zz's CPU
// on 32 MiB of numbers at -mx5. Compressed input is held
// in memory with spare bytes after it, so the hot loop decodes whole
// symbols with the range, code and input position in local variables and
// checks the input bound once per symbol; a symbol reads at most 49 bytes.
// Only what every symbol changes lives in locals (range coder, position,
// state, rep0): the probabilities other than the literals' are an array
// inside the decoder, addressed from it without a register of their own,
// and the limits and older reps are fields, so that the compiler keeps
// the range coder in registers. The bits choosing the kind of symbol and
// the low length tree are decoded with branches, which cost nothing when
// predicted; distance slots and the four aligned bits by unrolled,
// branch-free bit trees that load both children of a node while its bit
// is decoded. Literals are decoded either way, chosen every 4,096
// literals by the input they took: with branches below 2.5 bits a literal
// (numbers, repetitive text), branch-free above (varied data, where the
// bits are close to random). Rep distances are valid once a byte is
// decoded (every decoded distance is checked), so only a rep before the
// first byte is refused. Short matches (up to 16 bytes whose source and
// destination do not wrap) are copied as two 8-byte words at a distance
// of 8 or more and byte by byte below, the window keeping 16 spare bytes
// beyond the dictionary for what such a copy writes past the match;
// longer ones go through copy(), doubling the source for overlapping
// short distances. Output is returned from the window through Read or
// written from it directly by WriteTo.
//
// A new decoder does not allocate its whole dictionary at once: the
// window starts at 16 KiB (or the whole window when that is smaller) and
// grows eightfold with the output, up to the dictionary size, and only
// before it first wraps, so a short stream declaring a large dictionary
// and no size costs what its output needs. While the last step copies,
// the old and new windows together hold up to 9/8 of the full size for a
// moment. A stream of known unpacked size grows from 16 KiB to its full
// window (the smaller of its dictionary and its size, which it fills) in
// one step, without the copies between. A decoder that is Reset keeps its
// full-sized window. The input buffer likewise starts at 4 KiB and takes
// its full 128 KiB once a stream proves longer.
//
// # Encoder
//
// The match finders (after LzFind.c's ideas) index the window by a 4- or
// 5-byte hash (MatchFinderKind). hc4/hc5 (hcfinder.go) chain every
// position to the previous one with the same hash; everything a position
// needs is hashed from one load, and small 2- and 3-byte tables give the
// nearest short matches. bt4/bt5 (matchfinder.go) keep the positions of a
// hash in a binary tree ordered by the following bytes, re-rooted at each
// insertion, beside direct 2- and 3-byte (and, for bt5, 4-byte) tables.
// Positions are absolute stream positions so the tables survive sliding
// the window. For the trees, the hash tables do not depend on the tree,
// so the candidates of the next 64 positions are looked up in one tight
// loop ahead of the tree walks (their cache misses overlap), and the walks
// of up to eight positions whose hashes differ run side by side, a node
// of each in turn with the next ones prefetched (btwalk.go: a walk is a
// chain of dependent loads, so alone it waits for every miss), for the
// positions ahead of the parser, whose lists are kept until it gets there;
// on Linux the tables ask for transparent huge pages.
//
// Levels 1–4 parse greedily with one position of lookahead (a longer or
// closer match at the next byte, or a rep match there, makes the current
// byte a literal; parse_fast.go), and each symbol is coded as soon as it
// is decided (encodeFast). Levels 5–9 use price-based optimal
// parsing (parse_optimal.go, prices.go):
// prices of every decision are read from the current probabilities, and
// the cheapest way to reach each of the next positions (up to 4096) is
// found by dynamic programming over literals, short reps, rep matches,
// matches of every length, and the composites "literal + rep0" and
// "match or rep + literal + rep0". Length and distance price tables are
// refreshed as the model adapts.
//
// Parsed symbols carry their real distance, not a rep index, so they can
// be coded in whatever model state holds when they are emitted; this is
// what lets an LZMA2 chunk end anywhere and lets the model be reset after
// a chunk turned out incompressible and was stored. A distance equal to a
// rep is coded as that rep, except where the parser priced a match: that
// symbol is coded as a match, as priced.
//
// Writer2 cuts the input into blocks (BlockSize) and writes them in
// order, compressing several blocks at once (below). Only the first block
// resets the dictionary. A later block resets the model (probabilities,
// state, reps) but keeps the dictionary: its encoder is handed the
// DictSize bytes before the block and preloads its match finder with them
// (the last MiB inserted into the binary trees as searching would, the
// rest into the hash tables only), so its matches reach back across the
// boundary. Blocks therefore cost almost nothing in ratio
// (docs/PERFORMANCE.md) and can be compressed in parallel.
//
// With a binary-tree finder, Threads/2 blocks (rounded up) run at once,
// each on two threads (with an odd count, the last on one), as in 7-Zip:
// one encoder per two threads. With Threads=2 one block runs at a time
// while Write waits, in a single buffer that then carries the history to
// the next block. A block on two threads gets two goroutines: a
// match-finder worker, which walks and updates the binary trees (several
// walks side by side, as one thread does), and the
// parser/coder, which hashes the positions for the worker a chunk ahead,
// looks up the short-match tables itself and merges each position's tree
// matches from the worker (mtfinder.go). A position's matches never
// depend on the parser (skipping a position updates the tables exactly as
// searching it), so the output does not depend on the thread count.
// Hash-chain blocks (the fast levels) run one per thread. With one
// thread they are not gathered at all: one encoder codes them as the
// input arrives, in a window of the dictionary, one 2 MiB chunk, the
// lookahead and 1 MiB that it slides (fast_stream.go), with one finder
// kept across block boundaries instead of being preloaded again. The
// model is reset and the chunks cut exactly where the buffered path does,
// and the finder finds the same matches, so the bytes are those of any
// other thread count at a fraction of the memory. Each block
// becomes LZMA chunks of at most 2 MiB unpacked and 64 KiB packed, or
// uncompressed chunks when LZMA does not shrink the data.
//
// WriterOptions.Context stops the encoders: they poll it every 64 KiB of
// input positions (in the parsers' loop and while a block's history is
// preloaded), the parallel finder's worker stops with its block, and
// Write and Close then return an error wrapping the context's error.
//
// # Errors
//
// Corrupt or truncated input gives a *CorruptInputError with the offset in
// the compressed input at which decoding failed; it wraps
// archive.ErrFormat.
package lzma
