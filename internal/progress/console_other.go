//go:build !windows

package progress

import "io"

// escapesWork reports true: terminals other than Windows' console run
// escape sequences (TERM=dumb aside, which New checks).
func escapesWork(io.Writer) bool { return true }
