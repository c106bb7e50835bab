// Package deflate is garc's Deflate encoder (RFC 1951) for ZIP, levels 1
// to 9 as 7-Zip's -mx1 … -mx9, and for gzip from -mx6 (NewWriterChain:
// the lazy parse below with settings the gzip writer chooses against
// pigz's). It writes raw Deflate, without a zlib or gzip wrapper.
//
// For the gzip writer's pigz-style blocks, ResetDict starts a stream
// whose matches may reach into a preset dictionary (the 32 KiB before
// the block, as zlib's deflateSetDictionary) and Flush ends what is
// written so far with a sync flush (an empty stored block), so that the
// blocks' streams, all but the last ended so, concatenate into one.
//
// # The format
//
// A Deflate stream is a sequence of blocks, the last one flagged. Each
// block is stored (raw bytes behind a length), or a sequence of symbols
// coded with Huffman codes: literals (a byte), matches (a length of 3 to
// 258 bytes and a distance of 1 to 32768 bytes back into the output) and
// an end of block. Lengths and distances are sent as a symbol for a range
// plus extra bits for the place in it. A block with fixed codes uses the
// codes of the RFC; a dynamic block starts with its own code lengths,
// themselves run-length coded and Huffman coded. Codes are canonical and
// at most 15 bits long (7 for the code length code), and bits are packed
// least significant first.
//
// # How this encoder chooses its symbols
//
// Input is gathered in chunks of 128 KiB and kept for a window of 32 KiB
// behind them.
//
// The fast levels 1 to 4 use hash chains over 3-byte hashes (chain.go).
// Level 1 parses greedily, as 7-Zip's -mx1: at most 32 candidates per
// position, the longest match taken (a match of 32 bytes ends the walk
// and is extended at its distance), the positions it covers only linked
// into their chains. Levels 2 to 4 parse lazily, as zlib's levels 4 to 9
// (and so Info-ZIP's zip): a match shorter than the level's lazy length
// is dropped for a literal when the next position has a longer one.
// Level 3 (48 candidates, lazy below 24 bytes) is meant to be smaller and
// cheaper than zip -6, level 4 (256 candidates, a quarter of them once
// the match in hand has 16 bytes, lazy at every length) than zip -9;
// level 2 (32 candidates, lazy below 8) lies between 1 and 3. At levels
// 3 and 4 the walks adapt to the input (chain.go): where, in the chunk
// before, a longer match rarely came 16 or more candidates after the one
// before (under one full walk in 64 at -mx3, in 32 at -mx4; once the cut
// is on, only one position in 64 walks in full, to count), a walk ends 8
// candidates after its last longer match. On a list of numbers (`seq 1
// 10000000`), where every 3-byte string recurs all over the window and
// no match is long, this roughly halves the time of -mx3 and -mx4 and
// makes their output 0.8 % smaller; on Go sources and mixed data, where
// late matches come in 4 to 10 % of the walks, the output grows by at
// most 0.03 %. Their symbols are then cut into blocks as below.
//
// At levels 5 to 9, for every position of a chunk a binary-tree match finder
// (matchfinder.go) lists the matches worth considering: the trees, one per
// 3-byte hash, order the window's positions by the bytes that follow
// them, so one walk from the root finds matches of increasing length,
// each at the nearest distance the walk met. The trees compare strings
// over at most the level's "nice" length, so a walk ends at the first
// match that long; that match is then extended at its distance as far as
// it goes (up to 258 bytes), taken whole, and the positions inside it are
// only added to the trees (at -mx5 only the first and the last 32 of
// them: the strings between are in the trees where the match copies
// from, and their walks were a quarter of the time on mixed data).
//
// The parse is then a shortest path over the chunk (parse.go): every
// position is reached from an earlier one by a literal or by one of that
// position's matches at any length up to its longest, and each step costs
// the bits its symbols would take. Those costs are only known once the
// codes are, and the codes depend on the parse, so the parse is repeated:
// the first prices the symbols by the statistics of the previous chunk
// (or by the fixed codes; from -mx6 a stream's first chunk is then parsed
// once more, which at -mx5 made 20 MB of Go sources in 1,105 files only
// 0.6 % smaller for 10 % more time), and each further pass by the symbol
// frequencies of the pass before: a symbol costs -log2 of its share, or,
// every other pass, the mean of that and its code length in the Huffman
// code of those frequencies (smaller on text and executables, but it can
// settle on a much worse parse of very regular input, so it is only one
// of the candidates). Higher levels visit more candidates, take long
// matches whole later and parse more times; the smallest parse is kept.
//
// -mx5 visits 16 candidates per position and takes a match of 48 bytes
// whole, where 7-Zip visits 32 and stops at 32: the longer limit makes
// logs 1.2 % and mixed text 1.5 % smaller (7-Zip's limit left logs 0.3 %
// larger than 7zz's), and 12 candidates left a slice of the go command
// larger than 7zz's.
//
// The chosen symbols are then cut into blocks (writer.go): a run of
// symbols is cut in two, at the best of a few evenly spaced points, when
// the two parts, each with its own codes, cost less than one block, and
// so on recursively; the costs come from per-segment symbol counts. Each
// block is then parsed again (once at -mx6 and -mx7, twice at -mx8, up
// to four times at -mx9, not at -mx5) priced by its own statistics,
// since its codes are what its symbols will cost, and the cheaper parse
// is kept. -mx9 also tries 64 cut points when halving a run: with the
// four parses it makes 20 MB of executables 0.01 % smaller, and it cuts
// at every 512 symbols instead of 1,024, which made another 20 MB of
// executables 9 KB smaller (8,055,730 B against 7zz's 8,064,264 for the
// ZIP), for about 7 % more time; no bench class larger. A block is sent dynamic, fixed
// or stored, whichever is smallest. The code lengths come from a plain Huffman
// construction, or from package-merge when that would exceed the length
// limit (huffman.go).
//
// At -mx6 the positions inside a long match are left out of the match
// finder's trees (the same strings are there where the match copies
// from), which costs a little size and saves much time on repetitive
// input.
//
// # Why an encoder of its own
//
// The Go ecosystem's encoder, klauspost/compress/flate, is what garc's
// gzip writer uses below -mx6 (pigz-style parallel blocks, where its
// speed counts); from -mx6 it was up to 2.5 % larger than pigz at the
// same level on executables (its level 9 still 2.1 % for twice the CPU
// time), where this encoder's lazy parse is no larger than pigz's for
// less CPU time. For ZIP the target is 7-Zip's sizes at the same -mx,
// and there it fell short: at -mx1 on numeric
// text `seq 1 10000000` came out 21.17 MB against 7zz's 17.17 MB (1.23×)
// and executables 1.03× (docs/PERFORMANCE.md, "Deflate, gzip and ZIP");
// levels 5 to 9 follow 7-Zip's optimal parse, which it has no mode for.
//
// The buffer is an array of a power of two bytes (and 8 more), which the
// match finder indexes through a mask instead of bounds checks, and
// compares 8 bytes at a time. The parse keeps each position's cost and
// step in one word, so that relaxing a length is a branch-free minimum.
//
// The output depends only on the input bytes and the level, not on how
// the input was split into Write calls. Memory is a few MiB (the chunk,
// its matches and the parse's arrays) whatever the input size.
package deflate
