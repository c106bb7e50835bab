package zip

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/garc-dev/garc/internal/archive"
)

// "Version made by" host systems (APPNOTE 4.4.2.2).
const (
	hostFAT  = 0
	hostUnix = 3
	hostNTFS = 10
	hostVFAT = 14
	hostOSX  = 19
)

// Extra field header IDs (APPNOTE 4.5, 4.6).
const (
	extraZip64       = 0x0001
	extraNTFS        = 0x000a
	extraExtTime     = 0x5455 // "UT"
	extraInfoZipUnix = 0x5855 // "UX", Info-ZIP Unix type 1
	extraUnixOwner   = 0x7875 // "ux", Info-ZIP Unix type 3
	extraUnicodePath = 0x7075 // "up"
	extraUnicodeCmt  = 0x6375 // "uc"
	extraAES         = 0x9901
)

// unix st_mode type bits.
const (
	sIFMT  = 0o170000
	sIFLNK = 0o120000
	sIFDIR = 0o040000
)

// extraInfo is what the extra fields of a record say.
type extraInfo struct {
	mtime, atime, ctime time.Time
	ntfs                bool // times came from the NTFS field (preferred)
	uid, gid            int
	hasOwner            bool
	unicodePath         string
}

// aesParams is the WinZip AES extra field (APPNOTE 4.6.3 and WinZip's
// "AES Encryption Information").
type aesParams struct {
	present  bool
	version  uint16 // 1: AE-1 (CRC stored), 2: AE-2 (CRC 0, not checked)
	strength byte   // 1, 2, 3: AES-128, -192, -256
}

// parseExtra parses an extra field block. In the central directory the
// Zip64 field holds only the values whose 32-bit fields are all ones; in
// a local header it holds both sizes. Sizes and the offset in f are
// replaced from it.
func parseExtra(b []byte, f *file, central bool) (extraInfo, error) {
	le := binary.LittleEndian
	x := extraInfo{uid: -1, gid: -1}
	for len(b) >= 4 {
		id, n := le.Uint16(b), int(le.Uint16(b[2:]))
		b = b[4:]
		if n > len(b) {
			// A truncated last field of an unknown type is ignored, as
			// 7-Zip and Info-ZIP do (padding written by some tools);
			// a field we read that is cut short is corruption.
			switch id {
			case extraZip64, extraNTFS, extraExtTime, extraUnixOwner, extraUnicodePath, extraAES:
				return x, fmt.Errorf("extra field 0x%04x of %d bytes in %d: %w", id, n, len(b), archive.ErrFormat)
			}
			break
		}
		d := b[:n]
		b = b[n:]
		switch id {
		case extraZip64:
			if !central && f.csize != 0xFFFFFFFF && f.usize != 0xFFFFFFFF {
				continue
			}
			take := func(v *int64) bool {
				if len(d) < 8 {
					return false
				}
				*v = int64(le.Uint64(d))
				d = d[8:]
				return true
			}
			if f.usize == 0xFFFFFFFF || !central {
				if !take(&f.usize) {
					return x, fmt.Errorf("Zip64 extra field of %d bytes: %w", n, archive.ErrFormat)
				}
			}
			if f.csize == 0xFFFFFFFF || !central {
				if !take(&f.csize) && central {
					return x, fmt.Errorf("Zip64 extra field of %d bytes: %w", n, archive.ErrFormat)
				}
			}
			if central && f.localOff == 0xFFFFFFFF {
				if !take(&f.localOff) {
					return x, fmt.Errorf("Zip64 extra field of %d bytes: %w", n, archive.ErrFormat)
				}
			}
			if central && f.disk == 0xFFFF && len(d) >= 4 {
				f.disk = le.Uint32(d)
			}
		case extraNTFS:
			if len(d) < 4 {
				continue
			}
			d = d[4:]
			for len(d) >= 4 {
				tag, sz := le.Uint16(d), int(le.Uint16(d[2:]))
				d = d[4:]
				if sz > len(d) {
					break
				}
				if tag == 1 && sz >= 24 {
					x.mtime = archive.FromFiletime(le.Uint64(d))
					x.atime = archive.FromFiletime(le.Uint64(d[8:]))
					x.ctime = archive.FromFiletime(le.Uint64(d[16:]))
					x.ntfs = true
				}
				d = d[sz:]
			}
		case extraExtTime:
			if len(d) < 1 || x.ntfs {
				continue
			}
			flags := d[0]
			d = d[1:]
			times := []*time.Time{&x.mtime, &x.atime, &x.ctime}
			if central {
				// Info-ZIP's central UT holds the modification time
				// only; the flags describe the local field. Writers
				// that put more there (bsdtar: access and inode change
				// times) are read as 7-Zip reads them, the first time
				// only: the change time is no creation time.
				times = times[:1]
			}
			for bit, t := range times {
				if flags&(1<<bit) == 0 {
					continue
				}
				if len(d) < 4 {
					break
				}
				*t = unixTime32(le.Uint32(d), f)
				d = d[4:]
			}
		case extraInfoZipUnix:
			if len(d) >= 8 && x.mtime.IsZero() {
				x.atime = unixTime32(le.Uint32(d), f)
				x.mtime = unixTime32(le.Uint32(d[4:]), f)
			}
			if len(d) >= 12 && !x.hasOwner {
				x.uid, x.gid, x.hasOwner = int(le.Uint16(d[8:])), int(le.Uint16(d[10:])), true
			}
		case extraUnixOwner:
			if len(d) < 2 || d[0] != 1 {
				continue
			}
			un := int(d[1])
			if len(d) < 2+un+1 {
				continue
			}
			gn := int(d[2+un])
			if len(d) < 3+un+gn || un > 8 || gn > 8 {
				continue
			}
			x.uid = int(leUint(d[2 : 2+un]))
			x.gid = int(leUint(d[3+un : 3+un+gn]))
			x.hasOwner = x.uid >= 0 && x.gid >= 0
		case extraUnicodePath:
			// Version 1, CRC-32 of the stored name, the UTF-8 name. It is
			// used only while the stored name is the one it was made for.
			f.unicodeX = true
			if len(d) >= 5 && d[0] == 1 && le.Uint32(d[1:]) == crc32.ChecksumIEEE(f.rawName) && utf8.Valid(d[5:]) && len(d) > 5 {
				x.unicodePath = string(d[5:])
			}
		case extraAES:
			if len(d) < 7 || d[2] != 'A' || d[3] != 'E' {
				return x, fmt.Errorf("WinZip AES extra field: %w", archive.ErrFormat)
			}
			f.aes = aesParams{present: true, version: le.Uint16(d), strength: d[4]}
			if f.method == methodAES {
				f.realMethod = le.Uint16(d[5:])
			}
		}
	}
	return x, nil
}

// leUint reads a little-endian unsigned integer of up to 8 bytes.
func leUint(b []byte) uint64 {
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// fillEntry completes an entry from its central directory record.
func (rd *Reader) fillEntry(e *archive.Entry, f *file, x *extraInfo, host byte, ext uint32) {
	e.Size = f.usize
	e.PackedSize = f.csize
	e.Encrypted = f.flags&flagEncrypted != 0
	e.HasCRC32 = !(f.aes.present && f.aes.version == 2)
	e.CRC32 = f.crc
	e.Method = methodString(f)
	e.ModTime = dosTime(f.dosTime, f.dosDate)
	if !x.mtime.IsZero() {
		e.ModTime = x.mtime
	}
	if !x.atime.IsZero() || !x.ctime.IsZero() {
		e.MutableExtra().AccessTime, e.MutableExtra().CreateTime = x.atime, x.ctime
	}
	if x.hasOwner {
		e.MutableExtra().UID, e.MutableExtra().GID = x.uid, x.gid
	}
	if host != hostUnix && host != hostOSX {
		// DOS, NTFS and the rest write '\' as the separator.
		e.Name = strings.ReplaceAll(e.Name, "\\", "/")
	}
	unixModeBits := uint32(0)
	switch {
	case host == hostUnix || host == hostOSX:
		unixModeBits = ext >> 16
	case ext&archive.AttrUnixExtension != 0 && ext>>16 != 0:
		unixModeBits = ext >> 16 // 7-Zip's convention on Windows hosts
	}
	if unixModeBits != 0 {
		e.HostOS = archive.HostUnix
		e.Attributes = unixModeBits
	} else {
		e.HostOS = archive.HostWindows
		e.Attributes = ext & 0xFFFF
	}
	switch {
	case strings.HasSuffix(e.Name, "/"):
		e.Type = archive.TypeDir
	case e.HostOS == archive.HostUnix && unixModeBits&sIFMT == sIFDIR:
		e.Type = archive.TypeDir
	case e.HostOS == archive.HostWindows && ext&archive.AttrDirectory != 0 && f.usize == 0:
		e.Type = archive.TypeDir
	case e.HostOS == archive.HostUnix && unixModeBits&sIFMT == sIFLNK:
		e.Type = archive.TypeSymlink
	default:
		e.Type = archive.TypeFile
	}
	if e.Type == archive.TypeDir {
		e.Name = strings.TrimRight(e.Name, "/")
		// A directory's CRC of 0 is no checksum (7-Zip lists none).
		e.HasCRC32 = e.HasCRC32 && f.crc != 0
	}
	e.SetMode()
}

// dosTime converts an MS-DOS time and date (local time) to time.
// unixTime32 reads the 32-bit Unix time of Info-ZIP's UT and UX fields.
// The field has no sign: 7-Zip and bsdtar read it unsigned (1970 to
// 2106), older writers meant it signed (1901 to 2038). Values up to
// 2^31-1 are the same either way; above, the reading nearer to the
// entry's DOS time is taken (a file of 2040 is 2040, not 1903; one of
// 1960, whose DOS time says 1980, is 1960, not 2096), unsigned when there
// is no DOS time.
func unixTime32(v uint32, f *file) time.Time {
	unsigned := time.Unix(int64(v), 0)
	if v <= math.MaxInt32 {
		return unsigned
	}
	signed := time.Unix(int64(int32(v)), 0)
	dos := dosTime(f.dosTime, f.dosDate)
	if dos.IsZero() || dos.Sub(signed).Abs() >= unsigned.Sub(dos).Abs() {
		return unsigned
	}
	return signed
}

func dosTime(t, d uint16) time.Time {
	if t == 0 && d == 0 {
		return time.Time{}
	}
	return time.Date(int(d>>9)+1980, time.Month(d>>5&0xF), int(d&0x1F),
		int(t>>11), int(t>>5&0x3F), int(t&0x1F)*2, 0, time.Local)
}

// cp437 maps bytes 0x80–0xFF of IBM code page 437, the DOS "OEM" code page
// ZIP names are in when the UTF-8 flag is unset (APPNOTE appendix D).
const cp437 = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»" +
	"░▒▓│┤╡╢╖╕╣║╗╝╜╛┐└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀" +
	"αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0"

var cp437Runes = []rune(cp437)

// decodeName turns a stored name into a string. With the UTF-8 flag the
// bytes are UTF-8 already. Without it they are in the creator's OEM code
// page, read as CP437 as 7-Zip and unzip do; except that names written on
// Unix and macOS hosts that are valid UTF-8 are taken as UTF-8, which is
// what those systems' zip tools store and what 7-Zip and unzip show.
func decodeName(b []byte, utf8Flag, unixHost bool) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		// C tools end the name at a NUL byte; no file system takes one.
		b = b[:i]
	}
	ascii := true
	for _, c := range b {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii || utf8Flag || unixHost && utf8.Valid(b) {
		return string(b)
	}
	var sb strings.Builder
	sb.Grow(len(b) * 2)
	for _, c := range b {
		if c < 0x80 {
			sb.WriteByte(c)
		} else {
			sb.WriteRune(cp437Runes[c-0x80])
		}
	}
	return sb.String()
}

// utf8Valid reports whether b is valid UTF-8.
func utf8Valid(b []byte) bool { return utf8.Valid(b) }
