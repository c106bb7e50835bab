//go:build unix

package testenv

import (
	"syscall"
	"time"
)

// CPUTime returns the user+system CPU time of this process (self) and of
// its waited-for children. Benchmarks report it next to wall time because
// the machines they run on are shared and wall-clock figures are noisy.
func CPUTime() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}
