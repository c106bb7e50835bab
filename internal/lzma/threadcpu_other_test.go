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
