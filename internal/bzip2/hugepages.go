package bzip2

import "unsafe"

// blockMem returns the tt array (len size), the text buffer and the
// scratch buffer of walkLanes for blocks of up to size bytes, one after
// the other in one allocation outside the Go heap, and the mapping that
// owns them. With huge, the allocation runs from a huge-page boundary to
// the next, advised for transparent huge pages (hugeAlloc; 7-Zip asks the
// same for its bzip2 decoder's buffers): the inverse BWT links and walks
// tt at random across all of it, with 4 KiB pages nearly every step also
// missed the TLB, and faulting in 3.6 MB took 900 page faults instead of
// two; at level 9 the three fill three huge pages (5.9 MB), where each on
// pages of its own took four. Without, it is in plain pages of which only
// those written take memory (plainAlloc): a small block of a level 9
// stream writes a little of 6 MB, which from the Go heap counted fully
// towards the next collection (one in every run of garc t on a one-block
// 4 MiB stream of runs with two threads).
func blockMem(size int, huge bool) (owner *mapping, tt []uint32, pre, scratch []byte) {
	nt, ns := 4*size, lanes*laneRegion(size)
	alloc := plainAlloc
	if huge {
		alloc = hugeAlloc
	}
	owner, m := alloc(nt + size + ns)
	tt = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(m))), size)
	return owner, tt, m[nt : nt+size : nt+size], m[nt+size : nt+size+ns : nt+size+ns]
}
