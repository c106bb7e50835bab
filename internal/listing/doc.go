// Package listing writes garc's archive listings from an archive.Info and
// its entries: 7-Zip's table (WriteTable; WriteRows for `l -ba`,
// WriteNames for unrar's `lb`), 7-Zip's technical listing (WriteSLT) and
// JSON Lines (JSONWriter). Every name and text that comes from an archive
// is escaped for the terminal (internal/printable) or, in JSON, written
// losslessly. The writers stream: they hold no more than one entry's
// line at a time.
//
// # Table
//
// The archive block (Path, Type, Physical Size, Headers Size, Method,
// Solid, Blocks, and what garc knows beyond 7-Zip: volumes, RAR flags,
// comment), the column titles, a row per entry (date, time, 7-Zip's
// attribute letters DRHSA, size, compressed size, name, and "-> TARGET"
// for a symbolic link, "=> TARGET" for a hard link or file copy) and the
// totals, as `7zz l` prints them.
//
// # Technical listing
//
// WriteSLT, for `garc l --format=slt` (-slt), prints 7-Zip's technical listing. For 7z
// archives it matches `7zz l -slt` from the "--" line on: the archive
// block (Path; Type with 7-Zip's names "7z", "Rar5" and "Rar"; Offset
// for SFX; Physical Size; Headers Size; Method with the coders ordered by
// ID and LZMA/LZMA2 with the largest dictionary; Solid; Blocks) and per
// entry Path, Size, Packed Size (empty
// after the first entry of a solid block), Modified, Created, Accessed
// (local time, seven fraction digits), Attributes (Windows letters in bit
// order, then the unix mode: "A -rw-r--r--", "D drwxr-xr-x"), CRC (empty
// when none), Encrypted, Method and Block (the folder index; empty when
// the entry has no data). RAR entries follow the key order of 7-Zip's RAR
// handlers: Path, Folder, Size, Packed Size, the stored times,
// Attributes, Encrypted, Solid, Split Before, Split After, CRC, Host OS
// ("Windows"/"Unix" for RAR5, "Win32"/"Unix" before), Method and
// Symbolic/Hard/Copy Link (7-Zip's RAR method and characteristics strings
// and Volume Index are not reproduced). Keys garc adds (BLAKE2sp, User,
// Group, Anti, Comment) come last. ZIP and tar archives (whose
// Info.Details are *zip.Details and *tar.Details) get 7-Zip's keys for
// those formats, archive block included. ZIP: Path, Folder, Size, Packed
// Size, Modified, Created, Accessed (seconds, or seven fraction digits for
// NTFS times), Attributes (Windows letters of FAT/NTFS hosts, " MODE" for
// Unix hosts), Encrypted, Comment, CRC (empty for directories and AE-2),
// Method ("Deflate:Maximum", "AES-256 Store"), Characteristics (extra
// fields and flags: "UT:MA:1 ux", "NTFS WzAES : Encrypt"), Host OS,
// Version (needed to extract), Volume Index, Offset. Tar: Path, Folder,
// Size (a symlink's is its target's length), Packed Size (512-byte
// blocks), Modified, Created, Accessed (seconds; pax times with their
// fraction), Mode, User, Group, User ID, Group ID, Symbolic Link, Hard
// Link, Characteristics (type byte, GNU/POSIX/raw magic, name encoding,
// PAX keys or LongName), Comment, Device Major, Device Minor; the archive
// block has Headers Size, Code Page and Characteristics. Known differences:
// the Comment of a pax entry (7-Zip names its pax header there), raw splits (7-Zip lists the split
// container first) and Zstandard, which 7-Zip without the zstd codec
// names by its ID.
//
// # JSON listing
//
// JSONWriter, for `garc l --format=json`, writes JSON Lines, one line
// per archive, as the entries are read; the schema is described once, in
// SchemaDoc, which `garc l --help` prints. It carries every value the
// technical listing shows, under garc's own keys (TestJSONCarriesSLT and
// TestJSONCarriesSLTCorpus check it key by key against -slt): the
// format's archive figures (headers size, blocks, streams,
// characteristics; BeginArchive derives the 7z and tar ones from the
// entries it is given), 7-Zip's methods of xz and .lzma files, the
// checks of gzip and zstd files, and the 7z, ZIP and tar entry keys.
package listing
