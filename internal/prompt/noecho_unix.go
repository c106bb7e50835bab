//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package prompt

import (
	"io"

	"golang.org/x/sys/unix"
)

// readNoEcho reads one line from the terminal fd with echo off, as
// term.ReadPassword does, except that end of input (Ctrl-D on an empty
// line) ends it with io.EOF instead of being ignored. Ctrl-C still
// raises SIGINT (ISIG stays on).
func readNoEcho(fd int) ([]byte, error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ECHO
	t.Lflag |= unix.ICANON | unix.ISIG
	t.Iflag |= unix.ICRNL
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &t); err != nil {
		return nil, err
	}
	defer unix.IoctlSetTermios(fd, ioctlSetTermios, old)
	var line []byte
	var b [1]byte
	for {
		n, err := unix.Read(fd, b[:])
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, err
		case n == 0:
			if len(line) > 0 {
				return line, nil
			}
			return nil, io.EOF
		case b[0] == '\n':
			return line, nil
		case b[0] == '\b' || b[0] == 0x7f:
			if len(line) > 0 {
				line = line[:len(line)-1]
			}
		default:
			line = append(line, b[0])
		}
	}
}
