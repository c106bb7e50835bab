package bzip2

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// adviseHugePages asks Linux to back tt, which newTT laid out on huge-page
// boundaries, with transparent huge pages (madvise MADV_HUGEPAGE;
// effective when the system's THP mode is "always" or "madvise", as 7-Zip
// asks for its bzip2 decoder's buffers). The inverse BWT links and walks
// tt at random across all of it: with 4 KiB pages nearly every step also
// misses the TLB, and faulting in 3.6 MB takes 900 page faults instead of
// two. Failure is harmless and ignored.
func adviseHugePages(tt []uint32) {
	tt = tt[:cap(tt)]
	if len(tt)*4 < hugePageSize || uintptr(unsafe.Pointer(unsafe.SliceData(tt)))%hugePageSize != 0 {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(tt))), len(tt)*4)
	_ = unix.Madvise(b, unix.MADV_HUGEPAGE)
}

// newTT returns a zeroed tt array of n words (len n). A huge one of at
// least a huge page starts on a huge-page boundary and its capacity runs
// to the next one, so that adviseHugePages can give all of it huge pages;
// that takes up to two huge pages more address space, of which only the
// rounding of the last page is ever touched.
func newTT(n int, huge bool) []uint32 {
	const words = hugePageSize / 4
	if n < words || !huge {
		return make([]uint32, n)
	}
	size := (n + words - 1) &^ (words - 1)
	w := make([]uint32, size+words)
	off := (-int(uintptr(unsafe.Pointer(unsafe.SliceData(w)))) & (hugePageSize - 1)) / 4
	return w[off : off+n : off+size]
}

// hugePageSize is the size of a transparent huge page (x86-64, arm64).
const hugePageSize = 2 << 20

// newPre returns a zeroed buffer of n bytes (len n) for a block's text; a
// huge one of at least a quarter of a huge page starts on a huge-page
// boundary and its capacity runs to the next one, for advisePre.
func newPre(n int, huge bool) []byte {
	if n < hugePageSize/4 || !huge {
		return make([]byte, n)
	}
	size := (n + hugePageSize - 1) &^ (hugePageSize - 1)
	b := make([]byte, size+hugePageSize)
	off := -int(uintptr(unsafe.Pointer(unsafe.SliceData(b)))) & (hugePageSize - 1)
	return b[off : off+n : off+size]
}

// hugeLayout reports whether pre is laid out in whole huge pages.
func hugeLayout(pre []byte) bool {
	return cap(pre)%hugePageSize == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(pre)))%hugePageSize == 0
}

// advisePre gives a text buffer from newPre huge pages (madvise
// MADV_HUGEPAGE), before a block of n bytes is written to it: one of at
// least an eighth of a huge page, which would take 64 page faults or more.
// Small blocks (a small stream's) leave it on 4 KiB pages; where pages
// are already there, they stay.
func advisePre(pre []byte, n int) {
	if n < hugePageSize/8 || cap(pre) == 0 || !hugeLayout(pre) {
		return
	}
	_ = unix.Madvise(pre[:cap(pre)], unix.MADV_HUGEPAGE)
}
