// Package aes is the single AES-CBC layer of garc, shared by 7z (AES-256),
// RAR 5.0 (AES-256) and RAR 2.9–4.x (AES-128), together with the three
// password-to-key derivations those formats use and a small key cache. It
// knows no container format.
//
// # Streams
//
// DecryptReader and EncryptWriter run AES in CBC mode over one pooled
// 32 KiB buffer, transforming in place; after construction they do not
// allocate per call, whatever the call size (1 byte or megabytes). Close
// always clears the buffer before returning it to the pool (so no
// plaintext lingers) and forgets the key; using a closed stream fails with
// ErrClosed. Resetting a DecryptReader with an unchanged key only installs
// the new IV.
//
// The formats pad the last block and record the real size elsewhere, so
// the writer pads with zero bytes (as 7-Zip does) and the reader returns
// whole blocks, leaving truncation to the caller. A ciphertext that stops
// inside a block is corrupt: the reader returns the whole blocks and then
// an error wrapping archive.ErrFormat.
//
// # Key derivation
//
// 7z (7-Zip's 7zAES coder, 7zAes.cpp): the key is SHA-256 over the
// concatenation, repeated 2^n times, of salt (0–16 bytes), the password
// as UTF-16LE and the repetition number as a 64-bit little-endian integer.
// n, the "cycles power", is the low six bits of the coder properties
// (ParseProps7z); 19 is 7-Zip's default and 24 its maximum, which is our
// default limit too (Key7zLimit lets the caller raise it). n = 0x3F is a
// degenerate mode without hashing: the key is salt || password bytes,
// truncated or zero-padded to 32 bytes. The hashing streams through one
// short buffer in which only the counter changes.
//
// RAR 5.0 (technote "RAR 5.0 archive format", archive encryption header and
// file encryption record): PBKDF2 with HMAC-SHA256, the UTF-8 password as
// the HMAC key, the 16-byte salt and one output block. 2^n iterations
// (n ≤ 24) give the AES-256 key. The same chain continued for 16 more
// iterations gives the "hash key" with which checksums of encrypted files
// are MAC'd (package checksum), and 16 more the password check value,
// folded from 32 to 8 bytes by XOR (byte i into byte i mod 8). The archive
// stores that value followed by 4 bytes of its SHA-256, so a wrong
// password is detected before decrypting. KeyRAR5Limit computes all three
// in one pass of the chain.
//
// RAR 2.9–4.x: the password as UTF-16LE (at most 127 units) followed by the
// optional 8-byte salt forms raw; SHA-1 absorbs raw and the 3-byte
// little-endian round number 0x40000 times. At every 0x4000th round
// (including round 0) the last byte of the digest so far becomes the next
// of the 16 IV bytes; the AES-128 key is the first 16 bytes of the final
// digest with each 32-bit word byte-reversed. RAR's SHA-1 implementation
// transformed whole 64-byte blocks in place in the caller's buffer,
// leaving the tail of its message schedule there; for long passwords the
// buffer therefore changes between rounds, and we reproduce that. The
// tests check it against a model of that implementation written from the
// algorithm, and 7-Zip documents the same behaviour.
//
// KeyCache memoises all three by scheme, password, salt and cost.
package aes
