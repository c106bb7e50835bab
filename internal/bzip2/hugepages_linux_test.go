package bzip2

import (
	"testing"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// hugePageSize is the size of a transparent huge page.
const hugePageSize = hugemem.PageSize

// TestNewTTAligned checks that a tt array of a huge page or more starts on
// a huge-page boundary and has a capacity of whole huge pages (so that
// adviseHugePages covers all of it), that its length is what was asked
// for, and that it is zeroed; a smaller one is a plain slice.
func TestNewTTAligned(t *testing.T) {
	for _, n := range []int{100000, hugePageSize/4 - 1, hugePageSize / 4, 900000} {
		tt := newTT(n, true)
		if len(tt) != n {
			t.Errorf("%d words: len %d", n, len(tt))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(tt)))
		huge := n*4 >= hugePageSize
		if huge && (addr%hugePageSize != 0 || cap(tt)*4%hugePageSize != 0 || cap(tt)*4-n*4 >= hugePageSize) {
			t.Errorf("%d words: at %#x, capacity %d words, want a huge-page boundary and whole huge pages", n, addr, cap(tt))
		}
		if !huge && cap(tt) != n {
			t.Errorf("%d words: capacity %d", n, cap(tt))
		}
		for i, v := range tt[:cap(tt)] {
			if v != 0 {
				t.Fatalf("%d words: word %d is %d", n, i, v)
			}
		}
	}
}

// TestNewPreAligned checks that a text buffer of a quarter of a huge page
// or more starts on a huge-page boundary and has a capacity of whole huge
// pages, that a smaller one is a plain slice, and that every one has the
// length asked for and is zeroed.
func TestNewPreAligned(t *testing.T) {
	for _, n := range []int{1000, hugePageSize/4 - 1, hugePageSize / 4, 900000, hugePageSize + 1} {
		b := newPre(n, true)
		huge := n >= hugePageSize/4
		if len(b) != n || !huge && cap(b) != n {
			t.Errorf("%d bytes: len %d cap %d", n, len(b), cap(b))
		}
		addr := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if huge && (addr%hugePageSize != 0 || cap(b)%hugePageSize != 0 || cap(b)-n >= hugePageSize) {
			t.Errorf("%d bytes: at %#x, capacity %d, want a huge-page boundary and whole huge pages", n, addr, cap(b))
		}
		for i, v := range b[:cap(b)] {
			if v != 0 {
				t.Fatalf("%d bytes: byte %d is %d", n, i, v)
			}
		}
	}
}

// TestScratchOneHugePage checks that the lanes' scratch buffer of a level
// 9 block buffer fills one huge page, laid out for it (eight regions of
// an even share and laneSlack, not eight of the whole block).
func TestScratchOneHugePage(t *testing.T) {
	var b blockBuf
	b.ensure(900000, true)
	if cap(b.scratch) != hugePageSize || !hugemem.InPages(b.scratch) {
		t.Errorf("scratch of %d bytes (huge-page layout %v), want one huge page", cap(b.scratch), hugemem.InPages(b.scratch))
	}
	if need := lanes * laneRegion(900000); len(b.scratch) < need {
		t.Errorf("scratch of %d bytes, the regions take %d", len(b.scratch), need)
	}
}
