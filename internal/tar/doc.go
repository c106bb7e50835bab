// Package tar reads tar archives as an archive.Reader: plain, or inside one
// of the single-stream compressions of internal/stream (.tar.gz, .tar.bz2,
// .tar.xz, .tar.zst, .tar.lzma), which it decodes while it reads.
//
// # Format
//
// A tar archive is a sequence of 512-byte header blocks, each followed by
// the entry's data rounded up to a multiple of 512, and ends with two zero
// blocks (which many writers omit). The header dialects garc meets are the
// original Unix v7 header, POSIX ustar (magic "ustar\x00" at offset 257, a
// 155-byte name prefix), GNU tar (long names and link targets in 'L' and
// 'K' pseudo-entries, base-256 numbers, the old sparse format 'S') and POSIX
// pax (extended headers 'x' and global headers 'g' carrying "key=value"
// records: path, linkpath, size, times, owner names, sparse maps of the GNU
// 0.0, 0.1 and 1.0 conventions; Solaris tar's 'X' headers are read as
// 'x', and of consecutive extended headers before one entry the last
// applies alone, as GNU tar, archive/tar and 7-Zip read them).
//
// The headers are parsed here (header.go, sparse.go), not by the standard
// library's archive/tar, which refuses archives GNU tar, libarchive and
// 7-Zip read: a lone zero block followed by anything else ends the
// archive (GNU tar stops there); numeric fields are read as GNU tar reads
// them (one leading NUL and spaces skipped, the digits up to a NUL or
// space, base-256 when the top bit is set), so a field of leading NULs is
// 0; a last pax record without its newline is accepted when garc does not
// use its key; '#' lines in a pax 1.0 sparse map are skipped. What stays
// an error: a header checksum mismatch, digits followed by garbage, a
// malformed record of a key garc applies, NUL in a pax path, name or
// owner, an invalid pax time, and a sparse map out of order, outside the
// real size or not adding up to the data stored, and a negative real
// size. Go 1.7's GNU headers with a ustar prefix are read as archive/tar reads them. Pax global headers
// are not applied (as in 7-Zip): their name and records become the
// archive's comment (Info.Comment, as 7-Zip shows it); GNU volume labels
// and Solaris ACL records are passed over. Extended
// headers of one entry are bounded (1 MiB); sparse maps (segments that
// continue one another merged) and the entry list are charged to the
// run's memory budget (Options.Memory, shared with the decoders and the
// other archives of the run) as they grow, a map until its entry has
// been read, and refused with archive.ErrLimit beyond it. Errors wrap
// archive.ErrFormat and carry the
// offset in the tar stream (in a compressed tar the message gives it as
// "at offset N of the decompressed tar" and Error.Offset, an offset in
// the file, is -1). An entry's packed size is its stored data rounded up
// to whole 512-byte blocks, as 7-Zip lists it; Info.Details (*Details)
// keeps per entry the type byte, magic, device fields, extended headers,
// ustar prefix and pax time digits 7-Zip's -slt shows; an entry's comment
// is its pax header's name and the records 7-Zip does not read, and
// sparse files are flagged (Entry.IsSparse); their content readers skip
// holes without producing them (archive.HoleSkipper), so that x and t
// take time in proportion to the data and the map, not to the size.
// Character and block devices and FIFOs are listed as files whose Mode has the type (fs.ModeNamedPipe, fs.ModeDevice),
// as 7-Zip lists them, but Extract never hands them out: Skipped names
// them, for a warning; they are never created.
//
// # Passes
//
// Data is read front to back only, never written to a temporary file.
// Open reads no header, of a plain tar or a compressed one: Extract, when
// nothing has read the entry list yet (Streaming reports true), builds it
// as it reads, so `x` and `t` read the archive once; Entries reads it on
// first use otherwise (one pass; a plain tar's data is skipped by seeking,
// a compressed tar is decoded) and reports a damaged archive through Err,
// since it has no error result; Extract after Entries reads it again and
// checks that the archive did not change between the readings. A plain
// tar opened with size -1 (a pipe, which can be read once) skips data by
// reading it.
//
// # Writing
//
// Writer (writer.go) writes a tar as a stream in constant memory: POSIX
// ustar headers (a name over 100 bytes split into the 155-byte prefix
// where it can be), and before an entry whose name, link target, size,
// modification time, IDs or owner names ustar cannot hold (or that is not
// ASCII) a pax extended header of sorted records named DIR/PaxHeaders/NAME
// (GNU tar's name without its process ID, so archives are reproducible);
// access and change times only as pax records. Hard links are type '1'
// entries naming the first one; sparse files are written in the pax 1.0
// format GNU tar writes (GNU.sparse.major/minor/name/realsize, the map
// at the start of the data), their segments on 512-byte boundaries
// (AlignSparse), as GNU tar reads each from blocks of its own. The
// archive ends with two zero blocks, padded to a 10 KiB record.
package tar
