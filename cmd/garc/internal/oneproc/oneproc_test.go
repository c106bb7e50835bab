package oneproc

import (
	"os"
	"runtime"
	"testing"
	"unsafe"
)

// TestLowered checks that initializing the package left GOMAXPROCS at 1.
func TestLowered(t *testing.T) {
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS %d after the package initialized (Lowered %v), want 1", got, Lowered)
	}
}

// mainStackMoved records whether a 12 KiB frame on the main goroutine,
// called right after the packages initialized, moved its stack.
var mainStackMoved bool

// TestMain runs on the main goroutine, whose stack growStack grew.
func TestMain(m *testing.M) {
	var here byte
	before := uintptr(unsafe.Pointer(&here))
	deepFrame(len(os.Args))
	mainStackMoved = uintptr(unsafe.Pointer(&here)) != before
	os.Exit(m.Run())
}

// deepFrame uses 12 KiB of stack.
//
//go:noinline
func deepFrame(i int) byte {
	var b [12 << 10]byte
	b[i] = byte(i)
	return b[i/2]
}

// TestStackGrown checks that the packages' initialization left the main
// goroutine's stack large enough for a 12 KiB frame, so that the command
// line does not copy its stack when it gets deep (issue 27).
func TestStackGrown(t *testing.T) {
	if mainStackMoved {
		t.Error("a 12 KiB frame after initialization moved the main goroutine's stack")
	}
}
