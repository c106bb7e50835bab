package tar

import (
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// Details gives what 7-Zip's l -slt shows of tar entries beyond
// archive.Entry. It is the archive.Info.Details of a tar archive.
type Details struct{ r *Reader }

// EntryDetails is what a tar header records beyond archive.Entry.
type EntryDetails struct {
	// Typeflag is the header's type byte as stored (NUL in old headers).
	Typeflag byte
	// Magic is the magic and version fields as stored ("ustar\x0000",
	// "ustar  \x00", zeros in a V7 header).
	Magic [8]byte
	// DevMajor and DevMinor are the device number fields, -1 when empty.
	DevMajor, DevMinor int64
	ext                extFlags
}

// Entry returns the details of e, an entry of the archive, or nil for an
// entry of another reader.
func (d *Details) Entry(e *archive.Entry) *EntryDetails {
	if d == nil || e.Index < 0 || int(e.Index) >= len(d.r.details) || d.r.entries[e.Index] != e {
		return nil
	}
	return &d.r.details[e.Index]
}

// PAXTimes reports whether a pax header gave the entry's times, which
// then have fractions of a second.
func (ed *EntryDetails) PAXTimes() bool { return ed.ext&(extMtime|extAtime|extCtime) != 0 }

// Format names the header format as 7-Zip does: "GNU" for the GNU magic,
// "POSIX" for ustar, otherwise the magic bytes with the non-printable
// ones as [XX].
func (ed *EntryDetails) Format() string {
	switch {
	case string(ed.Magic[:]) == "ustar  \x00":
		return "GNU"
	case string(ed.Magic[:6]) == "ustar\x00":
		return "POSIX"
	}
	var b strings.Builder
	for _, c := range ed.Magic {
		if c < 0x20 || c >= 0x7F {
			const hex = "0123456789ABCDEF"
			b.WriteByte('[')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			b.WriteByte(']')
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Extensions names the extended headers that applied, as 7-Zip lists
// them after the encoding: "PAX" with the time keys, pax_path and
// pax_linkpath, or "LongName" and "LongLink" for GNU's.
func (ed *EntryDetails) Extensions() []string {
	var s []string
	if ed.ext&extPAX != 0 {
		s = append(s, "PAX")
		for _, k := range []struct {
			f    extFlags
			name string
		}{{extMtime, "mtime"}, {extAtime, "atime"}, {extCtime, "ctime"}, {extPath, "pax_path"}, {extLinkpath, "pax_linkpath"}} {
			if ed.ext&k.f != 0 {
				s = append(s, k.name)
			}
		}
	}
	if ed.ext&extLongName != 0 {
		s = append(s, "LongName")
	}
	if ed.ext&extLongLink != 0 {
		s = append(s, "LongLink")
	}
	return s
}
