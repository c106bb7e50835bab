package listing

import (
	"encoding/hex"
	"io"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
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
      "methods": [string],
      "comment": string             omitted when empty
    },
    "entries": [{
      "path": string,               stored path, '/' separated
      "type": string,               "file", "dir", "symlink", "hardlink" or "copy"
      "link_target": string,        symlink target / linked entry; omitted when empty
      "size": int | null,           unpacked size; null when unknown
      "packed_size": int,
      "method": string,
      "mtime", "ctime", "atime": string,   RFC 3339, UTC, always 9 fraction digits;
                                    each omitted when not stored
      "attributes": int,            raw attributes as stored
      "windows_attributes": [string],   decoded Windows bits: "readonly", "hidden",
                                    "system", "directory", "archive", …
      "mode": string,               unix mode as ls -l shows it ("-rw-r--r--");
                                    omitted when no unix mode is stored
      "host_os": string,            "windows", "unix" or "unknown"
      "unix_mode": string,          octal permission bits ("0755"); omitted
                                    when no unix mode is stored
      "uid", "gid": int,            omitted when not stored
      "owner", "group": string,     omitted when not stored
      "crc32": string,              8 hex digits; omitted when not stored
      "blake2sp": string,           64 hex digits; omitted when not stored
      "encrypted": bool,
      "solid": bool,                continues a solid stream
      "anti": bool,                 7z anti-item (deletion marker); omitted when false
      "split_before", "split_after": bool,   omitted when false
      "comment": string             omitted when empty
    }]
  }

An archive that cannot be opened gives {"schema_version": 1,
"archive": {"path": string}, "error": string} (and its diagnostic on
stderr); one whose entries could not all be read (a compressed tar cut
short) has the entries read before the break and the "error" after them.
Strings are UTF-8 with C0 and C1 controls, DEL, U+2028 and
U+2029 escaped as \uXXXX. A byte that is not part of valid UTF-8 is
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
// it escapes DEL, the C1 controls and U+2028/U+2029 (so the text is safe
// on a terminal and in JavaScript), and writes each byte that is not
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
			if !(r == utf8.RuneError && size == 1) && !(r >= 0x80 && r <= 0x9f) && r != 0x2028 && r != 0x2029 {
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
		default:
			b = append(b, '\\', 'u', hexDigits[r>>12&15], hexDigits[r>>8&15], hexDigits[r>>4&15], hexDigits[r&15])
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
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
// of its entries array.
func (j *JSONWriter) BeginArchive(name string, info *archive.Info) {
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
	j.strs("methods", info.Methods)
	j.optStr("comment", info.Comment)
	j.close('}')
	j.open("entries", '[')
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

// Entry writes one element of the entries array.
func (j *JSONWriter) Entry(e *archive.Entry) error {
	j.open("", '{')
	j.str("path", e.Name)
	j.str("type", e.Type.String())
	j.optStr("link_target", e.LinkTarget)
	if e.Size >= 0 {
		j.int("size", e.Size)
	} else {
		j.key("size")
		j.b = append(j.b, "null"...)
	}
	j.int("packed_size", e.PackedSize)
	j.str("method", e.Method)
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
	if e.UID() >= 0 && (e.UID() != 0 || e.GID() != 0 || e.Owner() != "") {
		j.int("uid", int64(e.UID()))
	}
	if e.GID() >= 0 && (e.UID() != 0 || e.GID() != 0 || e.Group() != "") {
		j.int("gid", int64(e.GID()))
	}
	j.optStr("owner", e.Owner())
	j.optStr("group", e.Group())
	if e.HasCRC32 {
		j.key("crc32")
		j.b = append(j.b, '"')
		j.b = hex.AppendEncode(j.b, []byte{byte(e.CRC32 >> 24), byte(e.CRC32 >> 16), byte(e.CRC32 >> 8), byte(e.CRC32)})
		j.b = append(j.b, '"')
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
	j.close('}')
	return j.flush(false)
}
