//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package prompt

import "golang.org/x/term"

// endKey is what ends input on the terminal, for the prompts' hints.
const endKey = "Ctrl-D"

// readNoEcho reads one line from the terminal without echo.
func readNoEcho(fd int) ([]byte, error) { return term.ReadPassword(fd) }
