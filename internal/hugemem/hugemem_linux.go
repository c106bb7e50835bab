package hugemem

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Aligned returns n zero bytes (len n) starting on a huge-page boundary,
// their capacity running to the next boundary: a slice of an allocation
// a huge page larger than that, so that no other object shares its pages.
// Only the pages the caller touches take memory.
func Aligned(n int) []byte {
	size := roundUp(n)
	b := make([]byte, size+PageSize)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (PageSize - 1))
	return b[off : off+n : off+size]
}

// Advise asks Linux to back the whole huge pages inside b (from its first
// huge-page boundary to its last) with transparent huge pages. Failure is
// harmless and ignored.
func Advise(b []byte) {
	if len(b) < PageSize {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start+PageSize-1)&^(PageSize-1) - start
	hi := (start+uintptr(len(b)))&^(PageSize-1) - start
	if hi > lo {
		_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	}
}
