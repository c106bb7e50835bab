//go:build unix

package extract

import (
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// processUmask returns the process's file mode creation mask, which the
// modes of files created pass through and Revise applies too. Linux
// tells it in /proc/self/status without changing it; elsewhere it is set
// and restored at once.
func processUmask() fs.FileMode {
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Umask:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(m) & fs.ModePerm
				}
			}
		}
	}
	m := syscall.Umask(0)
	syscall.Umask(m)
	return fs.FileMode(m) & fs.ModePerm
}
