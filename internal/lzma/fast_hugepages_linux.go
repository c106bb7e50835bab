package lzma

import (
	"syscall"
	"unsafe"
)

// adviseHugePagesAround asks Linux to back the 2 MiB-aligned range that
// encloses [p, p+size) with transparent huge pages (madvise
// MADV_HUGEPAGE). It is for the fast levels' tables and window, which
// are read at random but are smaller than the two huge pages below which
// adviseHugePages does nothing (1 MiB each at level 1): the range may
// take in neighbouring heap memory, which then also gets huge pages when
// it is first touched. Failure is harmless and ignored.
func adviseHugePagesAround(p unsafe.Pointer, size uintptr) {
	const huge = 2 << 20
	if size == 0 {
		return
	}
	a := uintptr(p) &^ (huge - 1)
	e := (uintptr(p) + size + huge - 1) &^ (huge - 1)
	const madvHugepage = 14
	syscall.Syscall(syscall.SYS_MADVISE, a, e-a, madvHugepage)
}
