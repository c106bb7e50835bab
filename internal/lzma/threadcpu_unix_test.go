//go:build unix

package lzma

import (
	"syscall"
	"testing"
	"time"
)

// threadCPU returns the CPU time (user+sys) of the calling OS thread
// (RUSAGE_THREAD, Linux); elsewhere the benchmark that needs it skips.
func threadCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		tb.Skip("no per-thread rusage:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// processCPU returns the CPU time (user+sys) of the whole process, all
// threads together.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Skip("no rusage:", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
