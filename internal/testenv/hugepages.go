package testenv

import (
	"runtime"
	"unsafe"

	"github.com/garc-dev/garc/internal/hugemem"
)

// InHugePages reports whether b is laid out as hugemem.Aligned lays it
// out on Linux: its start on a huge-page boundary and its capacity whole
// huge pages. Elsewhere, where Aligned is a plain allocation, it reports
// true.
func InHugePages(b []byte) bool {
	if runtime.GOOS != "linux" {
		return true
	}
	return cap(b)%hugemem.PageSize == 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b)))%hugemem.PageSize == 0
}
