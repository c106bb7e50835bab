//go:build !linux

package lzma

// hugeBytes returns n zero bytes; transparent huge pages are only asked
// for on Linux.
func hugeBytes(n int) []byte { return make([]byte, n) }
