// Package lzcore holds the building blocks shared by garc's RAR LZ
// decoders (unpack20 and unpack15; unpack3 and unpack5 carry private
// copies of the same code that can move here): a pool of window buffers
// keyed by size, a most-significant-bit-first bit reader over an
// io.Reader, and a canonical Huffman decoder with a lookup table.
//
// RAR's LZ formats all read their bit streams most significant bit first
// and code their Huffman tables canonically (codes assigned in order of
// length, then symbol), so one reader and one decoder serve every version.
package lzcore
