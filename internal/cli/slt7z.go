package cli

import (
	"sort"
	"strconv"
	"strings"

	"github.com/garc-dev/garc/internal/archive"
)

// methodIDs are the 7z coder IDs of the method names the 7z reader
// uses, by which 7-Zip orders the archive's Method line.
var methodIDs = map[string]uint64{
	"Copy": 0x00, "Delta": 0x03, "ARM64": 0x0a, "RISCV": 0x0b, "LZMA2": 0x21,
	"SWAP2": 0x020302, "SWAP4": 0x020304, "LZMA": 0x030101, "BCJ": 0x03030103,
	"BCJ2": 0x0303011b, "PPC": 0x03030205, "IA64": 0x03030401, "ARM": 0x03030501,
	"ARMT": 0x03030701, "SPARC": 0x03030805, "PPMD": 0x030401, "Deflate": 0x040108,
	"Deflate64": 0x040109, "BZip2": 0x040202, "ZSTD": 0x04f71101, "Brotli": 0x04f71102,
	"LZ4": 0x04f71104, "7zAES": 0x06f10701,
}

// dictValue parses a dictionary parameter as 7-Zip writes it: a power of
// two ("24") or a size with a unit ("1536k", "3m"). ok is false otherwise.
func dictValue(p string) (uint64, bool) {
	if p == "" {
		return 0, false
	}
	unit := uint64(0)
	switch p[len(p)-1] {
	case 'k':
		unit = 10
	case 'm':
		unit = 20
	case 'g':
		unit = 30
	}
	if unit > 0 {
		n, err := strconv.ParseUint(p[:len(p)-1], 10, 32)
		return n << unit, err == nil
	}
	n, err := strconv.ParseUint(p, 10, 6)
	return 1 << n, err == nil
}

// sevenZipArchiveMethods builds the archive's Method line as 7-Zip does
// for 7z: every coder used, once, ordered by coder ID, LZMA and LZMA2
// with the largest dictionary used and every other coder by name alone.
// It returns "" when no entry names a method.
func sevenZipArchiveMethods(all []*archive.Entry) string {
	type method struct {
		name  string
		param string
		dict  uint64
		id    uint64
		known bool
	}
	byName := map[string]*method{}
	var order []*method
	for _, e := range all {
		for _, f := range strings.Fields(e.Method) {
			name, rest, _ := strings.Cut(f, ":")
			m := byName[name]
			if m == nil {
				id, known := methodIDs[name]
				m = &method{name: name, id: id, known: known}
				byName[name] = m
				order = append(order, m)
			}
			if name != "LZMA" && name != "LZMA2" {
				continue
			}
			p, _, _ := strings.Cut(rest, ":")
			if d, ok := dictValue(p); ok && (m.param == "" || d > m.dict) {
				m.param, m.dict = p, d
			}
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		a, b := order[i], order[j]
		if a.known != b.known {
			return a.known
		}
		return a.known && a.id < b.id
	})
	var s []string
	for _, m := range order {
		if m.param != "" {
			s = append(s, m.name+":"+m.param)
		} else {
			s = append(s, m.name)
		}
	}
	return strings.Join(s, " ")
}
