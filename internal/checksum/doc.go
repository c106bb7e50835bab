// Package checksum holds the integrity checks that the formats need beyond
// the standard library's CRC-32: BLAKE2sp (RAR 5.0's strong file checksum)
// and RAR 5.0's keyed conversion of checksums in encrypted archives. It
// knows no archive format; the RAR reader hashes its entries with it.
//
// # BLAKE2s and BLAKE2sp
//
// BLAKE2s (RFC 7693; the BLAKE2 paper, §2.4–2.5 for the tree parameters)
// compresses 64-byte blocks into a 32-byte chain value of eight 32-bit
// words. The chain starts as the SHA-256 IV XORed with a parameter block
// that names the digest length, the key length (always 0 here) and, for
// tree hashing, the fanout, maximal depth, leaf length, node offset, node
// depth and inner digest length. Every block is compressed with the
// running byte count t; the last block of a node is zero-padded and
// compressed with the last-block flag f0 set, and the last node of a tree
// level also sets the last-node flag f1.
//
// BLAKE2sp is the 8-way parallel mode: fanout 8, depth 2, leaf length 0,
// inner length 32. The input is cut into 64-byte blocks dealt round-robin
// to eight leaves (block k goes to leaf k mod 8), so each leaf hashes an
// interleaved eighth of the data. Leaf i has node offset i and node depth
// 0; leaf 7 is the last node. A leaf that receives no data still finishes
// with one empty final block. The root (node offset 0, node depth 1, last
// node) hashes the concatenation of the eight 32-byte leaf digests, and its
// digest is the BLAKE2sp value.
//
// The streaming state keeps, per leaf, the newest block uncompressed until
// more data for that leaf arrives, because only then is it known not to be
// the final block; blocks followed by at least one more stripe in the same
// Write are compressed straight from the caller's slice. The compression
// function is generated with its ten rounds unrolled (gen_compress.go).
// Write never allocates. The implementation is checked against the
// official unkeyed known-answer vectors (testdata), against x/crypto's
// sequential BLAKE2s for the core, and against a textbook leaf-by-leaf
// construction for random splits.
//
// # RAR 5.0 checksums of encrypted files
//
// When a RAR 5.0 file encryption record carries the "use MAC" flag, the
// stored checksums are not the plain CRC-32 or BLAKE2sp but keyed with the
// 32-byte hash key derived alongside the encryption key (see package aes,
// KeyRAR5Limit), so that checksums leak nothing about the plaintext:
//
//   - CRC-32: HMAC-SHA256(hashKey, CRC as 4 little-endian bytes), and the
//     32-byte MAC is folded by XORing byte i into byte i mod 4; those four
//     bytes, read little-endian, are the stored value (RAR5MACCRC32).
//   - BLAKE2sp: HMAC-SHA256(hashKey, 32-byte digest) (RAR5MACBLAKE2sp).
package checksum
