// Package zip reads ZIP archives (PKWARE's APPNOTE.TXT, version 6.3.10)
// as an archive.Reader: every compression method the common tools write,
// traditional and WinZip AES encryption, Zip64, self-extractor prefixes
// and split sets; Update writes new archives and changes existing ones.
//
// # Layout (APPNOTE 4.3)
//
// A ZIP file is a sequence of entries, each a local file header (4.3.7)
// followed by the entry's data and, when flag bit 3 is set, a data
// descriptor (4.3.9), then the central directory (4.3.12): one record
// per entry repeating the local header's fields plus the comment, the
// attributes and the offset of the local header. The end of central
// directory record (4.3.16) closes the file: counts, the directory's size
// and offset, and the archive comment of up to 64 KiB. Archives beyond
// 4 GiB or 65535 entries put all-ones values there and the real ones in a
// Zip64 end record (4.3.14), found through the Zip64 locator (4.3.15)
// just before the classic record, and in Zip64 extra fields (4.5.3).
//
// The reader works from the end: it looks for the end record's signature
// in the last 64 KiB + 22 bytes, preferring one whose comment length
// reaches the end of the file, reads the Zip64 records when a locator is
// present (a locator whose record is missing — the signature bytes inside
// a file name — is ignored), then reads the central directory as a whole
// (bounded by the file size and --max-dict) and parses its records. The
// entry count is bounded by the memory limit (1 KiB per entry) before
// anything is allocated per entry.
//
// Without an end record (a damaged one, a cut download) an archive that
// starts with a local header is read from its local headers instead, front
// to back, as 7-Zip and libarchive do; an entry whose sizes follow in a
// data descriptor ends at the first descriptor whose compressed size
// equals the distance from its data. When the file ends before a central
// directory (in or after the entries, or inside the directory: a cut
// download) the complete entries are listed and extracted, and then the
// cut is reported (Err, and Extract's result) with ErrFormat, as 7-Zip
// and unzip fail on such a file; a whole central directory followed by a
// damaged end record is accepted.
//
// # From a pipe
//
// StreamReader reads an archive as it arrives, front to back in constant
// memory (garc x - and the other commands on standard input): entries from
// their local headers, handed out as their data passes; an entry with flag
// bit 3 ends at the data descriptor whose signature is followed by a
// compressed size equal to the bytes passed and then by the next record's
// signature (libarchive's rule for stored data; here for every method, and
// without requiring the CRC, so that a damaged entry is a CRC error and
// the reading goes on). The central directory is then checked against
// what was read, and what only it says (Unix modes, symbolic links, the
// host system) is returned as revisions for the extractor to apply.
//
// # Prefixes and split sets
//
// Offsets in the directory are relative to the start of the archive,
// which is not the start of the file when something precedes it (a
// self-extractor stub, a script). As Info-ZIP does, the prefix is the
// difference between where the directory actually ends (the end record's
// position) and where its stored offset plus size say it ends; all
// offsets are shifted by it and Info.SFXOffset reports it. When no
// directory is found there, the offsets are tried as stored, which reads
// archives whose end record carries a wrong size or offset.
//
// A PKWARE split or spanned set (name.z01, name.z02, …, name.zip; 8.x) is
// opened with NewSplitReader on the concatenated parts and their sizes:
// the disk numbers in the directory and end records index the parts, and
// the offsets are relative to the start of their part (the first part
// starts with the split marker 50 4B 07 08, which its offsets count). A
// raw byte split (name.zip.001, .002 …) is just one archive cut into
// pieces and is opened with NewReader over the concatenation.
//
// # Local headers and overlaps
//
// Every local header is read when the archive is opened and compared with
// its directory record: the signature must be there, the method must
// match, and unless a data descriptor follows, the 32-bit sizes and the
// CRC; the names must be the same bytes (a scanner that reads local
// headers and an extractor that reads the directory must not see
// different files; 7-Zip only warns), except where an Info-ZIP Unicode
// Path field shows a writer that recoded names: then the local header's
// name is used, with the local Unicode Path field when its CRC matches,
// as bsdtar does (libarchive's 7075 test). Local extra fields of the kinds the
// reader understands must not be cut short (an unknown trailing field is
// tolerated as padding, as 7-Zip and unzip do). The extent of
// each entry — local header, data, descriptor — is computed, and entries
// whose extents overlap are refused with ErrFormat: several directory
// records sharing one compressed stream is how "better zip bombs"
// multiply a small file into terabytes.
//
// The archive is read in order, so the small reads (local headers, names,
// data descriptors, the data of small entries) are served from one 64 KiB
// block read ahead of them: an archive of thousands of small files takes
// a few large reads, not several per entry.
//
// # Entry metadata
//
//   - Names: UTF-8 when flag bit 11 is set; otherwise the DOS code page,
//     read as CP437 as 7-Zip and unzip do (APPNOTE appendix D), except that
//     names made on Unix or macOS hosts that are valid UTF-8 are taken as
//     such. The Info-ZIP Unicode Path extra field (0x7075, 4.6.9) replaces
//     the name when its CRC-32 matches the stored name. A name ends at a
//     NUL byte. Hosts other than Unix and macOS use '\' as the separator.
//   - Times: the DOS date and time (local time), replaced by the extended
//     timestamp (0x5455, Info-ZIP's "UT": Unix seconds for modification,
//     access and creation; the central directory's gives the modification
//     time only, as 7-Zip reads it) or better the NTFS field (0x000a,
//     4.5.5: 100 ns FILETIMEs). The 32-bit Unix times of UT and UX are
//     unsigned beyond 2038 (as 7-Zip, bsdtar and unzip read a file of
//     2040), unless the signed reading is nearer the DOS time (1960).
//   - Attributes: for Unix hosts (version made by, high byte 3) and macOS
//     (19) the high 16 bits of the external attributes are st_mode, which
//     gives permissions, directories and symbolic links (S_IFLNK: the data
//     is the link target; the first Entries call outside Extract reads
//     the targets of unencrypted stored or deflated links of at most
//     4 KiB, 2 MiB per archive, never asking for a password; the others
//     stay empty until extracted); otherwise the low byte holds DOS
//     attributes.
//     7-Zip's convention of a Unix mode above DOS attributes (bit 15) is
//     honoured. Owner IDs come from the Info-ZIP 0x7875 and 0x5855 fields.
//
// Info.Details (*Details) gives per entry what 7-Zip's -slt shows beyond
// archive.Entry: the Characteristics naming the central record's extra
// fields and flags, the host system, the version needed to extract, the
// disk and offset of the local header, whether the times are NTFS ones,
// and the attributes as 7-Zip reports them; Details.Archive gives what it
// shows of the whole archive: a Zip64 end record, a central directory out
// of local header order, the stored offset of the first local header (a
// stub the offsets count, a split set's marker), a split set's part sizes
// and the tail after the end record, which Info.PhysicalSize leaves out. A directory's CRC of 0 is no
// checksum (HasCRC32 false). Method strings carry the Deflate level
// (":Maximum", ":Fast", ":Fastest") and LZMA's end marker (":eos") from
// the flag bits, as 7-Zip names them.
//
// # Methods (4.4.5)
//
// Stored (0); Shrink (1), Reduce (2–5) and Implode (6), the legacy PKZIP
// methods, written here from APPNOTE 5.1–5.3; Deflate (8) and Deflate64
// (9) through internal/deflate64; BZip2 (12) through internal/bzip2; LZMA
// (14, 5.8: a 4-byte header of SDK version and properties size, the 5
// property bytes, and an end marker when flag bit 1 is set) through
// internal/lzma; Zstandard (93) through klauspost/compress/zstd with the
// window bounded by --max-dict; XZ (95): one or more .xz streams through
// internal/xz (filters, checks, index and padding verified; the LZMA2
// dictionary bounded by --max-dict); PPMd (98): variant I revision 1
// through internal/ppmd's Reader8 — a 2-byte header of order, memory size
// and restoration method (restart or cut off), then Subbotin's carry-less
// range coder, the model memory bounded by --max-dict.
//
// Extract decodes the entries one after the other with decoders it keeps
// between entries (at most one archive-sized window at a time); calls
// must not overlap. Every entry is read through one content reader that yields exactly the
// declared uncompressed size, then requires the decoder to end there
// (more output is ErrFormat, less too), then compares the CRC-32
// (ErrChecksum) and, with a data descriptor, the CRC stored in it.
//
// # Encryption
//
// Traditional PKWARE encryption (6.1) is a stream cipher of three 32-bit
// keys. The 12-byte header, decrypted, ends in a check byte: the high byte
// of the CRC or, with a data descriptor, of the DOS time. A mismatch is
// ErrWrongPassword before any byte is produced; since the check is one
// byte, later corruption in an encrypted entry is reported as a probable
// wrong password as well as a checksum error. Encrypted entries up to
// 4 MiB are decoded and verified in memory before the callback sees them,
// so that a wrong password that passes the check is still reported before
// anything is written.
//
// WinZip AES (method 99 with extra field 0x9901, AE-1 and AE-2) derives
// 2×key length + 2 bytes with PBKDF2-HMAC-SHA1 (1000 iterations) from the
// password and the 8-, 12- or 16-byte salt that starts the data: the AES
// key (128, 192 or 256 bits), the HMAC key, and a 2-byte password
// verification value that is compared before decrypting anything
// (ErrWrongPassword). The data is AES-CTR with a little-endian counter
// starting at 1; the last 10 bytes are HMAC-SHA1 of the ciphertext, which
// is checked at the end of the entry (the compressed data left unread by
// the decoder is authenticated too). AE-2 stores no CRC; the HMAC is then
// the only check. The password comes from Options.Password when the first
// encrypted entry is opened; without one the entry fails with
// ErrPasswordRequired. Strong encryption (flag bit 6) and central
// directory encryption are reported as unsupported.
//
// # Writing
//
// Update (writer.go) writes an archive front to back, completing each
// local header with its CRC and sizes through WriteAt once the data is
// written: Store, Deflate (garc's own encoder, internal/deflate: greedy
// over hash chains at levels 1–4, optimal parsing at 5–9; flag bits 1–2
// as Info-ZIP sets them), BZip2, LZMA (with an end marker, flag
// bit 1), Zstandard (93: garc's own encoder, internal/zstd, at the
// default levels 3–5, klauspost/compress's at the others) and XZ (95),
// the LZMA dictionary no larger than the entry. An entry whose compressed data comes out no smaller than
// its content is written again Stored, as 7-Zip does: the archive is cut
// back to the entry's data (an Output with CutBack), the local header
// rewritten with method 0 and the content taken from the copy in the
// read buffer (at most 256 KiB) or read again (io.Seeker); through a
// pipe (WriteOptions.Streamed), or from content that cannot be read
// again, the compressed entry stays, whose Deflate stored blocks cost 5
// bytes per 64 KiB. Names that are not ASCII get the UTF-8 flag (bit 11); the
// host is Unix (3) and the external attributes hold st_mode in their high
// 16 bits, so directories and symbolic links (the target as stored data)
// come back as Info-ZIP makes them; times go into the DOS fields and the
// extended timestamp (0x5455). An entry whose expected size is unknown or
// near 4 GiB gets Zip64 sizes in its local header; the central directory
// uses Zip64 fields for what does not fit, and Zip64 end records when the
// count, size or offset of the directory need them (WriteOptions.ForceZip64
// writes them always). With a password entries are encrypted with WinZip
// AES-256 (AE-2: no CRC, the HMAC checks the data) or, when asked for by
// name, with ZipCrypto (flag bit 3: the check byte is the DOS time's, and
// the CRC and sizes follow in a data descriptor). An update copies the
// entries it keeps as they are stored — local header, data and descriptor
// — and rebuilds their directory records from the local header's fields.
// Each entry's central directory header is encoded as soon as the entry
// is written, as its difference from the header before (central.go: the
// fields that differ from their predictions and the name and extra fields
// less what they share at each end with the previous ones, about 12 bytes
// an entry for a tree of small files, in 256 KiB blocks), and
// new entries can come one at a time (Changes.AddFrom, a walk of the
// inputs), so that writing a new archive keeps no other state per entry.
package zip
