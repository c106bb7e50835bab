package ppmd

import "testing"

// TestPrefetchAnyOffset pins what touchStates relies on: a prefetch past
// the end of the arena, such as of a one-state context's overlaid
// offset, neither faults nor changes the memory.
func TestPrefetchAnyOffset(t *testing.T) {
	b := []byte{1, 2, 3}
	for _, off := range []uint32{0, 2, 3, 1 << 20, 1 << 31, 0xFFFFFFFF} {
		prefetch(&b[0], off)
	}
	if b[0] != 1 || b[1] != 2 || b[2] != 3 {
		t.Fatalf("memory changed: %v", b)
	}
}
