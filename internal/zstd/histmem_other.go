//go:build !linux

package zstd

import "github.com/garc-dev/garc/internal/hugemem"

// histMemory returns n zero bytes for z's window buffer: at least 2 MiB
// start on a huge-page boundary (hugemem).
func histMemory(z *Reader, n int) []byte {
	if n < hugemem.PageSize {
		return make([]byte, n)
	}
	b := hugemem.Aligned(n)
	hugemem.Advise(b)
	return b
}
