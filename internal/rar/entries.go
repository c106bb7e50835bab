package rar

import (
	"fmt"
	"unsafe"

	"github.com/garc-dev/garc/internal/archive"
)

// Opening an archive of many entries allocates little per entry: the
// entry records and their one-piece part lists come from chunks, and
// entries that share a method share its name string (issue 13).

// maxFileChunk is the most fileInfo records (and part records) allocated
// at once: as many as fit in 32 KiB, the largest size class of the
// allocator, so that no chunk leaves the end of its pages unused. Chunks
// start at minFileChunk and double, so that a small archive allocates
// little.
const (
	minFileChunk = 4
	maxFileChunk = 32 << 10 / int(unsafe.Sizeof(fileInfo{}))
)

// entryAlloc hands out fileInfo and part records from chunks.
type entryAlloc struct {
	files     []fileInfo
	parts     []part
	fileChunk int // the size of the last chunk of files
	partChunk int // and of parts
}

// newFile returns a zeroed fileInfo.
func (a *entryAlloc) newFile() *fileInfo {
	if len(a.files) == 0 {
		a.fileChunk = min(max(2*a.fileChunk, minFileChunk), maxFileChunk)
		a.files = make([]fileInfo, a.fileChunk)
	}
	f := &a.files[0]
	a.files = a.files[1:]
	return f
}

// onePart returns a part list of p alone, with no room to grow in place:
// appending the pieces of a split entry copies it.
func (a *entryAlloc) onePart(p part) []part {
	if len(a.parts) == 0 {
		a.partChunk = min(max(2*a.partChunk, minFileChunk), maxFileChunk)
		a.parts = make([]part, a.partChunk)
	}
	a.parts[0] = p
	s := a.parts[:1:1]
	a.parts = a.parts[1:]
	return s
}

// methodName returns the method string of an entry of the given family
// ("RAR5", "RAR4", …), method and dictionary size: "family m0" for
// stored entries, "family mN:dict" otherwise. The last string made is
// reused while the entries repeat it.
func (r *reader) methodName(family string, method int, dict int64) string {
	k := methodKey{family, method, dict}
	if k == r.lastMethod && r.lastMethodName != "" {
		return r.lastMethodName
	}
	s := family + " m0"
	if method != 0 {
		s = fmt.Sprintf("%s m%d:%s", family, method, sizeString(dict))
	}
	r.lastMethod, r.lastMethodName = k, s
	return s
}

// methodKey is what an entry's method string is made of.
type methodKey struct {
	family string
	method int
	dict   int64
}

// entryMemory charges what the entry records take — records, part lists,
// names, EntryExtra — to the reader's memory budget, as the 7z reader
// does, so that the entry count an archive can make the reader hold is
// bounded by the memory limit (issue 11.5). The charge is held until the
// reader is closed.
type entryMemory struct {
	archive.MetadataCharge
}

// charge takes n bytes, or returns a *archive.LimitError.
func (m *entryMemory) charge(n int64) error {
	if !m.Charge(n) {
		return &archive.LimitError{What: "RAR entry records", Need: m.Charged() + n, Limit: m.Budget.Limit()}
	}
	return nil
}

// entryRecordSize is what every entry takes besides its name and rare
// fields: its record, one part, its slots in the file and entry lists,
// and a share of rounding (allocation size classes, chunk ends, spare
// room of the growing file list).
const entryRecordSize = int64(unsafe.Sizeof(fileInfo{})+unsafe.Sizeof(part{})+2*unsafe.Sizeof(uintptr(0))) + allocSlack

// allocSlack is what rounding adds to an allocation or record, at most.
const allocSlack = 16

// entryCost returns the memory f's record holds.
func entryCost(f *fileInfo) int64 {
	n := entryRecordSize + int64(len(f.e.Name))
	if x := f.e.Extra; x != nil {
		n += int64(unsafe.Sizeof(*x)) + int64(len(x.BLAKE2sp)+len(x.Owner)+len(x.Group)+len(x.Comment)) + 4*allocSlack
	}
	if len(f.parts) > 0 && f.parts[0].crypt != nil {
		n += int64(unsafe.Sizeof(partCrypt{})) + 16 + 16 + 12 // salt, IV, password check
	}
	return n
}
