//go:build !linux

package bzip2

// adviseHugePages does nothing where transparent huge pages are not
// known.
func adviseHugePages(tt []uint32) {}

// newTT returns a zeroed tt array of n words.
func newTT(n int) []uint32 { return make([]uint32, n) }

// newPre returns a zeroed buffer of n bytes for a block's text.
func newPre(n int) []byte { return make([]byte, n) }
