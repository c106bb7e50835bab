// Package lzcore holds the building blocks shared by garc's RAR LZ
// decoders: a pool of window buffers keyed by size, a ring-buffer Window
// addressed by stream position (match copies with bounds checks, output
// handed out in place, growth for solid streams with a larger
// dictionary), a most-significant-bit-first BitReader over an io.Reader
// that counts bits read past the end instead of checking every read, and
// a canonical Huffman decoder with a lookup table for short codes.
//
// unpack20 and unpack15 use it; unpack3 and unpack5 carry private copies
// of the pool, bit reader and Huffman decoder that can move here.
//
// RAR's LZ formats all read their bit streams most significant bit first
// and code their Huffman tables canonically (codes assigned in order of
// length, then symbol), so one reader and one decoder serve every version.
package lzcore
