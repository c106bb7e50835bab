//go:build !amd64

package ppmd

// prefetch is a no-op where no prefetch instruction is wired up.
func prefetch(base *byte, off uint32) {}
