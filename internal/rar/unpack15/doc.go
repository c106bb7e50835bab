// Package unpack15 decodes the compression of RAR 1.5 archives (unpack
// version 15), which RAR 1.4 archives share: an LZ77 coder whose literals,
// distances and flags are coded as positions in adaptively sorted tables,
// with fixed prefix codes choosing the positions.
//
// This is our own implementation, written from the format as described by
// The Unarchiver's and 7-Zip's public decoders; it follows no RARLAB code.
//
// # Fixed codes
//
// Seven fixed canonical prefix codes of up to 12 bits are used: five for
// 257-symbol positions (the literal, distance and flag tables), chosen by
// running averages of the positions decoded (a slowly adapting guess of
// how skewed the data is), and two for lengths. Short matches use one of
// four small codes chosen by a running average of their lengths and by a
// toggle that the stream can flip.
//
// # Sorted tables
//
// The literal, long-distance and flag tables hold 256 entries: a value in
// the high byte and a usage count in the low byte. A code gives a position
// in the table; the value there is used and its entry moves to the front
// of the entries with the same count while its count grows. When a count
// would pass its limit (0xa1 for literals, 0xff otherwise) all counts are
// reset to eight groups of 32 entries (7 down to 0). A fourth table of
// short distances moves a used entry one place towards the front.
//
// # Decoding
//
// Flag bytes (themselves coded as positions in the flag table) are
// consumed bit by bit: 1 selects the more likely of a literal and a long
// match (judged by two weights that grow with use), 01 the less likely one
// and 00 a short match. Short matches have lengths 2–10 with distances
// from the short-distance table, repeat the last match, reuse one of the
// four last distances with a coded length (length 257 with the first of
// them toggles the short-code variant instead), or give a 15-bit distance
// of 32 KiB or more. Long matches code a length and a distance whose high
// bits come from the distance table. After more than 16 literals in a row
// at a flag-byte boundary the decoder enters a run mode that decodes only
// literals, until an escape (position 0 and a 1 bit; 0 and a 0 bit codes a
// three- or four-byte match).
//
// Solid files continue the window, the tables, the averages and the
// distance history; the flag buffer, run mode and repeat count restart.
package unpack15
