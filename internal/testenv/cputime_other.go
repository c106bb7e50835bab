//go:build !unix

package testenv

import "time"

// CPUTime is not measured on this platform: it returns zeros, and callers
// that report CPU metrics leave them out.
func CPUTime() (self, children time.Duration) { return 0, 0 }
