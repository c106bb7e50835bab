//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package prompt

import "golang.org/x/term"

// endKey is what ends input on the terminal, for the prompts' hints.
const endKey = "Ctrl-D"

// readNoEcho reads one line from the terminal without echo; shown is
// called first (the prompt is shown then).
func readNoEcho(fd int, shown func()) ([]byte, error) {
	shown()
	return term.ReadPassword(fd)
}
