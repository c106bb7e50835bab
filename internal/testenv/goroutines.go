package testenv

import (
	"runtime"
	"testing"
	"time"
)

// CheckGoroutines fails t when more goroutines than before are running,
// after waiting up to a second for those that have signalled their end
// (a worker between its last send or wg.Done and its return) to exit.
// The failure shows every goroutine's stack.
func CheckGoroutines(t testing.TB, before int) {
	t.Helper()
	n := runtime.NumGoroutine()
	for i := 0; i < 1000 && n > before; i++ {
		time.Sleep(time.Millisecond)
		n = runtime.NumGoroutine()
	}
	if n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines running, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}
