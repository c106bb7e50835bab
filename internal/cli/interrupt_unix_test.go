//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestInterruptDuringExtraction sends SIGINT while a large entry is being
// written: garc exits 255 and leaves no partial or temporary file.
func TestInterruptDuringExtraction(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 64 MiB file; skipped in -short mode")
	}
	dir := t.TempDir()
	// Stored, so that setting up is quick; writing 64 MiB takes long
	// enough to be interrupted.
	big := make([]byte, 64<<20)
	x := uint64(88172645463325252)
	for i := 0; i+8 <= len(big); i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		for j := 0; j < 8; j++ {
			big[i+j] = byte(x >> (8 * j))
		}
	}
	writeTree(t, dir, map[string]string{"src/big.bin": string(big)})
	big = nil
	sevenZip(t, dir, "a", "-bd", "-mx=0", "big.7z", "src")
	os.RemoveAll(filepath.Join(dir, "src"))

	out := filepath.Join(dir, "out")
	cmd := exec.Command(garcBin, "x", "big.7z", "-o", out)
	cmd.Dir = dir
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the output file is being written, then interrupt. The
	// deadline only stops a hung test.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		found := false
		filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
			if err == nil && fi.Mode().IsRegular() {
				found = true
			}
			return nil
		})
		if found || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	var ee *exec.ExitError
	code := 0
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	}
	if code == ExitOK {
		t.Fatalf("extraction finished before the interrupt arrived; nothing was checked")
	}
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d\n%s", code, ExitInterrupted, errb.String())
	}
	filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			t.Errorf("left behind after the interrupt: %s (%d bytes)", p, fi.Size())
		}
		return nil
	})
}
