// Package hugemem lays out buffers for transparent huge pages.
//
// Match finders' tables and windows, the PPMd model's arena and the bzip2
// inverse transform's arrays are read at random across megabytes: in
// 4 KiB pages nearly every such access also misses the TLB, and the first
// touch of each page is a page fault. Linux backs a 2 MiB-aligned range
// with one huge page when the range is advised (madvise MADV_HUGEPAGE,
// effective when the system's transparent huge page mode is "always" or
// "madvise") and nothing in it is mapped yet, which is why such a buffer
// must start on a huge-page boundary and share its pages with no other
// object. Aligned makes such buffers and Advise asks for the pages; on
// other systems Aligned is a plain allocation and Advise does nothing.
package hugemem

// PageSize is the size of a transparent huge page (x86-64, arm64).
const PageSize = 2 << 20

// roundUp is n rounded up to a whole number of huge pages.
func roundUp(n int) int { return (n + PageSize - 1) &^ (PageSize - 1) }
