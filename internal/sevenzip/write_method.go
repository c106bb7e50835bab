package sevenzip

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/garc-dev/garc/internal/archive"
)

// writeMethod is a compression method the writer produces.
type writeMethod int

const (
	writeLZMA2 writeMethod = iota
	writeLZMA
	writePPMd
	writeBZip2
	writeDeflate
	writeCopy
)

// writeMethodNames are the method names of WriteOptions.Method, upper
// case, as 7-Zip's -m0= spells them.
var writeMethodNames = map[string]writeMethod{
	"": writeLZMA2, "LZMA2": writeLZMA2, "LZMA": writeLZMA, "PPMD": writePPMd,
	"BZIP2": writeBZip2, "DEFLATE": writeDeflate, "COPY": writeCopy,
}

// deflateLevels maps 7-Zip's levels 1..9 to compress/flate levels.
// 7-Zip's Deflate encoder has four tiers: -mx1..4 its fast parser (one
// setting for all four), -mx5..6 the optimal parser, -mx7..8 three passes
// with more fast bytes, -mx9 ten passes. On the standard mixed data 7-Zip's
// -mx1 lies between flate 4 and 5 in size and time, so -mx1..2 get flate
// 4 and -mx3..4 flate 5; -mx5..6 get flate 7 (flate 9's long hash chains
// cost 2.5 times the time for 0.3 % there, and far more on repetitive
// text), -mx7..8 flate 8 and -mx9 flate's best. 7-Zip's optimal parser
// still packs 4-7 % smaller at its higher levels.
var deflateLevels = [10]int{0, 4, 4, 5, 5, 7, 7, 8, 8, 9}

// deflateLevel maps a 7-Zip level (1..9) to a compress/flate level.
func deflateLevel(level int) int { return deflateLevels[min(max(level, 1), 9)] }

// bzip2Level maps a 7-Zip level (1..9) to a BZip2 block size in 100 kB
// units, as 7-Zip's BZip2 encoder does (CEncProps::Normalize in
// BZip2Encoder.cpp): 2×level−1 below -mx5, 900 kB from -mx5 up.
func bzip2Level(level int) int {
	level = min(max(level, 1), 9)
	if level >= 5 {
		return 9
	}
	return 2*level - 1
}

// windowSize is the dictionary of LZMA and LZMA2, PPMd's model memory,
// Deflate's 32 KiB window and BZip2's block size: what 7-Zip scales the
// solid block size by.
func (w *writer) windowSize() int64 {
	switch w.method {
	case writePPMd:
		return int64(w.ppmdMem)
	case writeDeflate:
		return 32 << 10
	case writeBZip2:
		return int64(w.bzLevel) * 100000
	}
	return int64(w.lopts.DictSize)
}

// solidLimit returns the unpacked bytes per solid block.
func (w *writer) solidLimit() int64 {
	if w.opts.Solid.BlockSize > 0 {
		return w.opts.Solid.BlockSize
	}
	if w.method == writeCopy {
		return 1 << 62
	}
	// 7-Zip (SetMainMethod in 7zHandlerOut.cpp): 128 times the
	// dictionary or model memory, at least 16 MiB, at most 4 GiB.
	return min(max(w.windowSize()<<7, 16<<20), 4<<30)
}

// parallelLimit is the largest folder compressGroups compresses into
// memory on a goroutine of its own. LZMA and LZMA2 folders up to their
// dictionary divided by the thread count, so that the encoders running at
// once (their dictionaries reduced to their folders) hold the tables of
// one encoder of the whole dictionary, as 7-Zip's one encoder at a time
// does; PPMd folders up to the model memory (their arenas are reduced to
// the folder size); larger ones go straight to the output, LZMA2 with its
// own block parallelism. Deflate folders are always small enough to
// buffer (16 MiB by default, at most 64 MiB held per folder).
func (w *writer) parallelLimit() int64 {
	switch w.method {
	case writeDeflate:
		return min(w.solidLimit()+1, 64<<20)
	case writeLZMA, writeLZMA2:
		return w.windowSize() / int64(max(w.opts.Threads, 1))
	}
	return w.windowSize()
}

// methodIDByName maps the method names of Entry.Method to their 7z coder
// IDs; where two IDs share a name (BCJ's 0x04 and 0x03030103 …), the one
// 7-Zip writes. (Built on first use, as the registry is.)
var methodIDByName = sync.OnceValue(func() map[string]uint64 {
	m := map[string]uint64{}
	for id, meth := range methods() {
		if old, ok := m[meth.name]; !ok || id > old {
			m[meth.name] = id
		}
	}
	return m
})

// ArchiveMethods builds a 7z archive's Method line as 7-Zip's technical
// listing (`7zz l -slt`) shows it, from its entries' Method fields:
// every coder used, once, ordered by coder ID (names this package does
// not know last), LZMA and LZMA2 with the largest dictionary used and
// every other coder by name alone. It returns "" when no entry names a
// method.
func ArchiveMethods(entries []*archive.Entry) string {
	type used struct {
		name  string
		param string
		dict  uint64
		id    uint64
		known bool
	}
	byName := map[string]*used{}
	var order []*used
	for _, e := range entries {
		for _, f := range strings.Fields(e.Method) {
			name, rest, _ := strings.Cut(f, ":")
			m := byName[name]
			if m == nil {
				id, known := methodIDByName()[name]
				if !known {
					// Unknown IDs are named by their hex digits.
					if v, err := strconv.ParseUint(name, 16, 64); err == nil && methodIDString(v) == name {
						id, known = v, true
					}
				}
				m = &used{name: name, id: id, known: known}
				byName[name] = m
				order = append(order, m)
			}
			if name != "LZMA" && name != "LZMA2" {
				continue
			}
			p, _, _ := strings.Cut(rest, ":")
			if d, ok := dictParam(p); ok && (m.param == "" || d > m.dict) {
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
	s := make([]string, 0, len(order))
	for _, m := range order {
		if m.param != "" {
			s = append(s, m.name+":"+m.param)
		} else {
			s = append(s, m.name)
		}
	}
	return strings.Join(s, " ")
}

// dictParam parses a dictionary as a method description shows it: a
// power of two ("24") or a size with a unit ("1536k", "3m"). ok is false
// otherwise.
func dictParam(p string) (uint64, bool) {
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
