package listing

import (
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/stream"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// SchemaVersion is the "schema_version" of the JSON listing; it
// changes when a field changes meaning or disappears (not when one is
// added).
const SchemaVersion = 1

// SchemaDoc documents the JSON listing. It is the one description of
// the schema: `garc l --help` prints it and the package documentation
// points here; TestJSONSchemaDoc keeps it in step with what JSONWriter
// writes.
const SchemaDoc = `One line of JSON per archive (JSON Lines), written as the entries are read:

  {
    "schema_version": 1,
    "archive": {
      "path": string,               archive path as given
      "type": string,               "7z", "rar5", "rar4", "rar1.4", "zip", "tar",
                                    "tar.gz", "tar.bz2", "tar.xz", "tar.zst",
                                    "tar.lzma", or a single stream: "gzip",
                                    "bzip2", "xz", "zstd", "lzma"
      "solid": bool,
      "volumes": [string],          volume or split-part paths, in order
      "encrypted_headers": bool,
      "locked": bool,               RAR: locked archive
      "recovery_record": bool,      RAR: recovery record present
      "sfx_offset": int,            bytes before the signature (SFX stub)
      "physical_size": int,
      "methods": [string],          an xz or .lzma file's: 7-Zip's Method words
                                    ("LZMA2:23", "CRC64"), as -slt shows them
      "comment": string,            omitted when empty
      "link_targets_omitted": int,  the symbolic links marked "link_target_omitted";
                                    omitted when 0
      The archive figures of -slt, each omitted where -slt has none:
      "headers_size": int,          7z: bytes that are not packed streams;
                                    uncompressed tar: header blocks and padding;
                                    gzip: the first member's header
      "blocks": int,                7z: folders; xz: blocks; zstd: blocks (*)
      "streams": int,               xz: streams; zstd: data frames (*)
      "cluster_size": int,          xz with several blocks: the largest block's
                                    uncompressed size
      "characteristics": string,    tar: header formats, extended headers and the
                                    names' encoding ("GNU POSIX PAX mtime ASCII");
                                    xz: sizes the first block header records;
                                    zip: "Zip64", "Unsorted_CD"
      "zip64": bool,                zip: a Zip64 end record is present; omitted
                                    when false
      "stub_size": int,             zip: the stored offset of the first local
                                    header (a self-extractor stub the offsets
                                    count, a split set's marker); omitted when 0
      "tail_size": int,             zip: bytes after the end record and its
                                    comment (not in physical_size); omitted when 0
      "method_summary": string      zstd: 7-Zip's summary of the frame headers
                                    ("header-open-only: XXH64 wnd-MAX:8MiB …")
                                    (*) when a leading skippable frame made garc
                                    walk every frame, as 7-Zip does
    },
    "entries": [{
      "path": string,               stored path, '/' separated
      "type": string,               "file", "dir", "symlink", "hardlink" or "copy"
      "link_target": string,        symlink target / linked entry; omitted when empty
      "link_target_omitted": bool,  a symbolic link whose target, stored as its
                                    data (7z, ZIP, RAR 1.5-4.x), was not decoded
                                    for the listing (beyond the 2 MiB garc decodes
                                    per archive to list targets, over 4 KiB, or
                                    encrypted); l --link-targets=all decodes them;
                                    omitted when false
      "size": int | null,           unpacked size; null when unknown (a zstd
                                    file's: its frames' content sizes (*))
      "packed_size": int,
      "method": string,             an xz or .lzma file's: 7-Zip's Method
                                    ("LZMA2:23 CRC64", "LZMA:23:lc1")
      "mtime", "ctime", "atime": string,   RFC 3339, UTC, always 9 fraction digits;
                                    each omitted when not stored
      "attributes": int,            raw attributes as stored
      "windows_attributes": [string],   decoded Windows bits: "readonly", "hidden",
                                    "system", "directory", "archive", …
      "mode": string,               unix mode as ls -l shows it ("-rw-r--r--";
                                    "prw-r--r--" for a FIFO, "c…" and "b…" for
                                    devices, "s…" for a socket, which are
                                    of type "file"); omitted when no unix
                                    mode is stored
      "host_os": string,            "windows", "unix" or "unknown"
      "unix_mode": string,          octal permission bits ("0755"); omitted
                                    when no unix mode is stored
      "uid", "gid": int,            omitted when not stored (0 when stored as 0)
      "owner", "group": string,     omitted when not stored
      "crc32": string,              8 hex digits; omitted when not stored; for a
                                    gzip file the last member's (the content's
                                    when it has one member), as 7-Zip lists it
      "xxh64": string,              zstd file of one frame whose frames were
                                    walked (*): the 8 hex digits of the content
                                    checksum (XXH64's low 32 bits)
      "blake2sp": string,           64 hex digits; omitted when not stored
      "encrypted": bool,
      "solid": bool,                continues a solid stream
      "anti": bool,                 7z anti-item (deletion marker); omitted when false
      "split_before", "split_after": bool,   omitted when false
      "comment": string,            omitted when empty; a tar entry's: the name of
                                    its pax header and the records 7-Zip does not
                                    read, one a line, as -slt shows them
      "sparse": bool,               a sparse file (tar): its holes are not written
                                    when extracted; omitted when false
      The entry keys of -slt for the format, each omitted where -slt has none:
      "block": int,                 7z: the folder holding the data
      "characteristics": string,    zip: extra fields and flags ("UT:MA:1 ux",
                                    "NTFS WzAES : Encrypt"); tar: type byte, header
                                    format, name encoding, extended headers
      "host_os_name": string,       zip, gzip: the system as recorded, in 7-Zip's
                                    words ("Unix", "FAT", "NTFS", "OS/X", …)
      "version_needed": int,        zip: the version needed to extract (20 = 2.0)
      "volume_index": int,          zip: the part holding the local header
      "offset": int,                zip: the local header's offset in that part
      "device_major", "device_minor": int   tar: the device numbers stored
    }]
  }

An archive that cannot be opened gives {"schema_version": 1,
"archive": {"path": string}, "error": string} (and its diagnostic on
stderr); one whose entries could not all be read (a compressed tar cut
short) has the entries read before the break and the "error" after them.
Strings are UTF-8 with C0 and C1 controls, DEL, the format characters
(Unicode category Cf: the bidirectional controls U+202A–U+202E,
U+2066–U+2069, U+200E, U+200F and U+061C, the zero-width U+200B–U+200D,
U+FEFF …), U+2028 and U+2029 escaped as \uXXXX (a surrogate pair above
U+FFFF), so that a name cannot display as another. A byte that is not part of valid UTF-8 is
written as the lone surrogate escape \udc80–\udcff (Python's
surrogateescape error handler: os.fsencode(s) gives the stored bytes back), so two
different stored names never list the same.`

// JSONWriter writes JSON into a reusable buffer and hands it to w in
// large pieces: a listing is streamed entry by entry without building
// the document in memory.
type JSONWriter struct {
	w     io.Writer
	b     []byte
	err   error
	first bool // nothing written yet in the current object or array
	// details is the Info.Details of the archive being written, for
	// the format's entry fields.
	details any
}

// NewJSONWriter returns a JSONWriter writing to w.
func NewJSONWriter(w io.Writer) *JSONWriter {
	return &JSONWriter{w: w, b: make([]byte, 0, 64<<10)}
}

// flush writes the buffer out when it is large, or always with force.
func (j *JSONWriter) flush(force bool) error {
	if j.err == nil && (force || len(j.b) >= 48<<10) {
		_, j.err = j.w.Write(j.b)
		j.b = j.b[:0]
	}
	return j.err
}

func (j *JSONWriter) sep() {
	if !j.first {
		j.b = append(j.b, ',')
	}
	j.first = false
}

func (j *JSONWriter) key(k string) {
	j.sep()
	j.b = append(j.b, '"')
	j.b = append(j.b, k...)
	j.b = append(j.b, '"', ':')
}

// open starts an object ('{') or array ('['), under key k when k is not
// empty.
func (j *JSONWriter) open(k string, c byte) {
	if k != "" {
		j.key(k)
	} else {
		j.sep()
	}
	j.b = append(j.b, c)
	j.first = true
}

func (j *JSONWriter) close(c byte) {
	j.b = append(j.b, c)
	j.first = false
}

func (j *JSONWriter) str(k, v string) {
	j.key(k)
	j.b = appendJSONString(j.b, v)
}

// optStr writes k only when v is not empty.
func (j *JSONWriter) optStr(k, v string) {
	if v != "" {
		j.str(k, v)
	}
}

func (j *JSONWriter) int(k string, v int64) {
	j.key(k)
	j.b = strconv.AppendInt(j.b, v, 10)
}

func (j *JSONWriter) bool(k string, v bool) {
	j.key(k)
	j.b = strconv.AppendBool(j.b, v)
}

func (j *JSONWriter) strs(k string, vs []string) {
	j.open(k, '[')
	for _, v := range vs {
		j.sep()
		j.b = appendJSONString(j.b, v)
	}
	j.close(']')
}

// appendJSONString appends s as a JSON string. Beyond what JSON requires
// it escapes every printable.Unsafe character as \uXXXX (a surrogate pair
// above U+FFFF): DEL, the C1 controls, the format characters (U+202E and
// the other bidirectional controls, zero-width characters, U+FEFF…) and
// U+2028/U+2029, so the text is safe on a terminal and in JavaScript and
// a name cannot display as another; and it writes each byte that is not
// part of valid UTF-8 as the lone surrogate \udc80–\udcff, which no valid
// UTF-8 text can produce: the form is lossless and unambiguous.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		r, size := rune(c), 1
		if c >= 0x80 {
			r, size = utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && size == 1) && !printable.Unsafe(r) {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case r == utf8.RuneError && size == 1:
			b = append(b, '\\', 'u', 'd', 'c', hexDigits[c>>4], hexDigits[c&15])
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			b = appendJSONEscape(appendJSONEscape(b, hi), lo)
		default:
			b = appendJSONEscape(b, r)
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// appendJSONEscape appends the escape \uXXXX of r, at most U+FFFF.
func appendJSONEscape(b []byte, r rune) []byte {
	const hexDigits = "0123456789abcdef"
	return append(b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
}

// jsonTimeLayout is RFC 3339 with a fixed nine-digit fraction
// ("2026-01-02T03:04:05.123456700Z").
const jsonTimeLayout = "2006-01-02T15:04:05.000000000Z07:00"

func jsonTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(jsonTimeLayout)
}

func (j *JSONWriter) time(k string, t time.Time) {
	if !t.IsZero() {
		j.str(k, jsonTime(t))
	}
}

// BeginArchive writes the start of an archive's line, up to the opening
// of its entries array. all are every entry of the archive: the 7z and
// tar figures derived from them ("headers_size", "blocks", tar's
// "characteristics") are written only when they are given (an empty
// archive's as a non-nil empty slice).
func (j *JSONWriter) BeginArchive(name string, info *archive.Info, all ...*archive.Entry) {
	j.details = info.Details
	j.first = true
	j.open("", '{')
	j.int("schema_version", SchemaVersion)
	j.open("archive", '{')
	j.str("path", name)
	j.str("type", string(info.Format))
	j.bool("solid", info.Solid)
	j.strs("volumes", info.Volumes)
	j.bool("encrypted_headers", info.EncryptedHeaders)
	j.bool("locked", info.Locked)
	j.bool("recovery_record", info.RecoveryRecord)
	j.int("sfx_offset", info.SFXOffset)
	j.int("physical_size", info.PhysicalSize)
	j.archiveMethods(info)
	j.optStr("comment", info.Comment)
	if n := CountTargetsOmitted(all, nil); n > 0 {
		j.int("link_targets_omitted", int64(n))
	}
	j.archiveDetails(info, all)
	j.close('}')
	j.open("entries", '[')
}

// archiveMethods writes "methods": Info.Methods, or for an xz or .lzma
// file the words of 7-Zip's Method (the filters with their dictionary,
// then the check types: "LZMA2:23", "CRC64").
func (j *JSONWriter) archiveMethods(info *archive.Info) {
	if d, ok := info.Details.(*stream.Details); ok {
		if m := streamMethod(d); m != "" {
			j.strs("methods", strings.Fields(m))
			return
		}
	}
	j.strs("methods", info.Methods)
}

// streamMethod is 7-Zip's Method of an xz or .lzma file, which its
// -slt gives for the archive and the entry; "" for the other streams.
func streamMethod(d *stream.Details) string {
	switch d.Kind {
	case stream.XZ:
		return xzMethod(&d.XZ)
	case stream.LZMA:
		return lzmaMethod(d.LZMA)
	}
	return ""
}

// optInt writes k only when v is not negative.
func (j *JSONWriter) optInt(k string, v int64) {
	if v >= 0 {
		j.int(k, v)
	}
}

// archiveDetails writes the archive figures -slt shows beyond those
// of every format, from Info.Details or from all, the entries: 7z
// "headers_size" and "blocks"; ZIP "stub_size", "tail_size", "zip64" and
// "characteristics"; tar "headers_size" (uncompressed) and
// "characteristics"; gzip "headers_size"; xz "streams", "blocks",
// "cluster_size" and "characteristics"; zstd "streams" and "blocks"
// (when the frames were walked) and "method_summary".
func (j *JSONWriter) archiveDetails(info *archive.Info, all []*archive.Entry) {
	switch d := info.Details.(type) {
	case *zip.Details:
		a := d.Archive()
		if a.StubSize > 0 {
			j.int("stub_size", a.StubSize)
		}
		if a.TailSize > 0 {
			j.int("tail_size", a.TailSize)
		}
		if a.Zip64 {
			j.bool("zip64", true)
		}
		j.optStr("characteristics", a.Characteristics())
	case *tar.Details:
		if all != nil {
			a := tarArchiveSummary(info, d, all)
			j.optInt("headers_size", a.headersSize)
			j.str("characteristics", a.characteristics)
		}
	case *stream.Details:
		switch d.Kind {
		case stream.Gzip:
			if d.Gzip.HeaderSize != 0 {
				j.int("headers_size", d.Gzip.HeaderSize)
			}
		case stream.XZ:
			if x := &d.XZ; x.Indexed {
				j.int("streams", x.Streams)
				j.int("blocks", x.Blocks)
				if x.Blocks > 1 {
					j.int("cluster_size", int64(min(x.MaxBlockSize, 1<<63-1)))
				}
			}
			j.optStr("characteristics", xzCharacteristics(d.XZ.FirstBlockFlags))
		case stream.Zstd:
			if z := &d.Zstd; z.Parsed {
				j.int("streams", z.DataFrames)
				j.int("blocks", z.Blocks)
			}
			j.str("method_summary", zstdMethod(&d.Zstd))
		}
	default:
		if info.Format == archive.Format7z && all != nil {
			c := countSevenZip(info, all)
			j.optInt("headers_size", c.headersSize)
			j.int("blocks", int64(c.blocks))
		}
	}
}

// EndArchive closes the entries array and the line, with an "error"
// when err, which ended the reading of the entries, is not nil.
func (j *JSONWriter) EndArchive(err error) error {
	j.close(']')
	if err != nil {
		j.str("error", err.Error())
	}
	j.close('}')
	j.b = append(j.b, '\n')
	return j.flush(true)
}

// ArchiveError writes the line of an archive that could not be opened.
func (j *JSONWriter) ArchiveError(name string, err error) error {
	j.first = true
	j.open("", '{')
	j.int("schema_version", SchemaVersion)
	j.open("archive", '{')
	j.str("path", name)
	j.close('}')
	j.str("error", err.Error())
	j.close('}')
	j.b = append(j.b, '\n')
	return j.flush(true)
}

// windowsAttrNames are the names of the Windows attribute bits 0–15 in
// "windows_attributes" ("" for bits without a name).
var windowsAttrNames = [16]string{"readonly", "hidden", "system", "", "directory", "archive", "device", "normal",
	"temporary", "sparse", "reparse_point", "compressed", "offline", "not_content_indexed", "encrypted", ""}

// jsonSize is the entry's size, or for a zstd file whose frames were
// walked (as -slt shows it) the content sizes they record; -1 when
// unknown.
func jsonSize(e *archive.Entry, details any) int64 {
	if d, ok := details.(*stream.Details); ok && e.Size < 0 && d.Kind == stream.Zstd {
		if z := &d.Zstd; z.Parsed && !z.ContentSizeUnknown && z.ContentSizeTotal <= 1<<63-1 {
			return int64(z.ContentSizeTotal)
		}
	}
	return e.Size
}

// Entry writes one element of the entries array.
func (j *JSONWriter) Entry(e *archive.Entry) error {
	j.open("", '{')
	j.str("path", e.Name)
	j.str("type", e.Type.String())
	j.optStr("link_target", e.LinkTarget)
	if TargetOmitted(e) {
		j.bool("link_target_omitted", true)
	}
	if size := jsonSize(e, j.details); size >= 0 {
		j.int("size", size)
	} else {
		j.key("size")
		j.b = append(j.b, "null"...)
	}
	j.int("packed_size", e.PackedSize)
	sd, _ := j.details.(*stream.Details)
	method := e.Method
	if sd != nil {
		// The entry of an xz or .lzma file has 7-Zip's Method, as in -slt.
		if m := streamMethod(sd); m != "" {
			method = m
		}
	}
	j.str("method", method)
	j.time("mtime", e.ModTime)
	j.time("ctime", e.CreateTime())
	j.time("atime", e.AccessTime())
	j.int("attributes", int64(e.Attributes))
	j.open("windows_attributes", '[')
	attr := windowsAttrs(e)
	for i, n := range windowsAttrNames {
		if attr&(1<<i) != 0 && n != "" {
			j.sep()
			j.b = appendJSONString(j.b, n)
		}
	}
	j.close(']')
	if e.HasUnixMode {
		j.str("mode", modeString(e))
	}
	j.str("host_os", hostName(e.HostOS))
	if e.HasUnixMode {
		j.key("unix_mode")
		p := unixPerm(e.Mode)
		j.b = append(j.b, '"', '0'+byte(p>>9&7), '0'+byte(p>>6&7), '0'+byte(p>>3&7), '0'+byte(p&7), '"')
	}
	// Stored ids are written even when 0 (root), as -slt shows them.
	j.optInt("uid", int64(e.UID()))
	j.optInt("gid", int64(e.GID()))
	j.optStr("owner", e.Owner())
	j.optStr("group", e.Group())
	switch {
	case e.HasCRC32:
		j.hex32("crc32", e.CRC32)
	case sd != nil && sd.Kind == stream.Gzip && sd.Gzip.HeaderSize != 0:
		// 7-Zip lists the last member's CRC-32 (the content's when
		// the file has one member), as it lists the last ISIZE.
		j.hex32("crc32", sd.Gzip.CRC32)
	}
	if sd != nil && sd.Kind == stream.Zstd && sd.Zstd.ChecksumKnown && sd.Zstd.DataFrames == 1 {
		j.hex32("xxh64", sd.Zstd.Checksum)
	}
	if len(e.BLAKE2sp()) > 0 {
		j.key("blake2sp")
		j.b = append(j.b, '"')
		j.b = hex.AppendEncode(j.b, e.BLAKE2sp())
		j.b = append(j.b, '"')
	}
	j.bool("encrypted", e.Encrypted)
	j.bool("solid", e.Solid)
	if e.Anti {
		j.bool("anti", true)
	}
	if e.SplitBefore {
		j.bool("split_before", true)
	}
	if e.SplitAfter {
		j.bool("split_after", true)
	}
	j.optStr("comment", e.Comment())
	if e.IsSparse() {
		j.bool("sparse", true)
	}
	j.entryDetails(e, sd)
	j.close('}')
	return j.flush(false)
}

// hex32 writes v under k as eight lower-case hexadecimal digits.
func (j *JSONWriter) hex32(k string, v uint32) {
	j.key(k)
	j.b = append(j.b, '"')
	j.b = hex.AppendEncode(j.b, []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	j.b = append(j.b, '"')
}

// entryDetails writes the entry fields -slt shows beyond those of every
// format: the 7z "block"; ZIP "characteristics", "host_os_name",
// "version_needed", "volume_index" and "offset"; tar "characteristics",
// "device_major" and "device_minor"; gzip "host_os_name". sd is the
// archive's *stream.Details, when it is a single stream.
func (j *JSONWriter) entryDetails(e *archive.Entry, sd *stream.Details) {
	if e.Block >= 0 {
		j.int("block", int64(e.Block))
	}
	switch d := j.details.(type) {
	case *zip.Details:
		if ed := d.Entry(e); ed != nil {
			j.optStr("characteristics", ed.Characteristics)
			j.optStr("host_os_name", ed.HostOS)
			j.int("version_needed", int64(ed.Version))
			j.int("volume_index", int64(ed.Volume))
			j.int("offset", ed.Offset)
		}
	case *tar.Details:
		if ed := d.Entry(e); ed != nil {
			j.str("characteristics", tarEntryCharacteristics(e, ed))
			j.optInt("device_major", ed.DevMajor)
			j.optInt("device_minor", ed.DevMinor)
		}
	}
	if sd != nil && sd.Kind == stream.Gzip && sd.Gzip.HeaderSize != 0 {
		j.str("host_os_name", gzipHostOS(sd.Gzip.HostOS))
	}
}
