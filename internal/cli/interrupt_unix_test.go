//go:build unix

package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/garc-dev/garc/internal/testenv"
)

// TestInterruptWhileStuck checks that SIGTERM ends a run that is blocked
// where cancellation cannot reach (opening a FIFO named as the password
// file): garc exits 255 after its grace period instead of hanging.
func TestInterruptWhileStuck(t *testing.T) {
	dir := t.TempDir()
	archive := makeArchive(t, dir, "enc.7z", "-psecret")
	fifo := filepath.Join(dir, "pw")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		testenv.Missing(t, "mkfifo ("+err.Error()+")")
	}
	cmd := exec.Command(garcBin, "t", "--password-file", fifo, archive)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // let it reach the blocking open
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != ExitInterrupted {
			t.Fatalf("exit %v, want %d; stderr: %s", err, ExitInterrupted, stderr.String())
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("garc ignored SIGTERM while blocked")
	}
}
