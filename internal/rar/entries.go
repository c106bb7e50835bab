package rar

import "fmt"

// Opening an archive of many entries allocates little per entry: the
// entry records and their one-piece part lists come from chunks, and
// entries that share a method share its name string (issue 13).

// maxFileChunk is the most fileInfo records (and part records) allocated
// at once; chunks start at minFileChunk and double, so that a small
// archive allocates little.
const (
	minFileChunk = 4
	maxFileChunk = 256
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
