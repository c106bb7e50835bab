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

// prefetchN is prefetch3 for the n addresses from p: one call for the
// next nodes of all the walks going (btWalks.step), as every call makes
// the caller keep its state in memory.
//
//go:noescape
func prefetchN(p *uintptr, n int)
