//go:build !unix

package lzma

import (
	"testing"
	"time"
)

// threadCPU skips: there is no per-thread CPU time here.
func threadCPU(tb testing.TB) time.Duration {
	tb.Skip("no per-thread rusage on this system")
	return 0
}

// processCPU skips: the benchmarks that need it run on unix only.
func processCPU(tb testing.TB) time.Duration {
	tb.Skip("no process rusage on this system")
	return 0
}
