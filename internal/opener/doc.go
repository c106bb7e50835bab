// Package opener turns a path on the command line into an archive.Reader.
// It decides the format by content, never by the file name's extension:
//
//   - A 7z archive starts with the six bytes 37 7A BC AF 27 1C followed by
//     a two-byte version, the CRC32 of the start header and the start
//     header itself (next-header offset, size and CRC: 20 bytes). A 7z
//     signature at offset 0 is always taken (a corrupt start header is then
//     reported by the 7z reader); anywhere else it counts only when the
//     start-header CRC matches, because self-extractor stubs can carry the
//     six signature bytes in their own code.
//   - RAR 5.0 starts with "Rar!\x1a\x07\x01\x00", RAR 1.5–4.x with
//     "Rar!\x1a\x07\x00" and RAR 1.4 with "RE~^". As unrar does, a RAR
//     signature is accepted anywhere in the first MaxSFXScan bytes
//     (executable SFX stubs, archives appended to images, zero-filled
//     stubs); a RAR 1.4 signature after offset 0 additionally needs the
//     "RSFX" marker that RAR 1.4 self-extractors carry at offset 28.
//
// The first signature found wins. When none is found in the first
// MaxSFXScan bytes the error wraps archive.ErrNotArchive. The scan is
// package sfxscan's, which the RAR reader shares.
//
// # Other formats
//
// Identify (and IdentifyFile, which also reads the end of a file) names a
// format by content: ZIP, gzip, bzip2, xz, zstd, lzma-alone, tar, ISO
// 9660, CAB, ARJ, LZH, DMG, WIM and others (see Identify). A file in such
// a format that no reader opens is reported with an UnreadFormatError
// naming it, which wraps both archive.ErrNotArchive and
// archive.ErrUnsupported, instead of "not an archive".
//
// A compressed stream holds a tar when its decoded start is a tar header,
// or when it decodes to nothing but whole zero blocks, at most 64 KiB (an
// empty tar, as "tar czf e.tar.gz -T /dev/null" writes it: GNU tar and
// bsdtar extract nothing, where 7-Zip extracts the 10 KiB e.tar); a gzip
// header naming a file other than a .tar keeps such zeros a file. When
// the file's name does not say tar (data.xz, not x.tar.xz or x.tgz, nor
// a gzip header naming x.tar), the tar's headers and what follows them
// are read through when it is opened (tarinside.go): a tar that breaks
// off, is cut short or is followed by other data than zeros, in a stream
// that decodes whole, makes the file one compressed file, as 7-Zip reads
// it, with a warning (OpenWarnings) naming where the tar ended; under a
// tar name, and from a pipe, the same is a damaged tar (an error).
// A limit the stream's start exceeds (a zstd window, an xz dictionary
// above --max-dict) fails the opening, whatever the stream holds.
//
// 7z archives are opened with sevenzip.NewReader on a section of the file
// that starts at the signature (Info.SFXOffset records the stub's length).
// RAR archives are handed to rar.OpenFile with the file opened here (no
// second open), which finds the signature again itself and follows volume
// sets (name.partN.rar, name.rNN) by name.
//
// # Raw splits
//
// A file named NAME.001 (or NAME.002 and so on: the set is then opened
// from NAME.001) whose siblings NAME.002, NAME.003 … exist is a byte split
// of one archive, as 7-Zip's -v switch and the split(1) tool produce; so
// is NAME_aa with siblings NAME_ab, NAME_ac …. The parts are joined into
// one MultiReaderAt and the format is detected inside it; Info.Volumes
// lists the parts. Parts are opened as they are read, at most four at a
// time, so a split of thousands of parts stays within the descriptor
// limit. IsSplitPart tells such a part by its name, for the commands that
// cannot update a split in place.
//
// # Later volumes
//
// IsLaterVolume tells a part that is not the first of its set, so that a
// wildcard archive argument ('*.rar') processes every set once: a raw
// split part after the first; a RAR5 volume whose main archive header
// (after the signature: CRC32, size, type 1, header flags, archive flags)
// carries the "volume number" field, which the first volume lacks; a RAR
// 1.5–4.x volume without the first-volume flag (0x0100, set by RAR 3.0
// and later) when the new-numbering flag (0x0010) is set, or, for older
// sets, when it is not named NAME.rar. With headers it cannot read
// (encrypted RAR5 headers, RAR 1.4) it judges by the name: NAME.rNN or
// NAME.partN.rar with N > 1. An empty file and a directory are reported
// by Open as such (both wrap archive.ErrNotArchive).
//
// # Standard input
//
// A Stream (stdin.go) is an archive arriving on a pipe, "-" on the
// command line (StdinName). Its first kilobyte is read to tell the
// format. A tar, plain or compressed, and a single compressed file are
// read as they arrive, through an io.ReaderAt that serves one reading
// front to back: the start, kept while the format is recognised (and
// while a compressed tar is told from a compressed file by decoding its
// first kilobyte; at most 16 MiB), is read once more from offset 0 and
// then let go, and a second reading fails with ErrReadOnce; the tar
// reader gets size -1 (tar.Open), so that it reads a plain tar in one
// pass too. A RAR whose signature starts the stream is read as it
// arrives by rar.NewStream, over the same front-to-back reading; a RAR
// self-extractor is copied. After an archive read well, up to 1 MiB that follows it in
// the stream is read and dropped, so that the writer of the pipe is not
// cut off. Every other format is copied to a temporary file (package
// tempname's name, in the destination's directory) that is unlinked as
// soon as it is made where the system allows it, and opened as a file
// is, as often as needed.
//
// VolumeSetStem gives, from the name alone, what the files of a set
// share (a.7z.001 → a.7z; b.part1.rar, x.rar, x.r00 → b, x), so that the
// command layer keeps no volume naming rules of its own.
package opener
