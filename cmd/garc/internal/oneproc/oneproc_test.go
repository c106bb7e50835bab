package oneproc

import (
	"runtime"
	"testing"
)

// TestLowered checks that initializing the package left GOMAXPROCS at 1.
func TestLowered(t *testing.T) {
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("GOMAXPROCS %d after the package initialized (Lowered %v), want 1", got, Lowered)
	}
}
