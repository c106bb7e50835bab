package bzip2

import "unsafe"

// hugeBlockMem returns the tt array (len size), the text buffer and the
// scratch buffer of walkLanes for blocks of up to size bytes, one after
// the other in one allocation from a huge-page boundary to the next,
// advised for transparent huge pages (hugemem.Advise; 7-Zip asks the same
// for its bzip2 decoder's buffers), and the mapping that owns them
// (hugeAlloc). The inverse BWT links and walks tt at random across all of
// it: with 4 KiB pages nearly every step also misses the TLB, and
// faulting in 3.6 MB takes 900 page faults instead of two. At level 9 the
// three fill three huge pages (5.9 MB), where each on pages of its own
// took four.
func hugeBlockMem(size int) (owner *mapping, tt []uint32, pre, scratch []byte) {
	nt, ns := 4*size, lanes*laneRegion(size)
	owner, m := hugeAlloc(nt + size + ns)
	tt = unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(m))), size)
	return owner, tt, m[nt : nt+size : nt+size], m[nt+size : nt+size+ns : nt+size+ns]
}
