package stream

import "github.com/garc-dev/garc/internal/hugemem"

// ringMemory returns n zero bytes (n at most hugemem.PageSize) for a
// read-ahead's ring, outside the Go heap where it can be mapped
// (hugemem.Mapped: on Linux, advised for a transparent huge page), so that
// their first touch is one page fault rather than one per 4 KiB page (256
// for a MiB, a third of the faults of garc x of a 100 MB .tar.gz), and so
// that they count for no garbage collection (from the Go heap the
// alignment's slack took the heap past its first goal: a collection in a
// run that had none). The memory is never unmapped: rings are kept for
// the next read-ahead (readAheadRings). Where mapping fails, the memory
// comes from the heap.
func ringMemory(n int) []byte {
	b, _ := hugemem.Mapped(n)
	if b == nil {
		return make([]byte, n)
	}
	return b
}
