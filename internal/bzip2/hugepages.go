package bzip2

import (
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// adviseHugePages asks for transparent huge pages over tt, which newTT
// laid out on huge-page boundaries (hugemem.Advise; 7-Zip asks the same
// for its bzip2 decoder's buffers). The inverse BWT links and walks tt at
// random across all of it: with 4 KiB pages nearly every step also misses
// the TLB, and faulting in 3.6 MB takes 900 page faults instead of two.
func adviseHugePages(tt []uint32) {
	b := ttBytes(tt[:cap(tt)])
	if len(b) >= hugemem.PageSize && hugemem.InPages(b) {
		hugemem.Advise(b)
	}
}

// ttBytes is the memory of tt as bytes.
func ttBytes(tt []uint32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(tt))), 4*len(tt))
}

// newTT returns a zeroed tt array of n words (len n). A huge one of at
// least a huge page is laid out by hugemem.Aligned (on a huge-page
// boundary, its capacity running to the next one), so that
// adviseHugePages can give all of it huge pages.
func newTT(n int, huge bool) []uint32 {
	if 4*n < hugemem.PageSize || !huge {
		return make([]uint32, n)
	}
	b := hugemem.Aligned(4 * n)
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), cap(b)/4)[:n]
}

// newPre returns a zeroed buffer of n bytes (len n) for a block's text; a
// huge one of at least a quarter of a huge page is laid out by
// hugemem.Aligned, for advisePre.
func newPre(n int, huge bool) []byte {
	if n < hugemem.PageSize/4 || !huge {
		return make([]byte, n)
	}
	return hugemem.Aligned(n)
}

// advisePre gives a text buffer from newPre huge pages (hugemem.Advise),
// before a block of n bytes is written to it: one of at least an eighth of
// a huge page, which would take 64 page faults or more. Small blocks (a
// small stream's) leave it on 4 KiB pages; where pages are already there,
// they stay.
func advisePre(pre []byte, n int) {
	if n < hugemem.PageSize/8 || cap(pre) == 0 || !hugemem.InPages(pre) {
		return
	}
	hugemem.Advise(pre[:cap(pre)])
}
