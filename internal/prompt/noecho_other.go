//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package prompt

import "golang.org/x/term"

// readNoEcho reads one line from the terminal without echo.
func readNoEcho(fd int) ([]byte, error) { return term.ReadPassword(fd) }
