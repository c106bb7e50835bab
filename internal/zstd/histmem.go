package zstd

import (
	"runtime"

	"github.com/garc-dev/garc/internal/hugemem"
)

// histMemory returns n zero bytes for z's window buffer, outside the Go
// heap where it can be mapped (hugemem.Mapped, on Linux): their first touch is a page fault per 2 MiB
// rather than per 4 KiB, and they count in no heap goal (from the heap,
// hugemem.Aligned's 6 MiB for a window of 2 MiB started a collection in
// garc t of a .tar.zst that had none). The mapping is removed once z is
// unreachable. Where mapping fails, the memory comes from the heap.
func histMemory(z *Reader, n int) []byte {
	b, m := hugemem.Mapped(n)
	if b == nil {
		return make([]byte, n)
	}
	runtime.AddCleanup(z, hugemem.Unmap, m)
	return b
}
