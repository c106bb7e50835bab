package ppmd

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHugePages asks Linux to back the 2 MiB-aligned part of the arena
// with transparent huge pages (madvise MADV_HUGEPAGE; effective when the
// system's THP mode is "always" or "madvise", as 7-Zip does for its PPMd
// arena). The model reads its contexts and state lists at random across
// the whole arena: with 4 KiB pages nearly every such read also misses
// the TLB, and the 32 MiB decoding benchmark took 1.5× 7-Zip's time.
// Failure is harmless and ignored.
func adviseHugePages(b []byte) {
	const huge = hugePageSize
	if cap(b) < 2*huge {
		return
	}
	b = b[:cap(b)]
	start := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	lo := (start+huge-1)&^(huge-1) - start
	hi := (start+uintptr(len(b)))&^(huge-1) - start
	if hi > lo {
		_ = unix.Madvise(b[lo:hi], unix.MADV_HUGEPAGE)
	}
}

// hugePageSize is the size of a transparent huge page (x86-64, arm64).
const hugePageSize = 2 << 20

// newArena returns a zeroed arena of size bytes (len and cap). One of at
// least two huge pages starts on a huge-page boundary, taking up to 2 MiB
// more address space, never touched: unaligned, the arena lost a partial
// page at either end to 4 KiB pages, and its top holds the root and the
// first contexts, read for nearly every symbol (a 16 MiB arena had 14 MiB
// of huge pages, 7-Zip's all 16).
func newArena(size uint32) []byte {
	n := int(size)
	if n < 2*hugePageSize {
		return make([]byte, n)
	}
	b := make([]byte, n+hugePageSize)
	off := -int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) & (hugePageSize - 1)
	return b[off : off+n : off+n]
}
