//go:build !linux

package stream

// zstdWindowMemory returns nil: elsewhere the zstd decoder allocates its
// window itself.
func zstdWindowMemory(owner *zstdParts, n int) []byte { return nil }
