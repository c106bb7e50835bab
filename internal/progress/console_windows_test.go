package progress

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/windows"
)

// TestVTMode: a console already in virtual-terminal mode is left alone, a
// console without it is switched to it (the other mode bits kept), and
// one that refuses (a console older than Windows 10) makes the display
// plain text.
func TestVTMode(t *testing.T) {
	const vt = windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING
	const base = windows.ENABLE_PROCESSED_OUTPUT | windows.ENABLE_WRAP_AT_EOL_OUTPUT
	var set []uint32
	record := func(err error) func(uint32) error {
		return func(m uint32) error { set = append(set, m); return err }
	}
	if !vtMode(base|vt, record(nil)) || len(set) != 0 {
		t.Errorf("console in VT mode: set %#x", set)
	}
	if !vtMode(base, record(nil)) || len(set) != 1 || set[0] != base|vt {
		t.Errorf("console without VT mode: set %#x, want %#x", set, base|vt)
	}
	if vtMode(base, record(errors.New("the parameter is incorrect"))) {
		t.Error("a console refusing VT mode: escapes taken to work")
	}
}

// TestEscapesWorkOnPipe: output that is not a console (a pipe) gets the
// escapes, as on other systems.
func TestEscapesWorkOnPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if !escapesWork(w) {
		t.Error("a pipe: escapes taken not to work")
	}
}
