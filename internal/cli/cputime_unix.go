//go:build unix

package cli

import (
	"syscall"
	"time"
)

// processCPUTime returns the user and system time of the process, all
// its threads, from getrusage.
func processCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
