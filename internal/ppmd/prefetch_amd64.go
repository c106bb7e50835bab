package ppmd

// prefetch asks the processor to bring the cache line at base+off closer
// (PREFETCHT0). Unlike a load, it neither waits for the memory nor holds
// up the instructions after it, and it never faults, so off needs no
// check against the arena.
//
//go:noescape
func prefetch(base *byte, off uint32)
