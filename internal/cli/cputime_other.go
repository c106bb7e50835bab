//go:build !unix

package cli

import "time"

// processCPUTime reports that the process's CPU time is not known here:
// the one-P phase ends after onePDuration of the clock.
func processCPUTime() (time.Duration, bool) { return 0, false }
