package prompt

import "golang.org/x/sys/windows"

// endKey is what ends input on a Windows console, for the prompts' hints.
const endKey = "Ctrl-Z, Enter"

// readNoEcho reads one line from the console fd with echo off and line
// input and Ctrl-C processing on (Ctrl-C stays the interrupt that ends the
// run), as term.ReadPassword does, except that Ctrl-Z typed first on the
// line ends input with io.EOF, as it does for console programs, instead
// of becoming part of the password. shown is called once echo is off,
// before the line is read (the prompt is shown then).
func readNoEcho(fd int, shown func()) ([]byte, error) {
	h := windows.Handle(fd)
	var old uint32
	if err := windows.GetConsoleMode(h, &old); err != nil {
		return nil, err
	}
	mode := old&^windows.ENABLE_ECHO_INPUT | windows.ENABLE_PROCESSED_INPUT | windows.ENABLE_LINE_INPUT
	if err := windows.SetConsoleMode(h, mode); err != nil {
		return nil, err
	}
	defer windows.SetConsoleMode(h, old)
	shown()
	return readLine(func(b []byte) (int, error) {
		var n uint32
		err := windows.ReadFile(h, b, &n, nil)
		return int(n), err
	}, 0x1a)
}
