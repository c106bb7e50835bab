// Package deflate64 decodes Deflate64 ("Enhanced Deflate", 7z method 040109,
// zip method 9) and, in plain mode, Deflate (RFC 1951).
//
// Deflate64 is RFC 1951 with three changes, all implemented here:
//
//   - the history window is 64 KiB instead of 32 KiB;
//   - length code 285 means base length 3 plus 16 extra bits (lengths up to
//     65538) instead of the fixed length 258;
//   - distance codes 30 and 31, reserved in Deflate, mean distances 32769 and
//     49153 with 14 extra bits each.
//
// The stream is a sequence of blocks (RFC 1951 section 3.2.3): stored
// blocks (byte-aligned LEN/NLEN and raw bytes), blocks with the fixed
// Huffman codes of section 3.2.6, and blocks whose codes are sent as code
// lengths, themselves Huffman-coded with the 19-symbol code length code
// (section 3.2.7). Codes are canonical (section 3.2.2) and packed least
// significant bit first.
//
// The Decompressor keeps a 64-bit bit buffer refilled eight bytes at a time
// (without a branch in the fast loop) from its own input buffer and decodes
// symbols with two-level lookup tables (see huffman.go) whose entries hold
// what the symbol means in the stream's mode: a literal, or a length's or
// distance's base and extra bit count. Literal/length entries also give two
// literals at once where the next bits hold two short literal codes (added
// to a dynamic block's table once it has given 16 KiB). Output goes into the
// 64 KiB circular window; plain Deflate's matches are copied 8 bytes at a
// time (closer ones after widening their period to 8 bytes or more), the
// last word overrunning into room that holds no history Deflate can
// reference. Read copies from the window; decoding pauses when the window
// holds 64 KiB of unread bytes, in the middle of a match or a stored block
// if need be, so memory is bounded by the window whatever the input. Corrupt or truncated input gives
// a *CorruptInputError with the input offset, wrapping archive.ErrFormat.
package deflate64
