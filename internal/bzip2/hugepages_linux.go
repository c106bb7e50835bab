package bzip2

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/hugemem"
)

// mapping owns memory that hugeAlloc mapped outside the Go heap: the
// memory is unmapped once the mapping is unreachable, so whatever holds a
// slice of it (a blockBuf's tt, text and scratch) holds its mapping too.
type mapping struct{ size int }

// hugeAlloc returns n zero bytes from a huge-page boundary, with a
// capacity of whole huge pages, advised for transparent huge pages
// (hugemem.Advise), and the mapping that owns them. They are mapped
// anonymously outside the Go heap, so that they count for no garbage
// collection: a block's 6 MB (8 with the alignment's slack) from the heap
// started one collection in a run of a 4 MiB stream, a worker's and the
// output stage's text another, about 5 % of the CPU time of such a run.
// Where mapping fails, they come from the heap (owner nil).
func hugeAlloc(n int) (*mapping, []byte) {
	size := (n + hugemem.PageSize - 1) &^ (hugemem.PageSize - 1)
	owner, m := mapAlloc(size + hugemem.PageSize)
	if m == nil {
		b := hugemem.Aligned(n)
		hugemem.Advise(b[:cap(b)])
		return nil, b
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugemem.PageSize - 1))
	b := m[off : off+n : off+size]
	hugemem.Advise(b[:cap(b)])
	return owner, b
}

// plainAlloc returns n zero bytes in pages of the system's size outside
// the Go heap, not advised, and the mapping that owns them; where mapping
// fails, from the heap (owner nil). Only the pages written take memory.
func plainAlloc(n int) (*mapping, []byte) {
	owner, m := mapAlloc(n)
	if m == nil {
		return nil, make([]byte, n)
	}
	return owner, m[:n:n]
}

// mapAlloc maps size bytes anonymously and returns them with their owner,
// which unmaps them once it is unreachable, or nil, nil.
func mapAlloc(size int) (*mapping, []byte) {
	m, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil
	}
	owner := &mapping{size: len(m)}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, m)
	return owner, m
}
