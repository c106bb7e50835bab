// Package filters implements the reversible preprocessing filters that 7z
// and RAR apply to data before compression: branch-call converters for
// machine code, delta filters for tables and audio, and image and audio
// predictors. It knows no container: the 7z and RAR readers parse the
// method properties and filter parameters and call in here.
//
// # Branch converters (7z methods 03030103 BCJ, 0303011B BCJ2, 03030205 PPC,
// 03030401 IA64, 03030501 ARM, 03030701 ARMT, 03030805 SPARC, 0A ARM64,
// 0B RISCV; see 7-Zip's DOC/Methods.txt)
//
// Relative branch targets in machine code differ at every call site even
// when they name the same function; turning them into absolute addresses
// (offset + position in the stream) makes repeated calls identical and so
// more compressible. A converter recognises the instruction encodings of one
// architecture, adds the stream position to the target on encoding and
// subtracts it on decoding. The recognition is heuristic (data can look like
// code), which is harmless because decoding applies exactly the inverse
// decisions: the decoder recognises the same instructions after conversion.
// The exact rules, which must match 7-Zip bit for bit, are:
//
//   - x86 (BCJ): E8 (CALL) and E9 (JMP) followed by a 32-bit displacement
//     whose top byte is 00 or FF. A 3-bit "previous mask" remembers opcode
//     bytes seen in the last three positions that were not converted; it
//     suppresses conversions that would overlap or be ambiguous, and is kept
//     between calls so that the result does not depend on how the stream is
//     cut into buffers. The last 4 bytes of the stream are never converted.
//   - ARM: little-endian BL (byte 3 = EB), 24-bit word offset relative to
//     the address + 8. ARMT: Thumb BL pairs F000/F800, 22-bit halfword offset
//     relative to the address + 4, scanned at every halfword.
//   - PPC: big-endian "bl" (opcode 18, AA=0, LK=1). SPARC: "call" with a
//     displacement whose top bits are a sign extension.
//   - IA64: 16-byte bundles; the template selects which of the three 41-bit
//     slots may hold an IP-relative branch (opcode 5), whose 21-bit bundle
//     offset is converted.
//   - ARM64: BL (26-bit word offset) and ADRP (21-bit page offset, only when
//     it fits in 18 bits). RISCV: JAL with rd = ra/t0 and AUIPC pairs; see
//     riscv.go. Both accept a 4-byte start offset in the coder properties.
//
// A Converter converts a buffer in place and says how many leading bytes are
// final; the rest (less than 16 bytes) is presented again with more data. At
// the end of the stream that tail is passed through unchanged. NewReader and
// NewWriter wrap a Converter as a stream.
//
// BCJ2 splits x86 code into four streams (main bytes, CALL targets, JMP
// targets, and a range-coded bit per candidate opcode); NewBCJ2Reader merges
// them back. See bcj2.go.
//
// # Delta (7z method 03)
//
// Each byte is stored as the difference to the byte distance (1..256)
// positions before it.
//
// # RAR filters
//
// RAR 2.9-4.x runs filters as programs of its virtual machine; every archive
// uses one of a few standard programs, recognised by checksum, which the RAR
// decoder maps to the functions here (E8, E8E9, Itanium, Delta, RGB, Audio).
// RAR5 has native filters: Delta, E8, E8E9 and ARM. The x86 filter differs
// in one point between the two: RAR5 reduces the operand's file offset
// modulo 16 MiB, RAR3 uses it as a 32-bit number, hence RARE8 (RAR3) and
// RAR5E8. All of them work on one
// whole filter block with its position in the file and are written to be
// safe for any parameters: invalid ones give an error wrapping
// archive.ErrFormat or are clamped, as documented per function. The
// algorithms follow the RAR 5.0 technical note and the behaviour of the
// open-source RAR readers (libarchive, 7-Zip), re-derived in our own words.
package filters
