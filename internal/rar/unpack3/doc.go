// Package unpack3 decodes the compression of RAR 2.9–4.x archives (unpack
// versions 29 and 36): an LZ77 coder with Huffman tables, interleaved with
// PPMd variant H blocks, plus the standard filters that these archives
// describe as RAR VM programs.
//
// # Blocks
//
// A block header starts on a byte boundary. Its first bit selects PPMd.
//
// An LZ block then has one bit "keep the previous code lengths" and the
// code lengths of four canonical Huffman codes (main 299, distance 60,
// low-distance 17, length 28 symbols). As in RAR 5.0 they are coded with a
// 20-symbol bit-length code, but each new length is added (mod 16) to the
// previous table's, which is cleared unless the keep bit is set. Main
// symbols: 0-255 literals; 256 end of block (one bit: a new table follows
// in this file; otherwise one bit: the next file starts with new tables or
// keeps these); 257 a filter record; 258 repeat the last match; 259-262 one
// of the four last distances with a new length; 263-270 two-byte matches
// with short distances; 271-298 a length slot followed by a distance slot.
// Distances with at least four extra bits take their low four bits from
// the low-distance code, whose symbol 16 repeats the previous low bits for
// this and the next 15 distances. Distances of 0x2000 and 0x40000 or more
// lengthen the match by one each.
//
// A PPMd block has 7 flag bits (bit 5: restart the model with the memory
// size in the following byte, (MB+1) MiB; bit 6: a new escape character
// follows; bits 0-4: model order) and then the range-coded bytes. The
// escape character followed by 0 ends the block, 2 ends the file, 3 starts
// a filter record, 4 codes a match (3-byte distance-2, length-32), 5 a run
// of the last byte (length-4); any other value stands for the escape
// character itself.
//
// # Filters
//
// A filter record names a filter number (a new number carries the VM
// bytecode), the block start relative to the current position, its length
// and initial registers. garc never runs VM code: the bytecode is
// recognised by its CRC32 and length as one of RAR's six standard filters
// (x86 E8, E8/E9, Itanium, delta, RGB, audio), which internal/filters
// implements natively; any other program is reported as unsupported.
// Filter blocks are at most 0x3C000 bytes (the VM's data area).
//
// Solid entries continue the window, the tables, the PPMd model and the
// filter programs of the previous entry.
package unpack3
