package lzma

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back the 2 MiB-aligned part of s with
// transparent huge pages (madvise MADV_HUGEPAGE, effective when the
// system's THP mode is "always" or "madvise"). The match finder's tables
// are read at random, and with 4 KiB pages nearly every access would also
// miss the TLB. Failure is harmless and ignored.
func adviseHugePages(s []uint32) {
	const huge = 2 << 20
	if cap(s)*4 < 2*huge {
		return
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	end := start + uintptr(cap(s))*4
	a := (start + huge - 1) &^ (huge - 1)
	e := end &^ (huge - 1)
	if e > a {
		const madvHugepage = 14
		syscall.Syscall(syscall.SYS_MADVISE, a, e-a, madvHugepage)
	}
}
