//go:build !amd64

package checksum

// HasVPCLMUL reports whether FoldVPCLMUL can run: never on this
// architecture.
func HasVPCLMUL() bool { return false }

// FoldVPCLMUL is not available on this architecture; HasVPCLMUL reports
// false and nothing calls it.
func FoldVPCLMUL(r uint64, p []byte, k *FoldKeys) (lo, hi uint64) {
	panic("checksum: FoldVPCLMUL without AVX-512")
}
