//go:build unix

package security

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS returns the peak resident set size of a finished process in
// bytes, where the system reports it.
func maxRSS(ps *os.ProcessState) (int64, bool) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss), true // bytes there
	}
	return int64(ru.Maxrss) << 10, true // kilobytes on Linux and the BSDs
}
