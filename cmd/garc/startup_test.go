package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestStartupSystemCalls traces the system calls of `garc t` on a small
// 7z archive (issue 13): the archive is opened without offering it to
// the runtime's poller, which os.Open does for every file (two fcntl
// F_SETFL around an epoll_ctl that fails for regular files).
func TestStartupSystemCalls(t *testing.T) {
	strace := testenv.Tool(t, "strace")
	dir := t.TempDir()
	bin := filepath.Join(dir, "garc")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	trace := filepath.Join(dir, "trace")
	sample, err := filepath.Abs(filepath.Join("..", "..", "testdata", "sample.7z"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=openat,fcntl,epoll_ctl", "-o", trace, bin, "t", "-q", sample)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("strace garc t: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	calls := string(b)
	if !strings.Contains(calls, "sample.7z") {
		t.Fatalf("the trace does not show the archive being opened:\n%s", calls)
	}
	for _, line := range strings.Split(calls, "\n") {
		if strings.Contains(line, "F_SETFL") || strings.Contains(line, "epoll_ctl") && strings.Contains(line, "EPERM") {
			t.Errorf("garc t of a 7z archive: %s", line)
		}
	}
}
