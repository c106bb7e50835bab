// Package archive defines the format-neutral view of an archive that every
// format reader in garc produces and every command consumes: the Entry
// metadata record, the Info summary of a whole archive, the Reader
// interface that streams entry contents in one forward pass, the Options a
// reader is opened with, and the sentinel errors shared by all formats.
//
// The package sits below the formats in the import graph: internal/sevenzip
// and internal/rar import it to describe what they read, and the opener and
// the command line consume those descriptions without knowing the format.
//
// # Reading model
//
// A Reader parses all headers when it is opened, so Entries is cheap and
// complete. Contents are produced by Extract, which visits the entries the
// caller wants in archive order and hands each one to a callback together
// with an io.Reader over its bytes. Solid blocks are therefore decoded once,
// front to back: entries the caller did not ask for are decoded and
// discarded only when they sit in front of a wanted entry of the same solid
// block, and skipped without decoding otherwise.
//
// Each content reader verifies the entry's checksum (CRC32 or BLAKE2sp) when
// it reaches the end of the entry and reports a mismatch as an error that
// wraps ErrChecksum instead of io.EOF.
package archive
