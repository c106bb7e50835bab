package lzma

import (
	"syscall"
	"time"
	"unsafe"
)

// threadClock returns the CPU time of the calling OS thread
// (CLOCK_THREAD_CPUTIME_ID), which the pipelined finder's worker (locked
// to its thread) times its trials by, so that other processes taking the
// processor between its readings do not count. It falls back to the
// wall clock if the call fails.
func threadClock() time.Duration {
	const clockThreadCPUTime = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}
