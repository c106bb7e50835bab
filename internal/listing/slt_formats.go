package listing

import (
	"fmt"
	"io"
	"path/filepath"
	"strconv"
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

// sltDigits formats a time with digits fraction digits (truncated, none
// for 0), as 7-Zip shows a pax time with the digits its record has;
// whole seconds when digits is negative; empty when absent.
func sltDigits(t time.Time, digits int) string {
	if t.IsZero() {
		return ""
	}
	s := t.Local().Format("2006-01-02 15:04:05")
	if digits <= 0 {
		return s
	}
	frac := strconv.Itoa(1e9 + t.Nanosecond())[1:]
	return s + "." + frac[:min(digits, 9)]
}

// sltFileTime formats an NTFS time (100 ns units); empty when absent.
func sltFileTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return sltTime(t)
}

// writeZipArchiveBlock prints the archive block 7-Zip's listings give a
// ZIP archive: after Path (and the open warning) and Type, the warning
// of data after the archive, the Offset of an archive after a stub,
// Physical Size (of the part named, for a split set), the Tail Size after
// the archive, then 7-Zip's ZIP keys in its order: Embedded Stub Size (the
// stored offset of the first local header: a stub the offsets count, or
// a split set's marker), 64-bit (a Zip64 end record), Comment,
// Characteristics, and for a split set Total Physical Size, Multivolume,
// Volume Index (the part named) and Volumes.
func writeZipArchiveBlock(w io.Writer, name string, info *archive.Info, d *zip.Details) {
	a := d.Archive()
	writePathAndType(w, name, info, info.SFXOffset > 0 || a.StubSize > 0 && a.PartSizes == nil)
	if a.TailSize > 0 {
		fmt.Fprintf(w, "WARNINGS:\nThere are data after the end of archive\n")
	}
	if info.SFXOffset > 0 {
		fmt.Fprintf(w, "Offset = %d\n", info.SFXOffset)
	}
	volume := -1
	physical := info.PhysicalSize
	if a.PartSizes != nil {
		volume = partIndex(name, info.Volumes, len(a.PartSizes))
		physical = a.PartSizes[volume]
	}
	fmt.Fprintf(w, "Physical Size = %d\n", physical)
	if a.TailSize > 0 {
		fmt.Fprintf(w, "Tail Size = %d\n", a.TailSize)
	}
	if a.StubSize > 0 {
		fmt.Fprintf(w, "Embedded Stub Size = %d\n", a.StubSize)
	}
	if a.Zip64 {
		fmt.Fprintf(w, "64-bit = +\n")
	}
	if info.Comment != "" {
		fmt.Fprintf(w, "Comment = %s\n", appendSLTMultiLine(nil, info.Comment))
	}
	if c := a.Characteristics(); c != "" {
		fmt.Fprintf(w, "Characteristics = %s\n", printable.String(c))
	}
	if volume >= 0 {
		var total int64
		for _, n := range a.PartSizes {
			total += n
		}
		fmt.Fprintf(w, "Total Physical Size = %d\nMultivolume = +\nVolume Index = %d\nVolumes = %d\n", total, volume, len(a.PartSizes))
	}
}

// partIndex is the index of the part named name among the parts paths of
// a split set of n parts: the path itself, else the one with its base
// name, else the last part (name.zip, from which the set is read).
func partIndex(name string, paths []string, n int) int {
	if len(paths) == n {
		for i, p := range paths {
			if p == name {
				return i
			}
		}
		for i, p := range paths {
			if filepath.Base(p) == filepath.Base(name) {
				return i
			}
		}
	}
	return n - 1
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
		fmt.Fprintf(w, "Attributes = %s\n", appendZipAttr(nil, ed.WinAttributes))
		fmt.Fprintf(w, "Encrypted = %s\n", plusMinus(e.Encrypted))
		fmt.Fprintf(w, "Comment = %s\n", sltValue(e.Comment()))
		if e.HasCRC32 {
			fmt.Fprintf(w, "CRC = %08X\n", e.CRC32)
		} else {
			fmt.Fprintf(w, "CRC = \n")
		}
		fmt.Fprintf(w, "Method = %s\n", printable.String(e.Method))
		fmt.Fprintf(w, "Characteristics = %s\n", printable.String(ed.Characteristics))
		fmt.Fprintf(w, "Host OS = %s\n", printable.String(ed.HostOS))
		fmt.Fprintf(w, "Version = %d\n", ed.Version)
		fmt.Fprintf(w, "Volume Index = %d\n", ed.Volume)
		fmt.Fprintf(w, "Offset = %d\n", ed.Offset)
		fmt.Fprintln(w)
	}
}

// zipAttrLetters are 7-Zip's letters for the Windows attribute bits 0–29
// in bit order ('.' for bits it does not name).
const zipAttrLetters = "RHS8DAdNTsLCOIEVvX.PU.M......B"

// appendZipAttr appends attributes as 7-Zip's -slt renders a ZIP entry's
// (7-Zip's Windows attributes: the stored ones of FAT and NTFS hosts, the
// mode in the high 16 bits and bit 15 set for Unix hosts). With bit 15
// set the high bits are a unix mode: when they hold a file type, only
// the Windows bits below bit 14 are named; otherwise bit 15 and the mode
// bits are named too ("V", "v", "P", "M"). Then come the letters of the
// named bits in bit order, the bits left unnamed in hexadecimal
// ("V 01800000"), and for a mode, a space and the mode as ls -l shows it
// with 7-Zip's file type letters ("0rw-------" without a type, "p" for a
// FIFO, "c", "b", "s").
func appendZipAttr(b []byte, attr uint32) []byte {
	posix := attr&archive.AttrUnixExtension != 0
	mode := attr >> 16
	if posix && attr&0xF0000000 != 0 {
		attr &= 0x3FFF
	}
	for i := 0; i < len(zipAttrLetters); i++ {
		if bit := uint32(1) << i; attr&bit != 0 && zipAttrLetters[i] != '.' {
			b = append(b, zipAttrLetters[i])
			attr &^= bit
		}
	}
	if attr != 0 {
		b = appendHex32(append(b, ' '), attr)
	}
	if posix {
		b = appendPosixMode(append(b, ' '), mode)
	}
	return b
}

// appendPosixMode appends a unix mode as 7-Zip renders one: the file type
// letter ('-', 'd', 'l', 'p', 'c', 'b', 's'; '0' for no type, the type's
// digit for the others), then the permissions as ls -l shows them.
func appendPosixMode(b []byte, mode uint32) []byte {
	const types = "0pc3d5b7-9lBsDEF"
	b = append(b, types[mode>>12&0xF])
	start := len(b)
	const rwx = "rwxrwxrwx"
	for i := 0; i < 9; i++ {
		c := byte('-')
		if mode&(1<<uint(8-i)) != 0 {
			c = rwx[i]
		}
		b = append(b, c)
	}
	s := b[start:]
	if mode&0o4000 != 0 {
		s[2] = "Ss"[b2i(s[2] == 'x')]
	}
	if mode&0o2000 != 0 {
		s[5] = "Ss"[b2i(s[5] == 'x')]
	}
	if mode&0o1000 != 0 {
		s[8] = "Tt"[b2i(s[8] == 'x')]
	}
	return b
}

// writeTarArchiveBlock prints the archive block 7-Zip's listings give a
// tar archive.
func writeTarArchiveBlock(w io.Writer, name string, info *archive.Info, d *tar.Details, all []*archive.Entry) {
	a := tarArchiveSummary(info, d, all)
	writePathAndType(w, name, info, false)
	fmt.Fprintf(w, "Physical Size = %d\n", info.PhysicalSize)
	if a.headersSize >= 0 {
		fmt.Fprintf(w, "Headers Size = %d\n", a.headersSize)
	}
	fmt.Fprintf(w, "Code Page = UTF-8\n")
	fmt.Fprintf(w, "Characteristics = %s\n", printable.String(a.characteristics))
	if info.Comment != "" {
		fmt.Fprintf(w, "Comment = %s\n", appendSLTMultiLine(nil, info.Comment))
	}
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
		// The header's mtime has whole seconds; a pax time the digits
		// its record has. 7-Zip shows access and change times from pax
		// records only (not a GNU header's atime field).
		mdigits, adigits, cdigits := ed.PAXTimeDigits()
		paxOnly := func(t time.Time, digits int) string {
			if digits < 0 {
				return ""
			}
			return sltDigits(t, digits)
		}
		size := e.Size
		if e.Type == archive.TypeSymlink {
			size = int64(len(e.LinkTarget)) // 7-Zip's size of a link is its target's
		}
		fmt.Fprintf(w, "Path = %s\n", printable.String(e.Name))
		fmt.Fprintf(w, "Folder = %s\n", plusMinus(e.IsDir()))
		fmt.Fprintf(w, "Size = %s\n", sltSize(size))
		fmt.Fprintf(w, "Packed Size = %d\n", e.PackedSize)
		fmt.Fprintf(w, "Modified = %s\n", sltDigits(e.ModTime, mdigits))
		fmt.Fprintf(w, "Created = %s\n", paxOnly(e.CreateTime(), cdigits))
		fmt.Fprintf(w, "Accessed = %s\n", paxOnly(e.AccessTime(), adigits))
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
		fmt.Fprintf(w, "Characteristics = %s\n", printable.String(tarEntryCharacteristics(e, ed)))
		fmt.Fprintf(w, "Comment = %s\n", sltValue(e.Comment()))
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
	s := []string{tarTypeflag(ed.Typeflag), ed.Format()}
	if ed.PrefixUsed() {
		s = append(s, "PREFIX")
	}
	return strings.Join(append(append(s, one.String()), ed.Extensions()...), " ")
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
	prefix := false
	enc := nameEncoding{}
	for _, e := range all {
		packed += e.PackedSize
		enc.add(e.Name)
		if ed := d.Entry(e); ed != nil {
			prefix = prefix || ed.PrefixUsed()
			if f := ed.Format(); (f == "GNU" || f == "POSIX") && !contains(formats, f) {
				formats = append(formats, f)
			}
			for _, x := range ed.Extensions() {
				if strings.HasPrefix(x, "PAX:") {
					x = "PAX" // the archive's list has no counts
				}
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
	for _, x := range exts {
		if strings.HasPrefix(x, "SCHILY.fflags=") {
			archiveExts = append(archiveExts, "SCHILY.fflags")
			break
		}
	}
	if prefix {
		formats = append(formats, "PREFIX")
	}
	if d.PAXGlobalError() {
		archiveExts = append(archiveExts, "PAX_GLOBAL_ERROR")
	}
	a := tarSummary{headersSize: -1, characteristics: strings.Join(append(append(formats, archiveExts...), enc.String()), " ")}
	if packed += d.GlobalHeaderBytes(); len(info.Methods) == 0 && packed <= info.PhysicalSize {
		// 7-Zip counts neither the data nor the pax global header
		// that opens the archive.
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
