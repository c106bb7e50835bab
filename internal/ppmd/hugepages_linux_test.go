package ppmd

import (
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// hugePageSize is the size of a transparent huge page.
const hugePageSize = hugemem.PageSize

// TestNewArenaAligned checks that an arena of two huge pages or more starts
// on a huge-page boundary (so that madvise can back all of it with huge
// pages) and has exactly the size asked for, and that a small one is a
// plain slice of that size.
func TestNewArenaAligned(t *testing.T) {
	for _, size := range []uint32{MinMemSize, 2*hugePageSize - 1, 2 * hugePageSize, 16<<20 + 12, 24 << 20} {
		b := newArena(size)
		if len(b) != int(size) || cap(b) != int(size) {
			t.Errorf("size %d: len %d cap %d", size, len(b), cap(b))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if size >= 2*hugePageSize && addr%hugePageSize != 0 {
			t.Errorf("size %d: arena at %#x, not on a %d-byte boundary", size, addr, hugePageSize)
		}
		for i, v := range b[len(b)-64:] {
			if v != 0 {
				t.Fatalf("size %d: byte %d is %d, want 0", size, len(b)-64+i, v)
			}
		}
	}
}
