//go:build !linux

package bzip2

// adviseHugePages does nothing where transparent huge pages are not
// known.
func adviseHugePages(tt []uint32) {}

// newTT returns a zeroed tt array of n words.
func newTT(n int, huge bool) []uint32 { return make([]uint32, n) }

// newPre returns a zeroed buffer of n bytes for a block's text.
func newPre(n int, huge bool) []byte { return make([]byte, n) }

// hugeLayout reports true: there is no other layout.
func hugeLayout(pre []byte) bool { return true }

// advisePre does nothing where transparent huge pages are not known.
func advisePre(pre []byte, n int) {}
