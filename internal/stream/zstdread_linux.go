package stream

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/hugemem"
)

// zstdWindowMemory returns n zero bytes for a zstd decoder's window
// ring, outside the Go heap (as ringMemory): on a huge-page boundary and
// advised for transparent huge pages, so that their first touch is a page
// fault per 2 MiB rather than per 4 KiB, and counted in no heap goal. The
// mapping is removed once owner is unreachable (the decoder using the
// memory goes with it). It returns nil where mapping fails.
func zstdWindowMemory(owner *zstdParts, n int) []byte {
	size := (n + hugemem.PageSize - 1) &^ (hugemem.PageSize - 1)
	m, err := unix.Mmap(-1, 0, size+hugemem.PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil
	}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, m)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugemem.PageSize - 1))
	b := m[off : off+size]
	hugemem.Advise(b)
	return b[:n]
}
