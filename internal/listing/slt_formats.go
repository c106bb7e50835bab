package listing

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
	"github.com/garc-dev/garc/internal/printable"
	"github.com/garc-dev/garc/internal/tar"
	"github.com/garc-dev/garc/internal/zip"
)

// sltSeconds formats a time with whole seconds, as 7-Zip shows times a
// format stores in seconds (DOS, Unix); empty when absent.
func sltSeconds(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

// sltNanoseconds formats a time with its nanoseconds, trailing zeros
// dropped, as 7-Zip shows pax times; empty when absent.
func sltNanoseconds(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04:05.999999999")
}

// sltFileTime formats an NTFS time (100 ns units); empty when absent.
func sltFileTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return sltTime(t)
}

// writeZipArchiveBlock prints the archive block 7-Zip's listings give a
// ZIP archive.
func writeZipArchiveBlock(w io.Writer, name string, info *archive.Info) {
	fmt.Fprintf(w, "Path = %s\n", printable.String(name))
	fmt.Fprintf(w, "Type = %s\n", info.Format)
	if info.SFXOffset > 0 {
		fmt.Fprintf(w, "Offset = %d\n", info.SFXOffset)
	}
	fmt.Fprintf(w, "Physical Size = %d\n", info.PhysicalSize)
	if info.Comment != "" {
		fmt.Fprintf(w, "Comment = %s\n", printable.Lines(info.Comment))
	}
}

// writeZipSLTEntries prints the entries of a ZIP archive's -slt listing
// with 7-Zip's keys for ZIP, in its order.
func writeZipSLTEntries(w io.Writer, d *zip.Details, all []*archive.Entry, want func(*archive.Entry) bool) {
	for _, e := range all {
		if !want(e) {
			continue
		}
		ed := d.Entry(e)
		if ed == nil {
			ed = &zip.EntryDetails{}
		}
		when := sltSeconds
		if ed.NTFSTimes {
			when = sltFileTime
		}
		fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
		fmt.Fprintf(w, "Folder = %s\n", plusMinus(e.IsDir()))
		fmt.Fprintf(w, "Size = %s\n", sltSize(e.Size))
		fmt.Fprintf(w, "Packed Size = %d\n", e.PackedSize)
		fmt.Fprintf(w, "Modified = %s\n", when(e.ModTime))
		fmt.Fprintf(w, "Created = %s\n", when(e.CreateTime()))
		fmt.Fprintf(w, "Accessed = %s\n", when(e.AccessTime()))
		fmt.Fprintf(w, "Attributes = %s\n", zipAttr(e, ed.WinAttributes))
		fmt.Fprintf(w, "Encrypted = %s\n", plusMinus(e.Encrypted))
		fmt.Fprintf(w, "Comment = %s\n", printable.String(e.Comment()))
		if e.HasCRC32 {
			fmt.Fprintf(w, "CRC = %08X\n", e.CRC32)
		} else {
			fmt.Fprintf(w, "CRC = \n")
		}
		fmt.Fprintf(w, "Method = %s\n", printable.String(e.Method))
		fmt.Fprintf(w, "Characteristics = %s\n", ed.Characteristics)
		fmt.Fprintf(w, "Host OS = %s\n", ed.HostOS)
		fmt.Fprintf(w, "Version = %d\n", ed.Version)
		fmt.Fprintf(w, "Volume Index = %d\n", ed.Volume)
		fmt.Fprintf(w, "Offset = %d\n", ed.Offset)
		fmt.Fprintln(w)
	}
}

// zipAttr renders ZIP attributes as 7-Zip does: the letters of the
// Windows bits, then, when a unix mode is stored (Unix hosts), a space
// and the mode.
func zipAttr(e *archive.Entry, attr uint32) string {
	var b strings.Builder
	for i := 0; i < 16; i++ {
		if attr&(1<<i) != 0 && winAttrLetters[i] != '.' {
			b.WriteByte(winAttrLetters[i])
		}
	}
	if attr&archive.AttrUnixExtension != 0 && attr>>16 != 0 {
		b.WriteByte(' ')
		b.WriteString(modeString(e))
	}
	return b.String()
}

// writeTarArchiveBlock prints the archive block 7-Zip's listings give a
// tar archive.
func writeTarArchiveBlock(w io.Writer, name string, info *archive.Info, d *tar.Details, all []*archive.Entry) {
	a := tarArchiveSummary(info, d, all)
	fmt.Fprintf(w, "Path = %s\n", printable.String(name))
	fmt.Fprintf(w, "Type = %s\n", info.Format)
	fmt.Fprintf(w, "Physical Size = %d\n", info.PhysicalSize)
	if a.headersSize >= 0 {
		fmt.Fprintf(w, "Headers Size = %d\n", a.headersSize)
	}
	fmt.Fprintf(w, "Code Page = UTF-8\n")
	fmt.Fprintf(w, "Characteristics = %s\n", a.characteristics)
}

// writeTarSLTEntries prints the entries of a tar archive's -slt listing
// with 7-Zip's keys for tar, in its order.
func writeTarSLTEntries(w io.Writer, d *tar.Details, all []*archive.Entry, want func(*archive.Entry) bool) {
	for _, e := range all {
		if !want(e) {
			continue
		}
		ed := d.Entry(e)
		if ed == nil {
			ed = &tar.EntryDetails{}
		}
		when := sltSeconds
		if ed.PAXTimes() {
			when = sltNanoseconds
		}
		size := e.Size
		if e.Type == archive.TypeSymlink {
			size = int64(len(e.LinkTarget)) // 7-Zip's size of a link is its target's
		}
		fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
		fmt.Fprintf(w, "Folder = %s\n", plusMinus(e.IsDir()))
		fmt.Fprintf(w, "Size = %s\n", sltSize(size))
		fmt.Fprintf(w, "Packed Size = %d\n", e.PackedSize)
		fmt.Fprintf(w, "Modified = %s\n", when(e.ModTime))
		fmt.Fprintf(w, "Created = %s\n", when(e.CreateTime()))
		fmt.Fprintf(w, "Accessed = %s\n", when(e.AccessTime()))
		fmt.Fprintf(w, "Mode = %s\n", modeString(e))
		fmt.Fprintf(w, "User = %s\n", printable.String(e.Owner()))
		fmt.Fprintf(w, "Group = %s\n", printable.String(e.Group()))
		fmt.Fprintf(w, "User ID = %s\n", sltID(e.UID()))
		fmt.Fprintf(w, "Group ID = %s\n", sltID(e.GID()))
		link := func(t archive.EntryType) string {
			if e.Type == t {
				return printable.String(e.LinkTarget)
			}
			return ""
		}
		fmt.Fprintf(w, "Symbolic Link = %s\n", link(archive.TypeSymlink))
		fmt.Fprintf(w, "Hard Link = %s\n", link(archive.TypeHardlink))
		fmt.Fprintf(w, "Characteristics = %s\n", tarEntryCharacteristics(e, ed))
		fmt.Fprintf(w, "Comment = \n")
		fmt.Fprintf(w, "Device Major = %s\nDevice Minor = %s\n", sltDevice(ed.DevMajor), sltDevice(ed.DevMinor))
		fmt.Fprintln(w)
	}
}

// tarEntryCharacteristics is 7-Zip's Characteristics of a tar entry:
// the type byte, the header format, the name's encoding and the extended
// headers that applied ("0 POSIX ASCII PAX mtime").
func tarEntryCharacteristics(e *archive.Entry, ed *tar.EntryDetails) string {
	var one nameEncoding
	one.add(e.Name)
	return strings.Join(append([]string{tarTypeflag(ed.Typeflag), ed.Format(), one.String()}, ed.Extensions()...), " ")
}

// tarSummary is what 7-Zip's listings show of a whole tar archive.
type tarSummary struct {
	// headersSize is the physical size less the entries' packed
	// bytes, for an uncompressed tar; -1 otherwise.
	headersSize int64
	// characteristics are the header formats, the extended headers
	// and the names' encoding ("GNU ASCII", "POSIX PAX mtime UTF8
	// MaxUnicode=1090").
	characteristics string
}

// tarArchiveSummary derives the tar archive's Headers Size and
// Characteristics from all, its entries.
func tarArchiveSummary(info *archive.Info, d *tar.Details, all []*archive.Entry) tarSummary {
	var packed int64
	var formats, exts []string
	enc := nameEncoding{}
	for _, e := range all {
		packed += e.PackedSize
		enc.add(e.Name)
		if ed := d.Entry(e); ed != nil {
			if f := ed.Format(); (f == "GNU" || f == "POSIX") && !contains(formats, f) {
				formats = append(formats, f)
			}
			for _, x := range ed.Extensions() {
				if !contains(exts, x) {
					exts = append(exts, x)
				}
			}
		}
	}
	// The archive's list has the pax keys in 7-Zip's order.
	var archiveExts []string
	for _, x := range []string{"LongName", "LongLink", "PAX", "pax_path", "pax_linkpath", "mtime", "atime", "ctime"} {
		if contains(exts, x) {
			archiveExts = append(archiveExts, strings.TrimPrefix(x, "pax_"))
		}
	}
	a := tarSummary{headersSize: -1, characteristics: strings.Join(append(append(formats, archiveExts...), enc.String()), " ")}
	if len(info.Methods) == 0 && packed <= info.PhysicalSize {
		a.headersSize = info.PhysicalSize - packed
	}
	return a
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sltID renders a numeric owner, empty when absent.
func sltID(id int) string {
	if id < 0 {
		return ""
	}
	return fmt.Sprint(id)
}

// tarTypeflag renders a type byte as 7-Zip does: the character, or [XX]
// when it is not printable.
func tarTypeflag(c byte) string {
	if c < 0x20 || c >= 0x7F {
		return fmt.Sprintf("[%02X]", c)
	}
	return string(rune(c))
}

// nameEncoding is 7-Zip's note on the encoding of tar names: "ASCII",
// "UTF8 MaxUnicode=N" with the largest code point, or "UTF8-ERROR".
type nameEncoding struct {
	nonASCII, invalid bool
	maxRune           rune
}

func (n *nameEncoding) add(s string) {
	for _, r := range s {
		if r >= 0x80 {
			n.nonASCII = true
			n.maxRune = max(n.maxRune, r)
		}
	}
	if !utf8.ValidString(s) {
		n.nonASCII, n.invalid = true, true
	}
}

func (n *nameEncoding) String() string {
	switch {
	case n.invalid:
		return "UTF8-ERROR"
	case n.nonASCII:
		return fmt.Sprintf("UTF8 MaxUnicode=%d", n.maxRune)
	}
	return "ASCII"
}

// sltDevice renders a device number field, empty when absent.
func sltDevice(n int64) string {
	if n < 0 {
		return ""
	}
	return fmt.Sprint(n)
}
