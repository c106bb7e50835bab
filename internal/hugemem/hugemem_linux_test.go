package hugemem

import (
	"testing"
	"unsafe"
)

// inPages reports whether b starts on a huge-page boundary and its
// capacity is whole huge pages, as Aligned lays it out.
func inPages(b []byte) bool {
	return cap(b)%PageSize == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%PageSize == 0
}

func TestAligned(t *testing.T) {
	for _, n := range []int{1, PageSize - 1, PageSize, PageSize + 1, 3*PageSize + 12345} {
		b := Aligned(n)
		if len(b) != n || cap(b) != roundUp(n) {
			t.Fatalf("Aligned(%d): len %d cap %d, want cap %d", n, len(b), cap(b), roundUp(n))
		}
		if a := uintptr(unsafe.Pointer(unsafe.SliceData(b))); a%PageSize != 0 {
			t.Errorf("Aligned(%d) at %#x, not on a huge-page boundary", n, a)
		}
		if !inPages(b) {
			t.Errorf("Aligned(%d) not on whole huge pages", n)
		}
		for i, v := range b[:cap(b)] {
			if v != 0 {
				t.Fatalf("Aligned(%d)[%d] = %d", n, i, v)
			}
		}
		Advise(b[:cap(b)])
		Advise(b[1:])
	}
	if inPages(make([]byte, PageSize+1)) {
		t.Error("a plain slice of a page and a byte is on whole huge pages")
	}
	Advise(nil)
}

// TestMapped: Mapped's bytes are zero, n long, on a huge-page boundary,
// inside the mapping it returns, and writable until Unmap.
func TestMapped(t *testing.T) {
	for _, n := range []int{1, PageSize - 1, PageSize, 3*PageSize + 5} {
		b, m := Mapped(n)
		if b == nil {
			t.Fatalf("Mapped(%d) failed", n)
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
		p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
		if len(b) != n || cap(b) != n || p%PageSize != 0 {
			t.Fatalf("Mapped(%d): len %d cap %d at %#x", n, len(b), cap(b), p)
		}
		if p < start || p+uintptr(n) > start+uintptr(len(m)) {
			t.Fatalf("Mapped(%d): bytes outside the mapping", n)
		}
		for i := 0; i < n; i += 4096 {
			if b[i] != 0 {
				t.Fatalf("Mapped(%d): byte %d is %d", n, i, b[i])
			}
			b[i] = 1
		}
		Unmap(m)
	}
}
