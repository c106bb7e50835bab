package opener

import (
	"encoding/binary"
	"path/filepath"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// IsLaterVolume reports whether path is a part of a multi-part archive
// other than the first one, so that a command expanding a wildcard such
// as '*.rar' can skip it (the first part brings the others along):
//
//   - a raw split part other than NAME.001 / NAME_aa (see SplitParts);
//   - a RAR 5.0 volume whose main archive header carries a volume number
//     (the first volume has none);
//   - a RAR 1.5–4.x volume without the "first volume" flag, which RAR 3.0
//     and later set on the first volume: with the new-numbering flag it is
//     a later volume; archives older than that have neither flag, so a
//     volume named NAME.rar (.exe, .sfx) counts as the first and any other
//     name as a later one;
//   - when the headers cannot be read (RAR5 encrypted headers, RAR 1.4),
//     a name of the form NAME.r00 … NAME.z99 or NAME.partN.rar with N > 1.
//
// Anything that cannot be opened or is no archive is not a later volume:
// opening it reports the real problem.
func IsLaterVolume(path string) bool {
	if parts := SplitParts(path); parts != nil {
		return filepath.Clean(parts[0]) != filepath.Clean(path)
	}
	f, err := openFile(path)
	if err != nil {
		return false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return false
	}
	d, ok, err := Detect(f, st.Size())
	if err != nil || !ok {
		return false
	}
	var head [64]byte
	n, _ := f.ReadAt(head[:], d.Offset)
	switch d.Format {
	case archive.FormatRAR5:
		if later, known := rar5LaterVolume(head[:n]); known {
			return later
		}
	case archive.FormatRAR4:
		if later, known := rar4LaterVolume(head[:n]); known {
			return later
		}
		// A volume without the first-volume flag: with new numbering
		// (name.partN.rar, RAR 3.0 and later) the flag would be set on
		// the first volume; old numbering's first volume is NAME.rar.
		if len(head) >= 12 && binary.LittleEndian.Uint16(head[7+3:])&rar4MainNewNumbering != 0 {
			return true
		}
		ext := strings.ToLower(filepath.Ext(path))
		return laterVolumeName(path) || ext != ".rar" && ext != ".exe" && ext != ".sfx"
	case archive.Format7z:
		return false
	}
	return laterVolumeName(path)
}

// RAR 1.5–4.x main header flags.
const (
	rar4MainVolume       = 0x0001
	rar4MainFirstVolume  = 0x0100
	rar4MainNewNumbering = 0x0010
	rar4MainHeaderType   = 0x73
)

// rar4VolumeFlags reads the volume flags of the main header that follows
// the 7-byte RAR 1.5–4.x signature at the start of b.
func rar4VolumeFlags(b []byte) (volume, first bool) {
	if len(b) < 7+5 || b[7+2] != rar4MainHeaderType {
		return false, false
	}
	flags := binary.LittleEndian.Uint16(b[7+3:])
	return flags&rar4MainVolume != 0, flags&rar4MainFirstVolume != 0
}

// rar4LaterVolume decides from the header alone: known is false for a
// volume without the first-volume flag, which may be an old first volume.
func rar4LaterVolume(b []byte) (later, known bool) {
	volume, first := rar4VolumeFlags(b)
	switch {
	case !volume:
		return false, len(b) >= 12
	case first:
		return false, true
	}
	return false, false
}

// rar5LaterVolume parses the RAR 5.0 main archive header after the 8-byte
// signature: CRC32, header size, type 1, header flags, optional extra and
// data sizes, archive flags (0x1 volume, 0x2 volume number present) and
// the volume number. known is false when the first header is not the main
// header (encrypted headers) or is truncated.
func rar5LaterVolume(b []byte) (later, known bool) {
	p := b[min(len(b), 8+4):]
	vint := func() (uint64, bool) {
		var v uint64
		for i := 0; i < len(p) && i < 10; i++ {
			v |= uint64(p[i]&0x7f) << (7 * i)
			if p[i]&0x80 == 0 {
				p = p[i+1:]
				return v, true
			}
		}
		return 0, false
	}
	if _, ok := vint(); !ok { // header size
		return false, false
	}
	typ, ok := vint()
	if !ok || typ != 1 {
		return false, false
	}
	hflags, ok := vint()
	if !ok {
		return false, false
	}
	for _, bit := range []uint64{0x1, 0x2} { // extra area size, data size
		if hflags&bit != 0 {
			if _, ok := vint(); !ok {
				return false, false
			}
		}
	}
	aflags, ok := vint()
	if !ok {
		return false, false
	}
	if aflags&0x1 == 0 {
		return false, true
	}
	if aflags&0x2 == 0 {
		return false, true
	}
	num, ok := vint()
	return ok && num > 0, ok
}

// laterVolumeName guesses from the name alone: NAME.r00 … NAME.z99, or a
// NAME.partN.rar with N other than 1 (or 0).
func laterVolumeName(path string) bool {
	base := strings.ToLower(filepath.Base(path))
	ext := filepath.Ext(base)
	if oldVolumeExt(ext) {
		return true
	}
	if ext != ".rar" {
		return false
	}
	stem := strings.TrimSuffix(base, ext)
	i := strings.LastIndex(stem, ".part")
	if i < 0 {
		return false
	}
	num := stem[i+len(".part"):]
	if num == "" {
		return false
	}
	for j := 0; j < len(num); j++ {
		if !isDigit(num[j]) {
			return false
		}
	}
	n := strings.TrimLeft(num, "0")
	return n != "" && n != "1"
}

// oldVolumeExt reports whether a lower-case extension is that of a later
// volume in RAR's old naming: .r00 … .r99, then .s00 … up to .z99.
func oldVolumeExt(ext string) bool {
	return len(ext) == 4 && ext[1] >= 'r' && ext[1] <= 'z' && isDigit(ext[2]) && isDigit(ext[3])
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// VolumeSetStem returns the name that the files of a multi-part archive
// share, from path's file name: without the part number of a raw split
// part ("a.7z.001" → "a.7z"), or without the volume marker of a RAR
// volume name ("b.part1.rar" → "b"; "x.rar", "x.r00" … "x.z99" → "x").
// Any other file name, or one that would leave nothing, is returned as it
// is. The name alone decides; the file is not read.
func VolumeSetStem(path string) string {
	base := filepath.Base(path)
	if stem, _, ok := numericSuffix(base); ok {
		return strings.TrimSuffix(stem, ".")
	}
	ext := strings.ToLower(filepath.Ext(base))
	stem := base[:len(base)-len(ext)]
	switch {
	case stem == "":
		return base
	case oldVolumeExt(ext):
		return stem
	case ext != ".rar":
		return base
	}
	if i := strings.LastIndex(strings.ToLower(stem), ".part"); i > 0 && len(stem) > i+len(".part") &&
		strings.Trim(stem[i+len(".part"):], "0123456789") == "" {
		return stem[:i]
	}
	return stem
}
