package zip

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// Details gives what 7-Zip's l -slt shows of ZIP entries beyond
// archive.Entry. It is the archive.Info.Details of a ZIP archive.
type Details struct{ rd *Reader }

// EntryDetails is what a ZIP entry records beyond archive.Entry.
type EntryDetails struct {
	// Characteristics names the extra fields of the central record and
	// the general-purpose flags as 7-Zip does ("UT:MA:1 ux",
	// "NTFS WzAES : Encrypt").
	Characteristics string
	// HostOS is the "version made by" host system, as 7-Zip names it
	// ("FAT", "Unix", "NTFS", "OS/X").
	HostOS string
	// Version is the version needed to extract (APPNOTE 4.4.3).
	Version int
	// Volume is the disk number of the local header; Offset the local
	// header's offset as the central directory stores it.
	Volume int
	Offset int64
	// NTFSTimes says the times come from the NTFS extra field (100 ns
	// units); otherwise they have whole seconds (Unix or DOS times).
	NTFSTimes bool
	// WinAttributes are the attributes 7-Zip shows: the stored Windows
	// bits for FAT and NTFS hosts, for Unix hosts the mode in the high
	// 16 bits with archive.AttrUnixExtension set; AttrDirectory set for
	// directories.
	WinAttributes uint32
}

// Entry returns the details of e, an entry of the archive, or nil for an
// entry of another reader.
func (d *Details) Entry(e *archive.Entry) *EntryDetails {
	if d == nil || e.Index < 0 || int(e.Index) >= len(d.rd.files) || d.rd.entries[e.Index] != e {
		return nil
	}
	f := &d.rd.files[e.Index]
	ed := &EntryDetails{Characteristics: f.characts, HostOS: hostName(f.host), Version: int(f.version & 0xFF),
		Volume: int(f.disk), Offset: f.localOff, NTFSTimes: f.ntfsTimes}
	switch f.host {
	case hostFAT, hostNTFS:
		ed.WinAttributes = f.external
	case hostUnix:
		ed.WinAttributes = f.external&0xFFFF0000 | archive.AttrUnixExtension
	}
	if e.IsDir() {
		ed.WinAttributes |= archive.AttrDirectory
	}
	return ed
}

// hostNames are 7-Zip's names of the "version made by" hosts.
var hostNames = [...]string{"FAT", "AMIGA", "VMS", "Unix", "VM/CMS", "Atari", "HPFS", "Macintosh", "Z-System",
	"CP/M", "TOPS-20", "NTFS", "SMS/QDOS", "Acorn", "VFAT", "MVS", "BeOS", "Tandem", "OS/400", "OS/X"}

func hostName(h byte) string {
	if int(h) < len(hostNames) {
		return hostNames[h]
	}
	return strconv.Itoa(int(h))
}

// extraNames are 7-Zip's names of extra fields in Characteristics.
var extraNames = map[uint16]string{
	extraNTFS: "NTFS", 0x000d: "UNIX", 0x0017: "StrongCrypto", extraExtTime: "UT", extraInfoZipUnix: "UX",
	0x7855: "Ux", extraUnixOwner: "ux", extraUnicodeCmt: "uc", extraUnicodePath: "up", 0x4453: "SD",
	extraAES: "WzAES", 0xd935: "ApkAlign",
}

// flagNames are 7-Zip's names of the general-purpose flag bits.
var flagNames = [...]struct {
	bit  uint
	name string
}{{0, "Encrypt"}, {3, "Descriptor"}, {6, "StrongCrypto"}, {11, "UTF8"}, {14, "Alt"}}

// characteristics builds 7-Zip's Characteristics of a central record:
// Zip64 when it has that field, the other extra fields by name in order
// (UT with its flags and number of times), then after " : " the flags.
// Equal strings are shared.
func (rd *Reader) characteristics(extra []byte, flags uint16) string {
	le := binary.LittleEndian
	b := rd.charBuf[:0]
	space := func() {
		if len(b) > 0 {
			b = append(b, ' ')
		}
	}
	for x := extra; len(x) >= 4; {
		id, n := le.Uint16(x), int(le.Uint16(x[2:]))
		if n > len(x)-4 {
			break
		}
		if id == extraZip64 {
			space()
			b = append(b, "Zip64"...)
			break
		}
		x = x[4+n:]
	}
	for x := extra; len(x) >= 4; {
		id, n := le.Uint16(x), int(le.Uint16(x[2:]))
		if n > len(x)-4 {
			break
		}
		d := x[4 : 4+n]
		x = x[4+n:]
		if id == extraZip64 {
			continue
		}
		space()
		name, ok := extraNames[id]
		if !ok {
			b = append(b, "0x"...)
			b = appendHex(b, uint32(id))
			continue
		}
		b = append(b, name...)
		if id == extraExtTime && len(d) >= 1 {
			b = append(b, ':')
			for bit, c := range "MAC" {
				if d[0]&(1<<bit) != 0 {
					b = append(b, byte(c))
				}
			}
			if (len(d)-1)%4 == 0 {
				b = append(b, ':')
				b = strconv.AppendInt(b, int64((len(d)-1)/4), 10)
			}
		}
	}
	if rest := uint32(flags) &^ 6; rest != 0 {
		mark := len(b)
		if len(b) > 0 {
			b = append(b, " :"...)
		}
		named := len(b)
		for _, f := range flagNames {
			if rest&(1<<f.bit) != 0 {
				b = append(b, ' ')
				b = append(b, f.name...)
			}
			rest &^= 1 << f.bit
		}
		if rest != 0 {
			b = append(b, " 0x"...)
			b = appendHex(b, rest)
		}
		switch {
		case len(b) == named:
			b = b[:mark]
		case mark == 0:
			b = b[1:] // no leading space
		}
	}
	rd.charBuf = b
	if v, ok := rd.characts[string(b)]; ok {
		return v
	}
	if rd.characts == nil {
		rd.characts = make(map[string]string)
	}
	v := string(b)
	if len(rd.characts) < 256 {
		rd.characts[v] = v
	}
	return v
}

// appendHex appends v in upper-case hexadecimal, as 7-Zip prints unknown
// IDs and flags.
func appendHex(b []byte, v uint32) []byte {
	start := len(b)
	b = strconv.AppendUint(b, uint64(v), 16)
	for i := start; i < len(b); i++ {
		if b[i] >= 'a' {
			b[i] -= 'a' - 'A'
		}
	}
	return b
}

// ArchiveDetails is what 7-Zip's listings show of a whole ZIP archive
// beyond archive.Info.
type ArchiveDetails struct {
	// Zip64 says the archive has a Zip64 end of central directory
	// record (7-Zip's "64-bit = +").
	Zip64 bool
	// UnsortedDirectory says the central directory does not list the
	// local headers in the order of their disks and offsets.
	UnsortedDirectory bool
	// StubSize is the offset, as stored, of the first local header: the
	// bytes before it that the stored offsets count, such as a
	// self-extractor stub whose archive offsets were adjusted (zip -A) or
	// the marker starting a split set (7-Zip's "Embedded Stub Size"). 0
	// when the entries were read from their local headers.
	StubSize int64
	// PartSizes are the sizes of the parts of a split set (name.z01 …
	// name.zip), in order; nil for an archive in one file.
	PartSizes []int64
	// TailSize is the length of the data after the end of central
	// directory record and its comment (block padding, appended data),
	// which Info.PhysicalSize leaves out.
	TailSize int64
}

// Characteristics are 7-Zip's Characteristics of the archive: "Zip64"
// and "Unsorted_CD", "" when none applies.
func (a *ArchiveDetails) Characteristics() string {
	var s []string
	if a.Zip64 {
		s = append(s, "Zip64")
	}
	if a.UnsortedDirectory {
		s = append(s, "Unsorted_CD")
	}
	return strings.Join(s, " ")
}

// Archive returns the details of the whole archive.
func (d *Details) Archive() *ArchiveDetails {
	rd := d.rd
	a := &ArchiveDetails{Zip64: rd.zip64, TailSize: rd.tail}
	if rd.disks != nil {
		a.PartSizes = make([]int64, len(rd.disks))
		for i, start := range rd.disks {
			end := rd.size
			if i+1 < len(rd.disks) {
				end = rd.disks[i+1]
			}
			a.PartSizes[i] = end - start
		}
	}
	if rd.fromLocals || len(rd.files) == 0 {
		return a
	}
	first := &rd.files[0]
	for i := 1; i < len(rd.files); i++ {
		f, prev := &rd.files[i], &rd.files[i-1]
		if f.disk < prev.disk || f.disk == prev.disk && f.localOff < prev.localOff {
			a.UnsortedDirectory = true
		}
		if f.disk < first.disk || f.disk == first.disk && f.localOff < first.localOff {
			first = f
		}
	}
	a.StubSize = first.localOff
	return a
}
