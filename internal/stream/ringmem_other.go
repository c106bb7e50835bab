//go:build !linux

package stream

// ringMemory returns n zero bytes for a read-ahead's ring.
func ringMemory(n int) []byte { return make([]byte, n) }
