package lzma

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 or arm64 transparent huge page.
const hugePage = 2 << 20

// hugeBytes returns n zero bytes for a match finder's tables or window,
// which are read at random: with 4 KiB pages nearly every access would
// also miss the TLB. From hugePage/2 bytes on, the memory starts at a
// huge-page boundary and Linux is asked to back it with transparent huge
// pages (madvise MADV_HUGEPAGE, effective when the system's THP mode is
// "always" or "madvise"): the whole pages it covers, and its last part
// when that fills at least half a page.
//
// The slice is cut from an allocation a huge page larger than that, so
// that no other object shares its pages. A huge page is only made when
// the first touch of a 2 MiB range finds none of it mapped yet; an
// unaligned buffer whose range an earlier object had touched got 4 KiB
// pages there, which happened to 2 of the 3.3 MiB of level 1's window
// (512 page faults). Failure of the advice is harmless and ignored.
func hugeBytes(n int) []byte {
	if n < hugePage/2 {
		return make([]byte, n)
	}
	whole := n &^ (hugePage - 1)
	advised := whole
	if n-whole >= hugePage/2 {
		advised += hugePage
	}
	b := make([]byte, whole+2*hugePage)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(b))) & (hugePage - 1))
	s := b[off : off+n : off+n]
	if advised > 0 {
		const madvHugepage = 14
		syscall.Syscall(syscall.SYS_MADVISE, uintptr(unsafe.Pointer(unsafe.SliceData(s))), uintptr(advised), madvHugepage)
	}
	return s
}
