package lzma

import "github.com/garc-dev/garc/internal/hugemem"

// hugeBytes returns n zero bytes (len and cap) for a match finder's tables
// or window, which are read at random: with 4 KiB pages nearly every
// access would also miss the TLB. From half a huge page on, the memory
// starts at a huge-page boundary with no other object in its pages
// (hugemem.Aligned), and the whole pages it covers are advised for huge
// pages, and its last part when that fills at least half a page. An
// unaligned buffer whose range an earlier object had touched got 4 KiB
// pages there, which happened to 2 of the 3.3 MiB of level 1's window
// (512 page faults).
func hugeBytes(n int) []byte {
	if n < hugemem.PageSize/2 {
		return make([]byte, n)
	}
	b := hugemem.Aligned(n)
	advised := n &^ (hugemem.PageSize - 1)
	if n-advised >= hugemem.PageSize/2 {
		advised = cap(b)
	}
	hugemem.Advise(b[:advised])
	return b[:n:n]
}
