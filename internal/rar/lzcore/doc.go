// Package lzcore holds the building blocks shared by garc's RAR LZ
// decoders: a pool of window buffers keyed by size, a ring-buffer Window
// addressed by stream position (match copies with bounds checks, output
// handed out in place, growth for solid streams with a larger
// dictionary), a most-significant-bit-first BitReader over an io.Reader
// that counts bits read past the end instead of checking every read, a
// canonical Huffman decoder with a lookup table for short codes, the
// precode-coded code lengths of RAR 2.9-4.x and RAR5 (ReadCodeLengths),
// and the output plumbing: Read, WriteTo and Drain over a decoder's
// Source (next decoded bytes, consume) with io.Reader and io.WriterTo
// semantics. It also holds what the four decoders share at their API:
// Params, the description of the file a Reset starts, and
// CorruptInputError, their corrupt-data error with the packed offset.
//
// All four decoders (unpack5, unpack3, unpack20, unpack15) use the pool,
// the BitReader, the Huffman decoder and the output plumbing. unpack20
// and unpack15 also keep their history in Window; unpack3 and unpack5
// keep a flat window of their own with a slack tail past the ring, which
// their unchecked match copies rely on (MoveHistory grows it), and drive
// the BitReader and the Huffman lookup table from locals in their hot
// loops: the exported fields V, N, Pos and Data, Huffman.Table and
// DecodeSlow, and Load for the refill, all of which inline.
//
// RAR's LZ formats all read their bit streams most significant bit first
// and code their Huffman tables canonically (codes assigned in order of
// length, then symbol), so one reader and one decoder serve every version.
package lzcore
