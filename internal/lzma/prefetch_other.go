//go:build !amd64

package lzma

// prefetch3 is a no-op where no prefetch instruction is wired up.
func prefetch3(a, b *uint32, c *byte) {}

// prefetch1 is a no-op where no prefetch instruction is wired up.
func prefetch1(a *uint32) {}

// prefetchN is a no-op where no prefetch instruction is wired up.
func prefetchN(p *uintptr, n int) {}
