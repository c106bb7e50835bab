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
	adviseHugePagesAt(unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*4)
}

// adviseHugePagesBytes is adviseHugePages for a window buffer, which the
// match finders also read at random.
func adviseHugePagesBytes(b []byte) {
	adviseHugePagesAt(unsafe.Pointer(unsafe.SliceData(b)), uintptr(cap(b)))
}

func adviseHugePagesAt(p unsafe.Pointer, size uintptr) {
	const huge = 2 << 20
	if size < 2*huge {
		return
	}
	start := uintptr(p)
	end := start + size
	a := (start + huge - 1) &^ (huge - 1)
	e := end &^ (huge - 1)
	if e > a {
		const madvHugepage = 14
		syscall.Syscall(syscall.SYS_MADVISE, a, e-a, madvHugepage)
	}
}
