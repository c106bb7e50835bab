package extract

import (
	"strings"
	"time"

	"github.com/garc-dev/garc/internal/archive"
)

// restoredAttrs are the Windows attributes extraction restores: read-only,
// hidden, system and archive. Others (compressed, encrypted, sparse,
// reparse point …) describe how a file is stored, not what it is, and
// are left to the system, as 7-Zip leaves them.
const restoredAttrs = archive.AttrReadOnly | archive.AttrHidden | archive.AttrSystem | archive.AttrArchive

// windowsMeta is what Windows keeps of an entry beyond its content and
// the times every system has: the attributes to set (when ok) and the
// creation time (zero when the archive has none).
type windowsMeta struct {
	attrs uint32
	ok    bool
	ctime time.Time
}

// metaOf returns the Windows metadata of e as the archive records it:
//
//   - attributes from entries with Windows attributes: 7z (the attributes
//     field, also when 7-Zip's unix extension, bit 0x8000 with the mode
//     in the high 16 bits, is set: its low bits are the Windows ones),
//     RAR from a Windows host, ZIP from MS-DOS, Windows and other
//     non-Unix hosts (the external attributes' low byte);
//   - from entries that hold only a unix mode (RAR, ZIP and tar from
//     Unix hosts): read-only when the owner's write bit is missing (as
//     the mode makes the file on Unix), and archive for files, which
//     Windows gives every new file;
//   - the creation time where the archive has one (7z CTime, RAR5's
//     ctime, RAR 4's extended time, ZIP's NTFS extra field 0x000a).
//
// It is decided on every platform and applied on Windows
// (applyWindowsMeta).
func metaOf(e *archive.Entry) windowsMeta {
	m := windowsMeta{ctime: e.CreateTime()}
	a := e.Attributes
	switch {
	case a&archive.AttrUnixExtension != 0 && a>>16 != 0:
		// 7-Zip's unix extension: the mode above, Windows bits below.
		m.attrs, m.ok = a&restoredAttrs, true
	case e.HostOS == archive.HostWindows:
		m.attrs, m.ok = a&restoredAttrs, true
	case e.HasUnixMode:
		m.ok = true
		if e.Type != archive.TypeDir {
			m.attrs = archive.AttrArchive
		}
		if e.Mode&0o200 == 0 {
			m.attrs |= archive.AttrReadOnly
		}
	}
	return m
}

// mapLinkTarget returns the target of a symbolic link as the file system
// is to hold it: on Windows each component of a relative target is mapped
// as the entries' names are (SanitizeWindowsName), so that a link to
// "a:b" or "CON" points at the file "a_b" or "_CON" that the entry of that
// name became; "." and ".." are kept. An absolute target (only ever
// created with --links=unsafe) names a place garc did not make and stays
// as stored. t is slash-separated (linkTargetPath).
func mapLinkTarget(t string) string {
	if !sanitizeNames || strings.HasPrefix(t, "/") || hasDriveLetter(t) {
		return t
	}
	parts := strings.Split(t, "/")
	for i, p := range parts {
		if p != "." && p != ".." {
			parts[i] = SanitizeWindowsName(p)
		}
	}
	return strings.Join(parts, "/")
}
