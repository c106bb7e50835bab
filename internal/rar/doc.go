// Package rar reads RAR archives: the RAR 5.0 container (also used by RAR 6
// and by RAR 7 with its larger, non-power-of-two dictionaries), the block
// format of RAR 1.5–4.x, and the older RAR 1.4 ("RE~^") layout. It
// implements archive.Reader on top of the LZ decoders in the sub-packages
// unpack5, unpack3, unpack20 and unpack15.
//
// # Containers
//
// A RAR 5.0 archive (RARLAB technote "RAR 5.0 archive format") starts with
// the 8-byte signature "Rar!\x1a\x07\x01\x00" and is a sequence of headers.
// Every header begins with a CRC32 of the header, a variable-length integer
// (vint: 7 bits per byte, low group first, high bit = more) giving the size
// of the rest of the header, the header type and header flags, then the
// optional sizes of an extra area and of a data area that follows the
// header. File and service headers carry the entry metadata; extra records
// add encryption parameters, BLAKE2sp hashes, precise times, versions,
// link redirections and unix owners. With -hp every header after the
// encryption header is AES-256-CBC encrypted and preceded by its IV.
//
// A RAR 1.5–4.x archive starts with the 7-byte marker block
// "Rar!\x1a\x07\x00" and is a sequence of blocks, each with a 7-byte base
// header (CRC16, type, flags, size) and, for long blocks, a 32-bit data
// size. The archive header (0x73) carries the archive flags, file headers
// (0x74) the entries, 0x7a sub-blocks comments and recovery records, and
// 0x7b ends the archive. With -hp every block after the archive header is
// AES-128-CBC encrypted, preceded by an 8-byte salt. The header CRC of
// every block is checked, the blocks skipped included (unknown types are
// skipped only with a good CRC), so that a damaged type byte cannot make a
// file header vanish; the few optional blocks without data that some
// writers gave a wrong CRC are tolerated unless the CRC fits another type.
// Symbolic links store their target as the entry's data: Entries decodes
// small unencrypted ones (with their solid predecessors, within a bound) so
// that listings show the target; the others get it when extracted.
//
// RAR 1.4 archives start with "RE~^" and use a short fixed header layout.
//
// # Volumes and reading model
//
// OpenFile reads an archive from a file the caller has opened (garc's
// opener hands over the file it recognised the archive in) and follows
// volume sets by name (name.partN.rar, name.rar/.r00/.r01…,
// name.001…) and merges the pieces of entries split across volumes into one
// Entry whose packed data is the concatenation of the pieces. A set whose
// headers announce a volume that is not there (or cannot be opened) is
// read up to it, as unrar does: the entries of the volumes present are
// listed and extracted, reading the one that continues into the missing
// volume fails naming it, and the reader's Err and Extract's result name
// it too (ErrMissingVolume, wrapping archive.ErrFormat). Given a later volume, OpenFile reads the set from its first
// volume when that exists (Info().Volumes[0] says which) and otherwise
// names the missing first volume. Behind a self-extractor stub the archive
// is found with internal/sfxscan, the opener's scanner. All headers
// are read when the archive is opened, through one reusable window of
// volume bytes (volread.go: 4 KiB, doubling to 256 KiB while a window
// serves several headers, back to 4 KiB when it serves one), and
// Extract reads packed data through another, so that a run of small
// entries costs one read per window and a few entries picked out of a
// large archive cost reads near their size. Extract makes one forward pass,
// decoding solid runs once and skipping unwanted data of non-solid entries
// by offset; when an entry decoded only because a later one continues its
// solid stream fails, the later entries fail with that cause. Each entry's
// CRC32 or BLAKE2sp is checked when its stream ends (for split entries the
// checksum in the last piece covers the whole file).
//
// NewStream reads an archive front to back from an io.Reader (standard
// input), single volume: the parsers run as a coroutine that hands over
// each entry as its header is read, and the entry's data is decoded, or
// skipped, before the next header is read, through an io.ReaderAt over
// the stream that keeps its last 512 KiB for the windows' read-ahead
// (stream.go). Memory does not grow with the entries' sizes; the entry
// list is built as the stream is read. Unwanted entries of a solid
// archive are decoded to nothing (a later entry may continue them); an
// entry continued in the next volume fails with ErrMissingVolume naming
// it, which cannot come through the stream.
//
// # Encryption
//
// RAR5 data and headers use AES-256-CBC with PBKDF2-HMAC-SHA256 keys
// (internal/aes); the stored password check value rejects a wrong password
// before any output, and with the "MAC" flag checksums are HMACs keyed by
// the hash key. RAR 2.9–4.x uses AES-128-CBC with the SHA-1 based key
// derivation and has no check value: a header that fails its CRC after
// decryption, or an encrypted entry whose checksum fails, is reported as a
// wrong password. The older ciphers are implemented here from public
// descriptions (7-Zip's and XADMaster's readers were read for
// understanding): RAR 2.0's 16-byte block cipher with its password-shuffled
// substitution table (crypt20.go), RAR 1.5's 16-bit key stream and RAR
// 1.3's byte cipher (crypt15.go). Each volume piece is decrypted on its
// own, as RAR re-initialises the cipher per volume.
//
// # Limits
//
// Header sizes, name lengths, extra-record counts, entry and volume counts
// are bounded; every size read from the input is checked against the
// volume before anything is allocated for it. Dictionaries are checked
// against Options.MaxDict before a decoder allocates (a non-solid entry
// never needs more than its size), as is the PPMd model size that a RAR
// 2.9–4.x block header asks for, and RAR5 key derivation cost against
// Options.MaxKDFCost (any cost above it, up to the 255 the field can
// hold, is an *archive.LimitError, refused before a password is asked
// for).
//
// # Errors
//
// Every error wraps a sentinel of internal/archive. Corrupt packed data is
// reported by the decoders as *lzcore.CorruptInputError, which carries the
// offset in the entry's packed stream and wraps archive.ErrFormat.
package rar
