package ppmd

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/garc-dev/garc/internal/hugemem"
)

// arenaMapping owns an arena that newArena mapped outside the Go heap: the
// memory is unmapped once the mapping is unreachable, and the Model that
// holds a slice of the arena holds its mapping too.
type arenaMapping struct{ size int }

// newArena returns a zeroed arena of size bytes (len and cap) and, when it
// was mapped outside the Go heap, the mapping that owns it.
//
// One of at least two huge pages is mapped anonymously and starts on a
// huge-page boundary. Unaligned, the arena lost a partial page at either
// end to 4 KiB pages, and its top holds the root and the first contexts,
// read for nearly every symbol (a 16 MiB arena had 14 MiB of huge pages,
// 7-Zip's all 16). Outside the heap it counts for no garbage collection:
// 7z's default arena (16 MiB) from the heap started a collection in every
// run, and the runtime's heap mapping took some 400 page faults more than
// the anonymous mapping (7-Zip does the same: it clears nothing of the
// arena, and the kernel hands out zero pages as the model first touches
// them). A small arena, or one the system would not map, comes from the
// heap (owner nil).
func newArena(size uint32) (*arenaMapping, []byte) {
	n := int(size)
	if n < 2*hugemem.PageSize {
		return nil, make([]byte, n)
	}
	total := (n + hugemem.PageSize - 1) &^ (hugemem.PageSize - 1)
	m, err := unix.Mmap(-1, 0, total+hugemem.PageSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, hugemem.Aligned(n)[:n:n]
	}
	owner := &arenaMapping{size: len(m)}
	runtime.AddCleanup(owner, func(m []byte) { _ = unix.Munmap(m) }, m)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(m))) & (hugemem.PageSize - 1))
	return owner, m[off : off+n : off+n]
}
