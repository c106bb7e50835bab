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

// Mapped returns n zero bytes outside the Go heap (len and cap n): an
// anonymous mapping, the bytes starting on a huge-page boundary and
// advised for transparent huge pages, so that their first touch is one
// page fault per 2 MiB rather than per 4 KiB and they count toward no
// collection's goal. mapping is the whole mapping, for Unmap once nothing
// uses b. Both are nil where the mapping fails.
func Mapped(n int) (b, mapping []byte) {
	size := roundUp(n)
	m, err := unix.Mmap(-1, 0, size+PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, nil
	}
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (PageSize - 1))
	b = m[off : off+size]
	Advise(b)
	return b[:n:n], m
}

// Unmap removes a mapping Mapped made; nothing may use its bytes after.
func Unmap(mapping []byte) { _ = unix.Munmap(mapping) }
