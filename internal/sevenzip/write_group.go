package sevenzip

import (
	"encoding/binary"
	"io"
	"path"
	"strings"
)

// filterKind is the branch filter chosen for a block.
type filterKind int

const (
	filterNone filterKind = iota
	filterX86
	filterARM64
)

// fileGroup is the files of one new solid block and the filter it gets.
type fileGroup struct {
	kind  filterKind
	files []*srcFile
}

// exeExtensions are the extensions 7-Zip treats as x86 executables.
var exeExtensions = map[string]bool{
	"exe": true, "dll": true, "ocx": true, "sfx": true, "sys": true, "ax": true, "cpl": true,
	"scr": true, "drv": true, "efi": true, "mui": true, "com": true,
}

// sniffExtensions are the extensions whose content is examined for an
// executable header (besides exeExtensions and files without extension).
var sniffExtensions = map[string]bool{
	"so": true, "o": true, "ko": true, "a": true, "dylib": true, "bin": true, "elf": true,
	"node": true, "out": true,
}

// extOf returns the lower-case extension of a stored name.
func extOf(name string) string {
	base := path.Base(name)
	i := strings.LastIndexByte(base, '.')
	if i <= 0 {
		return ""
	}
	return strings.ToLower(base[i+1:])
}

// detectExecutable classifies a file's first bytes: a PE, ELF or Mach-O
// header for x86/x86-64 or ARM64 code.
func detectExecutable(h []byte) filterKind {
	switch {
	case len(h) >= 64 && h[0] == 'M' && h[1] == 'Z':
		off := int(binary.LittleEndian.Uint32(h[60:]))
		if off+6 <= len(h) && string(h[off:off+4]) == "PE\x00\x00" {
			switch binary.LittleEndian.Uint16(h[off+4:]) {
			case 0x014C, 0x8664:
				return filterX86
			case 0xAA64:
				return filterARM64
			}
		}
	case len(h) >= 20 && string(h[:4]) == "\x7fELF":
		var m uint16
		if h[5] == 2 {
			m = binary.BigEndian.Uint16(h[18:])
		} else {
			m = binary.LittleEndian.Uint16(h[18:])
		}
		switch m {
		case 3, 62:
			return filterX86
		case 183:
			return filterARM64
		}
	case len(h) >= 8:
		magic := binary.LittleEndian.Uint32(h)
		if magic == 0xFEEDFACE || magic == 0xFEEDFACF {
			switch binary.LittleEndian.Uint32(h[4:]) {
			case 7, 0x01000007:
				return filterX86
			case 0x0100000C:
				return filterARM64
			}
		}
	}
	return filterNone
}

// sniffSize is how much of a file is read to recognise an executable.
const sniffSize = 4096

// classify decides the filter of a new file.
func (w *writer) classify(sf *srcFile) filterKind {
	switch strings.ToUpper(w.opts.Filter) {
	case "OFF":
		return filterNone
	case "BCJ", "X86":
		return filterX86
	case "ARM64":
		return filterARM64
	}
	if w.method == writeCopy || sf.size < 512 || sf.info.attrib&0xF0000000 == unixSymlink<<16 {
		return filterNone
	}
	ext := sf.ext
	if !exeExtensions[ext] && !sniffExtensions[ext] && ext != "" {
		return filterNone
	}
	kind := filterNone
	if exeExtensions[ext] {
		kind = filterX86
	}
	rc, err := sf.open()
	if err != nil {
		return kind // the real open reports the error
	}
	defer rc.Close()
	h := make([]byte, sniffSize)
	n, _ := io.ReadFull(rc, h)
	if k := detectExecutable(h[:n]); k != filterNone {
		return k
	}
	return kind
}

// groupNew sorts new files into solid blocks: one group per filter kind
// (and per extension with ByExtension), in order of first appearance, cut
// by the size and file count limits.
func (w *writer) groupNew(files []*srcFile) ([]fileGroup, error) {
	type key struct {
		kind filterKind
		ext  string
	}
	var order []key
	byKey := map[key][]*srcFile{}
	for _, sf := range files {
		sf.ext = extOf(sf.name)
		if sf.info.attrib>>16&unixTypeMask == unixSymlink {
			sf.kind = filterNone
		} else {
			sf.kind = w.classify(sf)
		}
		k := key{kind: sf.kind}
		if w.opts.Solid.ByExtension {
			k.ext = sf.ext
		}
		if _, ok := byKey[k]; !ok {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], sf)
	}
	limit := w.solidLimit()
	var groups []fileGroup
	for _, k := range order {
		var cur fileGroup
		var size int64
		flush := func() {
			if len(cur.files) > 0 {
				groups = append(groups, cur)
			}
			cur = fileGroup{kind: k.kind}
			size = 0
		}
		flush()
		for _, sf := range byKey[k] {
			full := len(cur.files) > 0 && (w.opts.Solid.Off ||
				(w.opts.Solid.FilesPerBlock > 0 && len(cur.files) >= w.opts.Solid.FilesPerBlock) ||
				size+sf.size > limit)
			if full {
				flush()
			}
			cur.files = append(cur.files, sf)
			size += sf.size
		}
		flush()
	}
	return groups, nil
}
