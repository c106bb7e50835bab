//go:build unix

package cli

import (
	"os"

	"golang.org/x/sys/unix"
)

// appendOnly reports whether f was opened for appending (>>), where a
// seek does not move where the next write lands.
func appendOnly(f *os.File) bool {
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	return err != nil || flags&unix.O_APPEND != 0
}
