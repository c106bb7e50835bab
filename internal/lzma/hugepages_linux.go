package lzma

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks Linux to back the 2 MiB-aligned range that
// encloses s with transparent huge pages (madvise MADV_HUGEPAGE,
// effective when the system's THP mode is "always" or "madvise"). The
// match finder's tables are read at random, and with 4 KiB pages nearly
// every access would also miss the TLB. The range is rounded outwards so
// that tables smaller than two huge pages (1 MiB each at level 1) get
// them too; it may take in neighbouring heap memory, which then also gets
// huge pages when first touched. Failure is harmless and ignored.
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
	if size == 0 {
		return
	}
	a := uintptr(p) &^ (huge - 1)
	e := (uintptr(p) + size + huge - 1) &^ (huge - 1)
	const madvHugepage = 14
	syscall.Syscall(syscall.SYS_MADVISE, a, e-a, madvHugepage)
}
