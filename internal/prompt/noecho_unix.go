//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package prompt

import "golang.org/x/sys/unix"

// endKey is what ends input on the terminal, for the prompts' hints.
const endKey = "Ctrl-D"

// readNoEcho reads one line from the terminal fd with echo off, as
// term.ReadPassword does, except that end of input (Ctrl-D on an empty
// line) ends it with io.EOF instead of being ignored. Ctrl-C still
// raises SIGINT (ISIG stays on). shown is called once echo is off, before
// the line is read: the prompt is shown then, so that nothing typed after
// it is echoed.
func readNoEcho(fd int, shown func()) ([]byte, error) {
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
	shown()
	return readLine(func(b []byte) (int, error) {
		for {
			n, err := unix.Read(fd, b)
			if err != unix.EINTR {
				return n, err
			}
		}
	}, 0)
}
