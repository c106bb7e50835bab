package testenv

import (
	"os"
	"path/filepath"
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

func TestSharedDir(t *testing.T) {
	d := SharedDir()
	if filepath.Base(d) != "shared" || !filepath.IsAbs(d) {
		t.Fatalf("SharedDir = %q", d)
	}
}

func TestGOROOT(t *testing.T) {
	root := GOROOT(t)
	if _, err := os.Stat(filepath.Join(root, "src", "runtime")); err != nil {
		t.Fatalf("GOROOT %q has no src/runtime: %v", root, err)
	}
}

func TestMixedData(t *testing.T) {
	a := MixedData(t, 1000)
	b := MixedData(t, 1000)
	if len(a) != 1000 || &a[0] != &b[0] {
		t.Fatalf("MixedData: %d bytes, cached %v", len(a), &a[0] == &b[0])
	}
}
