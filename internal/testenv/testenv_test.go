package testenv

import (
	"runtime"
	"testing"
)

func TestRequireAll(t *testing.T) {
	t.Setenv("GARC_REQUIRE_ALL", "1")
	if !RequireAll() {
		t.Fatal("GARC_REQUIRE_ALL=1 not honoured")
	}
	t.Setenv("GARC_REQUIRE_ALL", "")
	if RequireAll() {
		t.Fatal("RequireAll without the variable")
	}
}

func TestCPUTimeAdvances(t *testing.T) {
	self0, _ := CPUTime()
	x := 0
	for i := 0; i < 50_000_000; i++ {
		x += i ^ (x >> 3)
	}
	self1, _ := CPUTime()
	if self1 < self0 || (self0 == 0 && self1 == 0 && runtime.GOOS != "windows" && runtime.GOOS != "plan9") {
		t.Fatalf("CPU time went from %v to %v (x=%d)", self0, self1, x)
	}
}
