//go:build !linux

package lzma

import "time"

// threadClock returns the time the pipelined finder's worker times its
// trials by: the wall clock where the thread's CPU time is not wired up.
func threadClock() time.Duration { return time.Duration(time.Now().UnixNano()) }
