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

// Extensions names the extended headers and encodings that applied, as
// 7-Zip lists them after the name's encoding and in its order: "LongName"
// and "LongLink" for GNU's long names, "bin_mtime" and "bin_size" for
// base-256 fields, "PAX" with the time keys, pax_path, pax_linkpath and
// pax_size, "SPARSE" for an old GNU sparse header, and
// "PAX_unsupported_line" when a pax record is one 7-Zip does not read.
func (ed *EntryDetails) Extensions() []string {
	var s []string
	for _, k := range extensionNames {
		if ed.ext&k.f != 0 && ed.ext&k.pax == k.pax {
			s = append(s, k.name)
		}
	}
	return s
}

// extensionNames are the Extensions in 7-Zip's order; those with pax set
// are listed only after "PAX".
var extensionNames = []struct {
	f    extFlags
	name string
	pax  extFlags
}{
	{extLongName, "LongName", 0}, {extLongLink, "LongLink", 0},
	{extBinMtime, "bin_mtime", 0}, {extBinSize, "bin_size", 0},
	{extPAX, "PAX", 0}, {extMtime, "mtime", extPAX}, {extAtime, "atime", extPAX}, {extCtime, "ctime", extPAX},
	{extPath, "pax_path", extPAX}, {extLinkpath, "pax_linkpath", extPAX}, {extSize, "pax_size", extPAX},
	{extSparseGNU, "SPARSE", 0}, {extPAXUnsupported, "PAX_unsupported_line", extPAX},
}
