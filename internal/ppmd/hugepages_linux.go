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
	const huge = 2 << 20
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
