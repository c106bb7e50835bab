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
