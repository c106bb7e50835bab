package lzma

// prefetch3 asks the processor to bring the cache lines at a, b and c
// closer (PREFETCHT0). Unlike a load, it never waits for the memory.
//
//go:noescape
func prefetch3(a, b *uint32, c *byte)

// prefetch1 is prefetch3 for one cache line.
//
//go:noescape
func prefetch1(a *uint32)
