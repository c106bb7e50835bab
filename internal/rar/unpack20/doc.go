// Package unpack20 decodes the compression of RAR 2.0 archives (unpack
// versions 20 and 26): an LZ77 coder with canonical Huffman tables and a
// "multimedia" (audio) mode with adaptive per-channel delta predictors.
//
// This is our own implementation, written from the format as described by
// The Unarchiver's and 7-Zip's public decoders; it follows no RARLAB code.
//
// # Tables
//
// A table block starts with two bits: audio mode, and "keep the previous
// code lengths" (otherwise they are cleared). Audio mode then has two bits
// for the channel count minus one (1–4). Nineteen 4-bit lengths define a
// bit-length code whose symbols 0–15 add (mod 16) to the previous length
// of the next code, 16 repeats the last length 3–6 times (2 extra bits),
// 17 writes 3–10 zeros (3 bits) and 18 writes 11–138 zeros (7 bits). The
// lengths fill, in LZ mode, the main (298 symbols), distance (48) and
// length (28) codes; in audio mode one 257-symbol code per channel. The
// same 1028-entry array of previous lengths serves both modes.
//
// # LZ symbols
//
// Main symbols 0–255 are literals; 256 repeats the last match; 257–260
// reuse the 1st–4th most recent distance with a length from the length
// code (plus one for distances of 0x101, 0x2000 and 0x40000 or more);
// 261–268 are two-byte matches with short distances (1–256); 269 reads
// new tables; 270–297 give a length slot (3–258) followed by a distance
// slot (distances up to 1 MiB; plus one length each for distances of
// 0x2000 and 0x40000 or more). Every match, including the repeats, enters
// the four-entry distance history.
//
// # Audio mode
//
// Each audio symbol (0–255; 256 reads new tables) is the prediction error
// of the next byte of the current channel; channels rotate byte by byte.
// A channel predicts its next byte from the last byte, its last four
// deltas and the last delta of the previous channel, with five weights
// K1–K5 in [-17, 16]. It sums the errors the prediction would have had
// with each weight nudged up or down; every 32 bytes the nudge with the
// smallest sum is applied.
//
// # Streams
//
// A non-solid file starts with tables. After a file's last byte the
// encoder may place the next file's tables: if at least five bytes are
// left, a symbol is decoded and, when it is the table symbol (269, or 256
// in audio mode), the tables are read so that the next solid file starts
// with them. Solid files continue the window, the tables, the audio
// predictors and the distance history. Version 26 is the same format,
// marked so because the file may exceed 2 GiB.
package unpack20
