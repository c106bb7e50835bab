//go:build !linux

package hugemem

// Aligned returns n zero bytes: transparent huge pages are only asked for
// on Linux, so the layout does not matter here.
func Aligned(n int) []byte { return make([]byte, n) }

// Advise does nothing where transparent huge pages are not known.
func Advise(b []byte) {}

// Mapped returns nil, nil: memory is mapped outside the Go heap only on
// Linux, and callers then allocate it from the heap.
func Mapped(n int) (b, mapping []byte) { return nil, nil }

// Unmap does nothing where Mapped maps nothing.
func Unmap(mapping []byte) {}
