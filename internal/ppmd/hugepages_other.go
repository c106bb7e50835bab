//go:build !linux

package ppmd

// adviseHugePages does nothing where transparent huge pages are not
// known.
func adviseHugePages(b []byte) {}

// newArena returns a zeroed arena of size bytes.
func newArena(size uint32) []byte { return make([]byte, size) }
