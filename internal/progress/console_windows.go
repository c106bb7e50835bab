package progress

import (
	"io"

	"golang.org/x/sys/windows"
)

// escapesWork reports whether the escape sequence the display erases the
// rest of its line with (ESC [ K) works on w. A Windows console runs it
// only with virtual-terminal processing, which escapesWork switches on
// (Windows 10 1511 and later have it); where that fails (older consoles)
// the display draws in plain text, as for TERM=dumb, erasing with
// spaces. Output that is not a console (a pipe, a file, mintty's
// pseudo-terminal) gets the escapes, as on other systems.
func escapesWork(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	if !ok {
		return true
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return true // not a console
	}
	return vtMode(mode, func(m uint32) error { return windows.SetConsoleMode(h, m) })
}

// vtMode decides for a console in mode: escapes work when virtual-terminal
// processing is on, or once set turns it on.
func vtMode(mode uint32, set func(uint32) error) bool {
	if mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 {
		return true
	}
	return set(mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}
