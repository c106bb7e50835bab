package zstd

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/hugemem"
)

// histMemory returns n zero bytes for z's window buffer, outside the Go
// heap: mapped on a huge-page boundary and advised for transparent huge
// pages, so that their first touch is a page fault per 2 MiB rather than
// per 4 KiB, and counted in no heap goal (from the heap, hugemem.Aligned's
// 6 MiB for a window of 2 MiB started a collection in garc t of a .tar.zst
// that had none). The mapping is removed once z is unreachable. Where
// mapping fails, the memory comes from the heap.
func histMemory(z *Reader, n int) []byte {
	size := (n + hugemem.PageSize - 1) &^ (hugemem.PageSize - 1)
	m, err := unix.Mmap(-1, 0, size+hugemem.PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]byte, n)
	}
	runtime.AddCleanup(z, func(m []byte) { _ = unix.Munmap(m) }, m)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugemem.PageSize - 1))
	b := m[off : off+size]
	hugemem.Advise(b)
	return b[:n:n]
}
