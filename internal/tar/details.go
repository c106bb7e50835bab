package tar

import (
	"strconv"
	"strings"
	"unsafe"

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
	prefixUsed         bool
	paxDigits          [3]int8
	fflags             string
	paxCount           uint8
}

// Entry returns the details of e, an entry of the archive, or nil for an
// entry of another reader.
func (d *Details) Entry(e *archive.Entry) *EntryDetails {
	if d == nil || e.Index < 0 || int(e.Index) >= len(d.r.entries) || d.r.entries[e.Index] != e {
		return nil
	}
	// e is an entry of the list: the first field of its entryAndExtra.
	return &(*entryAndExtra)(unsafe.Pointer(e)).d
}

// PAXTimeDigits returns the number of fraction digits (0 to 9) of the
// pax records that gave the entry's modification, access and change
// times, as 7-Zip shows them ("mtime=1700000005.0" has 1), each -1 when
// no pax record gave that time (the header's mtime has whole seconds).
func (ed *EntryDetails) PAXTimeDigits() (mtime, atime, ctime int) {
	return int(ed.paxDigits[0]), int(ed.paxDigits[1]), int(ed.paxDigits[2])
}

// PrefixUsed reports whether a header block of the entry has a ustar
// name prefix (offset 345), as 7-Zip tells it: the field's first byte is
// not NUL in a header whose magic starts with "ustar" (GNU's too), other
// than a GNU long name's. 7-Zip shows it as PREFIX.
func (ed *EntryDetails) PrefixUsed() bool { return ed.prefixUsed }

// PAXGlobalError reports what 7-Zip calls PAX_GLOBAL_ERROR: a pax global
// header that is malformed, repeated, or not the first header of its
// entry. The archive comment (Info.Comment) is the last well-formed
// global header's name and records, one a line.
func (d *Details) PAXGlobalError() bool { return d.r.paxGlobalError }

// GlobalHeaderBytes are the bytes (header and data blocks) of the pax
// global headers that came first in their entry's headers, which 7-Zip
// does not count in its Headers Size.
func (d *Details) GlobalHeaderBytes() int64 { return d.r.globalBytes }

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
// base-256 fields, "PAX" (with the number of pax headers when there are
// several: "PAX:2") with the time keys, pax_path, pax_linkpath and
// pax_size, "SCHILY.fflags=FLAGS" for BSD file flags, "SPARSE" for an
// old GNU sparse header, and
// "PAX_unsupported_line" when a pax record is one 7-Zip does not read.
func (ed *EntryDetails) Extensions() []string {
	var s []string
	for _, k := range extensionNames {
		if k.f == extSparseGNU && ed.fflags != "" {
			// 7-Zip names BSD file flags with their value.
			s = append(s, "SCHILY.fflags="+ed.fflags)
		}
		switch {
		case k.f == extPAX && ed.ext&extPAX != 0 && ed.paxCount > 1:
			s = append(s, "PAX:"+strconv.Itoa(int(ed.paxCount)))
		case ed.ext&k.f != 0 && ed.ext&k.pax == k.pax:
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
