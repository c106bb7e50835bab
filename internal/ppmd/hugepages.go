package ppmd

import "github.com/garc-dev/garc/internal/hugemem"

// adviseHugePages asks for transparent huge pages over the whole huge
// pages of the arena (hugemem.Advise), as 7-Zip does for its PPMd arena:
// the model reads its contexts and state lists at random across the whole
// arena, and with 4 KiB pages nearly every such read also missed the TLB
// (the 32 MiB decoding benchmark took 1.5× 7-Zip's time).
func adviseHugePages(b []byte) {
	if cap(b) >= 2*hugemem.PageSize {
		hugemem.Advise(b[:cap(b)])
	}
}

// newArena returns a zeroed arena of size bytes (len and cap). One of at
// least two huge pages starts on a huge-page boundary (hugemem.Aligned):
// unaligned, the arena lost a partial page at either end to 4 KiB pages,
// and its top holds the root and the first contexts, read for nearly
// every symbol (a 16 MiB arena had 14 MiB of huge pages, 7-Zip's all 16).
func newArena(size uint32) []byte {
	n := int(size)
	if n < 2*hugemem.PageSize {
		return make([]byte, n)
	}
	return hugemem.Aligned(n)[:n:n]
}
