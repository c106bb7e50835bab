// Package listing writes garc's archive listings from an archive.Info and
// its entries: 7-Zip's table (WriteTable; WriteRows for `l -ba`,
// WriteNames for unrar's `lb`), 7-Zip's technical listing (WriteSLT) and
// JSON Lines (JSONWriter). Every name and text that comes from an archive
// is escaped for the terminal (printable.String) or, in JSON, written
// losslessly with the same characters escaped (printable.Unsafe: controls,
// format characters such as U+202E, line separators); the text listings
// also write every line through a printable.Writer, a guard that lets no
// control or format character but the line feed through, whatever a
// value's own escaping missed. Devices, FIFOs and sockets are entries
// like files whose unix mode shows their type ("prw-r--r--", "crw-…",
// "brw-…", "srw-…"), as 7-Zip shows them. The writers stream: they hold
// no more than one entry's line at a time.
//
// # Table
//
// The archive block (Path, Type, Physical Size, Headers Size, Method,
// Solid, Blocks, and what garc knows beyond 7-Zip: volumes, RAR flags,
// comment), the column titles, a row per entry (date, time, 7-Zip's
// attribute letters DRHSA, size, compressed size, name, and "-> TARGET"
// for a symbolic link, "=> TARGET" for a hard link or file copy) and the
// totals, as `7zz l` prints them. A symbolic link whose target, stored as
// its data, was not decoded for the listing (TargetOmitted: beyond the 2
// MiB decoded per archive) shows "-> ?"; the JSON listing marks it
// "link_target_omitted" and counts them in "link_targets_omitted".
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
// those formats, archive block included. The ZIP archive block: the
// Offset of an archive after a stub whose offsets do not count it,
// Physical Size, Tail Size (data after the end record, with 7-Zip's
// warning), Embedded Stub Size (a stub the offsets count, or a split
// set's marker), 64-bit and Characteristics (Zip64, Unsorted_CD), Comment,
// and for a split set Total Physical Size, Multivolume, Volume Index (the
// part named) and Volumes, with Physical Size the part's. ZIP entries:
// Path, Folder, Size, Packed
// Size, Modified, Created, Accessed (seconds, or seven fraction digits for
// NTFS times), Attributes (7-Zip's letters of the Windows bits, " MODE"
// for Unix hosts with 7-Zip's type letters: "V 01800000 0rw-------" for a
// mode without file type, "p" for a FIFO), Encrypted, Comment, CRC (empty
// for directories and AE-2),
// Method ("Deflate:Maximum", "AES-256 Store"), Characteristics (extra
// fields and flags: "UT:MA:1 ux", "NTFS WzAES : Encrypt"), Host OS,
// Version (needed to extract), Volume Index, Offset. Tar: Path, Folder,
// Size (a symlink's is its target's length), Packed Size (512-byte
// blocks), Modified, Created, Accessed (seconds; pax times with the
// fraction digits their record has, "05.0"; access and change times from
// pax records only), Mode, User, Group, User ID, Group ID, Symbolic Link,
// Hard Link, Characteristics (type byte, GNU/POSIX/raw magic, PREFIX for a
// ustar prefix, name encoding, PAX keys or LongName), Comment (the pax
// header's name and the records 7-Zip does not read, line feeds as '_'),
// Device Major, Device Minor; the archive block has Headers Size, Code
// Page, Characteristics and the Comment of a pax global header.
//
// Every archive block opens as 7-Zip's does: Path, the warning 7-Zip
// gives when the name's extension names one format and the archive is
// another ("Open WARNING: Cannot open the file as [7z] archive") or the
// same after a stub ("Warning: The archive is open with offset"), Type. A
// raw split (NAME.001 …) is listed as 7-Zip lists it, as a Split
// container (first part's Physical Size, Volumes, Total Physical Size)
// holding one item, NAME, whose archive block follows. A comment of
// several lines is printed between "{" and "}" lines. Known differences:
// 7-Zip's closing "Warnings: N" after a block with a warning (printed by
// the command line, not here), and Zstandard, which 7-Zip without the
// zstd codec names by its ID.
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
